ALTER TABLE "chat_sessions" ADD COLUMN "temperature" double precision;--> statement-breakpoint
ALTER TABLE "chat_sessions" ADD COLUMN "reply_tokens" integer;--> statement-breakpoint
ALTER TABLE "chat_sessions" ADD CONSTRAINT "chat_sessions_temperature" CHECK ("chat_sessions"."temperature" between 0 and 2);--> statement-breakpoint
ALTER TABLE "chat_sessions" ADD CONSTRAINT "chat_sessions_reply_tokens" CHECK ("chat_sessions"."reply_tokens" > 0);