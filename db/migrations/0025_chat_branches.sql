ALTER TABLE "chat_sessions" ADD COLUMN "parent_session_id" uuid;--> statement-breakpoint
ALTER TABLE "chat_sessions" ADD COLUMN "parent_message_id" bigint;--> statement-breakpoint
ALTER TABLE "chat_sessions" ADD CONSTRAINT "chat_sessions_parent_session_id_chat_sessions_id_fk" FOREIGN KEY ("parent_session_id") REFERENCES "public"."chat_sessions"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_sessions" ADD CONSTRAINT "chat_sessions_parent_message_id_chat_messages_id_fk" FOREIGN KEY ("parent_message_id") REFERENCES "public"."chat_messages"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chat_sessions_parent_idx" ON "chat_sessions" USING btree ("parent_session_id") WHERE "chat_sessions"."parent_session_id" is not null;--> statement-breakpoint
CREATE INDEX "chat_sessions_parent_message_idx" ON "chat_sessions" USING btree ("parent_message_id") WHERE "chat_sessions"."parent_message_id" is not null;