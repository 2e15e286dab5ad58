ALTER TABLE "chat_sessions" ADD COLUMN "summary_failures" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "chat_sessions" ADD COLUMN "summary_failed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "chat_sessions" ADD COLUMN "summary_failure_code" text;