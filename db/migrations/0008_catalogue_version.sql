CREATE TABLE "catalogue_version" (
	"id" smallint PRIMARY KEY DEFAULT 1 NOT NULL,
	"version" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "catalogue_version_single_row" CHECK ("catalogue_version"."id" = 1)
);
--> statement-breakpoint
-- The version starts at the creation time in milliseconds and every bump takes it to at least the
-- time of the change, so a recreated or restored database never reuses numbers that caches shared
-- with an earlier one (Redis) may still hold.
INSERT INTO "catalogue_version" ("id", "version") VALUES (1, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)
  ON CONFLICT DO NOTHING;--> statement-breakpoint
CREATE FUNCTION catalogue_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE catalogue_version
     SET version = greatest(version + 1, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)
   WHERE id = 1;
  RETURN NULL;
END
$$;--> statement-breakpoint
-- Every column the public listing shows, filters or sorts on; not chat_count (it changes with each
-- new chat and orders nothing), updated_at, nor the texts only the character page shows.
CREATE TRIGGER roles_catalogue_version_update
  AFTER UPDATE OF public_id, name, avatar_image_id, avatar_blurred_image_id, visibility, is_adult, introduction,
    popularity, created_at, rating_average, rating_count, search_text ON roles
  FOR EACH STATEMENT EXECUTE FUNCTION catalogue_version_bump();--> statement-breakpoint
CREATE TRIGGER roles_catalogue_version_insert_delete AFTER INSERT OR DELETE ON roles
  FOR EACH STATEMENT EXECUTE FUNCTION catalogue_version_bump();--> statement-breakpoint
CREATE TRIGGER roles_catalogue_version_truncate AFTER TRUNCATE ON roles
  FOR EACH STATEMENT EXECUTE FUNCTION catalogue_version_bump();--> statement-breakpoint
-- role_tags's copies of the listing keys follow roles (migration 0002), whose trigger bumps already.
CREATE TRIGGER role_tags_catalogue_version AFTER INSERT OR DELETE OR UPDATE OF role_id, tag_id ON role_tags
  FOR EACH STATEMENT EXECUTE FUNCTION catalogue_version_bump();--> statement-breakpoint
CREATE TRIGGER role_tags_catalogue_version_truncate AFTER TRUNCATE ON role_tags
  FOR EACH STATEMENT EXECUTE FUNCTION catalogue_version_bump();--> statement-breakpoint
CREATE TRIGGER tags_catalogue_version AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON tags
  FOR EACH STATEMENT EXECUTE FUNCTION catalogue_version_bump();
