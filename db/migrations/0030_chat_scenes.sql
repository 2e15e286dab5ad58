CREATE TABLE "chat_members" (
	"session_id" uuid NOT NULL,
	"role_id" bigint NOT NULL,
	"position" integer NOT NULL,
	"joined_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "chat_members_session_id_role_id_pk" PRIMARY KEY("session_id","role_id")
);
--> statement-breakpoint
ALTER TABLE "chat_messages" ADD COLUMN "speaker_role_id" bigint;--> statement-breakpoint
ALTER TABLE "chat_sessions" ADD COLUMN "scene_mode" text DEFAULT 'natural' NOT NULL;--> statement-breakpoint
ALTER TABLE "chat_members" ADD CONSTRAINT "chat_members_session_id_chat_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."chat_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "chat_members" ADD CONSTRAINT "chat_members_role_id_roles_id_fk" FOREIGN KEY ("role_id") REFERENCES "public"."roles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chat_members_role_idx" ON "chat_members" USING btree ("role_id");--> statement-breakpoint
ALTER TABLE "chat_messages" ADD CONSTRAINT "chat_messages_speaker_role_id_roles_id_fk" FOREIGN KEY ("speaker_role_id") REFERENCES "public"."roles"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "chat_messages_speaker_idx" ON "chat_messages" USING btree ("speaker_role_id") WHERE "chat_messages"."speaker_role_id" is not null;--> statement-breakpoint
ALTER TABLE "chat_sessions" ADD CONSTRAINT "chat_sessions_scene_mode" CHECK ("chat_sessions"."scene_mode" in ('manual', 'turns', 'natural'));