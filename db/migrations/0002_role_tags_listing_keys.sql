ALTER TABLE "role_tags" ADD COLUMN "is_public" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "role_tags" ADD COLUMN "popularity" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "role_tags" ADD COLUMN "created_at" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
ALTER TABLE "role_tags" ADD COLUMN "rating_average" real DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "role_tags" ADD COLUMN "rating_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "role_tags_popularity_idx" ON "role_tags" USING btree ("tag_id","popularity" DESC NULLS LAST,"role_id" DESC NULLS LAST) WHERE "role_tags"."is_public";--> statement-breakpoint
CREATE INDEX "role_tags_newest_idx" ON "role_tags" USING btree ("tag_id","created_at" DESC NULLS LAST,"role_id" DESC NULLS LAST) WHERE "role_tags"."is_public";--> statement-breakpoint
CREATE INDEX "role_tags_rating_idx" ON "role_tags" USING btree ("tag_id","rating_average" DESC NULLS LAST,"rating_count" DESC NULLS LAST,"role_id" DESC NULLS LAST) WHERE "role_tags"."is_public";--> statement-breakpoint
-- role_tags carries copies of its role's listing keys; these triggers are the only writers.
CREATE FUNCTION role_tags_copy_listing_keys() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT r.visibility = 'public', r.popularity, r.created_at, r.rating_average, r.rating_count
    INTO NEW.is_public, NEW.popularity, NEW.created_at, NEW.rating_average, NEW.rating_count
    FROM roles r WHERE r.id = NEW.role_id;
  RETURN NEW;
END
$$;--> statement-breakpoint
CREATE TRIGGER role_tags_listing_keys BEFORE INSERT OR UPDATE OF role_id ON role_tags
  FOR EACH ROW EXECUTE FUNCTION role_tags_copy_listing_keys();--> statement-breakpoint
CREATE FUNCTION roles_push_listing_keys() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE role_tags
     SET is_public = NEW.visibility = 'public',
         popularity = NEW.popularity,
         created_at = NEW.created_at,
         rating_average = NEW.rating_average,
         rating_count = NEW.rating_count
   WHERE role_id = NEW.id;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER roles_listing_keys AFTER UPDATE OF visibility, popularity, created_at, rating_average, rating_count ON roles
  FOR EACH ROW
  WHEN (OLD.visibility IS DISTINCT FROM NEW.visibility
     OR OLD.popularity IS DISTINCT FROM NEW.popularity
     OR OLD.created_at IS DISTINCT FROM NEW.created_at
     OR OLD.rating_average IS DISTINCT FROM NEW.rating_average
     OR OLD.rating_count IS DISTINCT FROM NEW.rating_count)
  EXECUTE FUNCTION roles_push_listing_keys();--> statement-breakpoint
UPDATE role_tags rt
   SET is_public = r.visibility = 'public', popularity = r.popularity, created_at = r.created_at,
       rating_average = r.rating_average, rating_count = r.rating_count
  FROM roles r
 WHERE r.id = rt.role_id;
