CREATE TABLE "chat_message_search" (
	"message_id" bigint PRIMARY KEY NOT NULL,
	"session_id" uuid NOT NULL,
	"words" text,
	"search" "tsvector" GENERATED ALWAYS AS (to_tsvector('simple', coalesce("chat_message_search"."words", ''))) STORED NOT NULL
);
--> statement-breakpoint
ALTER TABLE "chat_sessions" ADD COLUMN "title" text;--> statement-breakpoint
ALTER TABLE "chat_sessions" ADD COLUMN "pinned_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "chat_sessions" ADD COLUMN "deleted_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "chat_message_search" ADD CONSTRAINT "chat_message_search_message_id_chat_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."chat_messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_message_search" ADD CONSTRAINT "chat_message_search_session_id_chat_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."chat_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chat_message_search_idx" ON "chat_message_search" USING gin ("search");--> statement-breakpoint
CREATE INDEX "chat_message_search_session_idx" ON "chat_message_search" USING btree ("session_id");--> statement-breakpoint
CREATE INDEX "chat_message_search_waiting_idx" ON "chat_message_search" USING btree ("session_id") WHERE "chat_message_search"."words" is null;--> statement-breakpoint
-- Chat search (ADR 048): every message gets a row waiting to be split into words, and waits again
-- when its text changes; the chat's write paths need not know. Messages already there wait too.
CREATE FUNCTION chat_message_search_enqueue() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO chat_message_search (message_id, session_id) VALUES (NEW.id, NEW.session_id);
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE FUNCTION chat_message_search_stale() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE chat_message_search SET words = NULL WHERE message_id = NEW.id;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER chat_messages_search_enqueue AFTER INSERT ON chat_messages
  FOR EACH ROW EXECUTE FUNCTION chat_message_search_enqueue();--> statement-breakpoint
CREATE TRIGGER chat_messages_search_stale AFTER UPDATE OF content ON chat_messages
  FOR EACH ROW WHEN (OLD.content IS DISTINCT FROM NEW.content) EXECUTE FUNCTION chat_message_search_stale();--> statement-breakpoint
INSERT INTO chat_message_search (message_id, session_id) SELECT id, session_id FROM chat_messages;
