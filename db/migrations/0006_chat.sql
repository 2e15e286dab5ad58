CREATE TABLE "chat_messages" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "chat_messages_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"session_id" uuid NOT NULL,
	"author" text NOT NULL,
	"content" text NOT NULL,
	"tokens" integer NOT NULL,
	"status" text DEFAULT 'complete' NOT NULL,
	"model_id" text,
	"diamonds_spent" integer DEFAULT 0 NOT NULL,
	"swipe_id" bigint,
	"swipe_index" integer DEFAULT 0 NOT NULL,
	"swipe_count" integer DEFAULT 0 NOT NULL,
	"request_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"edited_at" timestamp with time zone,
	CONSTRAINT "chat_messages_author" CHECK ("chat_messages"."author" in ('user', 'assistant')),
	CONSTRAINT "chat_messages_status" CHECK ("chat_messages"."status" in ('complete', 'interrupted'))
);
--> statement-breakpoint
CREATE TABLE "chat_sessions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"role_id" bigint,
	"model_id" text,
	"memory_note" text DEFAULT '' NOT NULL,
	"memory_through_id" bigint,
	"memory_version" integer DEFAULT 0 NOT NULL,
	"memory_updated_at" timestamp with time zone,
	"last_message_preview" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "chat_swipes" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "chat_swipes_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"message_id" bigint NOT NULL,
	"content" text NOT NULL,
	"tokens" integer NOT NULL,
	"status" text NOT NULL,
	"model_id" text,
	"diamonds_spent" integer DEFAULT 0 NOT NULL,
	"request_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chat_swipes_status" CHECK ("chat_swipes"."status" in ('complete', 'interrupted'))
);
--> statement-breakpoint
ALTER TABLE "chat_messages" ADD CONSTRAINT "chat_messages_session_id_chat_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."chat_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_sessions" ADD CONSTRAINT "chat_sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_sessions" ADD CONSTRAINT "chat_sessions_role_id_roles_id_fk" FOREIGN KEY ("role_id") REFERENCES "public"."roles"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_swipes" ADD CONSTRAINT "chat_swipes_message_id_chat_messages_id_fk" FOREIGN KEY ("message_id") REFERENCES "public"."chat_messages"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chat_messages_session_idx" ON "chat_messages" USING btree ("session_id","id" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "chat_messages_request_key" ON "chat_messages" USING btree ("session_id","request_id") WHERE "chat_messages"."request_id" is not null;--> statement-breakpoint
CREATE INDEX "chat_sessions_user_recent_idx" ON "chat_sessions" USING btree ("user_id","updated_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "chat_sessions_role_idx" ON "chat_sessions" USING btree ("role_id");--> statement-breakpoint
CREATE INDEX "chat_swipes_message_idx" ON "chat_swipes" USING btree ("message_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "chat_swipes_request_key" ON "chat_swipes" USING btree ("message_id","request_id") WHERE "chat_swipes"."request_id" is not null;