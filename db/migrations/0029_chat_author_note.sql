ALTER TABLE "chat_sessions" ADD COLUMN "author_note" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "chat_sessions" ADD COLUMN "author_note_depth" integer DEFAULT 4 NOT NULL;--> statement-breakpoint
ALTER TABLE "chat_sessions" ADD CONSTRAINT "chat_sessions_author_note_depth" CHECK ("chat_sessions"."author_note_depth" between 0 and 100);--> statement-breakpoint
ALTER TABLE "chat_sessions" ADD CONSTRAINT "chat_sessions_author_note_length" CHECK (char_length("chat_sessions"."author_note") <= 2000);