ALTER TABLE "refresh_tokens" ADD COLUMN "family_started_at" timestamp with time zone;--> statement-breakpoint
-- A family's login happened when its first token was made; rotation keeps every token, so the
-- oldest one of each family still holds that moment (ADR 019).
UPDATE "refresh_tokens" AS t SET "family_started_at" = f."started_at"
  FROM (SELECT "family_id", min("created_at") AS "started_at" FROM "refresh_tokens" GROUP BY "family_id") AS f
 WHERE t."family_id" = f."family_id";--> statement-breakpoint
ALTER TABLE "refresh_tokens" ALTER COLUMN "family_started_at" SET NOT NULL;
