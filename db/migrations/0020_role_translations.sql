CREATE TABLE "role_translations" (
	"role_id" bigint NOT NULL,
	"locale" text NOT NULL,
	"origin" text NOT NULL,
	"name" text,
	"introduction" text DEFAULT '' NOT NULL,
	"scenario" text DEFAULT '' NOT NULL,
	"first_message" text DEFAULT '' NOT NULL,
	"alternate_greetings" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"source_hash" text NOT NULL,
	"stale" boolean DEFAULT false NOT NULL,
	"search_text" text DEFAULT '' NOT NULL,
	"search" "tsvector" GENERATED ALWAYS AS (to_tsvector('simple', "role_translations"."search_text")) STORED NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "role_translations_role_id_locale_pk" PRIMARY KEY("role_id","locale"),
	CONSTRAINT "role_translations_origin" CHECK ("role_translations"."origin" in ('author', 'machine'))
);
--> statement-breakpoint
ALTER TABLE "roles" ADD COLUMN "source_language" text DEFAULT 'en' NOT NULL;--> statement-breakpoint
ALTER TABLE "role_translations" ADD CONSTRAINT "role_translations_role_id_roles_id_fk" FOREIGN KEY ("role_id") REFERENCES "public"."roles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "role_translations_search_idx" ON "role_translations" USING gin ("search");--> statement-breakpoint
CREATE INDEX "role_translations_locale_idx" ON "role_translations" USING btree ("locale","role_id");--> statement-breakpoint
-- Listings show a role's texts in the visitor's locale (ADR 039): any change to a translation, and
-- a role's source language, drop the cached listings like a change to the role does (0008).
CREATE TRIGGER role_translations_catalogue_version AFTER INSERT OR UPDATE OR DELETE ON role_translations
  FOR EACH STATEMENT EXECUTE FUNCTION catalogue_version_bump();--> statement-breakpoint
CREATE TRIGGER role_translations_catalogue_version_truncate AFTER TRUNCATE ON role_translations
  FOR EACH STATEMENT EXECUTE FUNCTION catalogue_version_bump();--> statement-breakpoint
CREATE TRIGGER roles_source_language_catalogue_version AFTER UPDATE OF source_language ON roles
  FOR EACH STATEMENT EXECUTE FUNCTION catalogue_version_bump();
