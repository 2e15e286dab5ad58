CREATE TYPE "public"."tag_state" AS ENUM('visible', 'hidden', 'pending');--> statement-breakpoint
CREATE TABLE "featured_roles" (
	"role_id" bigint PRIMARY KEY NOT NULL,
	"position" integer NOT NULL,
	"featured_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "site_settings" (
	"key" text PRIMARY KEY NOT NULL,
	"value" jsonb NOT NULL,
	"updated_by" uuid,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "tags" ADD COLUMN "state" "tag_state" DEFAULT 'visible' NOT NULL;--> statement-breakpoint
ALTER TABLE "featured_roles" ADD CONSTRAINT "featured_roles_role_id_roles_id_fk" FOREIGN KEY ("role_id") REFERENCES "public"."roles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "featured_roles" ADD CONSTRAINT "featured_roles_featured_by_users_id_fk" FOREIGN KEY ("featured_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "site_settings" ADD CONSTRAINT "site_settings_updated_by_users_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "featured_roles_position_idx" ON "featured_roles" USING btree ("position");--> statement-breakpoint
-- The featured list is part of the cached home page data (ADR 059): every change drops it, like
-- every change to what a listing shows (migration 0008). Hiding a tag is an update of tags, which
-- bumps already.
CREATE TRIGGER featured_roles_catalogue_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON featured_roles
  FOR EACH STATEMENT EXECUTE FUNCTION catalogue_version_bump();
