CREATE TABLE "lorebooks" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"owner_id" uuid NOT NULL,
	"name" text NOT NULL,
	"entry_count" integer NOT NULL,
	"book" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "role_lorebooks" (
	"role_id" bigint NOT NULL,
	"lorebook_id" uuid NOT NULL,
	"position" smallint NOT NULL,
	CONSTRAINT "role_lorebooks_role_id_lorebook_id_pk" PRIMARY KEY("role_id","lorebook_id")
);
--> statement-breakpoint
ALTER TABLE "lorebooks" ADD CONSTRAINT "lorebooks_owner_id_users_id_fk" FOREIGN KEY ("owner_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "role_lorebooks" ADD CONSTRAINT "role_lorebooks_role_id_roles_id_fk" FOREIGN KEY ("role_id") REFERENCES "public"."roles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "role_lorebooks" ADD CONSTRAINT "role_lorebooks_lorebook_id_lorebooks_id_fk" FOREIGN KEY ("lorebook_id") REFERENCES "public"."lorebooks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "lorebooks_owner_idx" ON "lorebooks" USING btree ("owner_id","created_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "role_lorebooks_lorebook_idx" ON "role_lorebooks" USING btree ("lorebook_id");