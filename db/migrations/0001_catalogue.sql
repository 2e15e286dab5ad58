CREATE TYPE "public"."role_visibility" AS ENUM('public', 'private');--> statement-breakpoint
CREATE TABLE "images" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"content_type" text NOT NULL,
	"bytes" "bytea" NOT NULL,
	"width" integer NOT NULL,
	"height" integer NOT NULL,
	"sha256" text NOT NULL,
	"gated" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "role_ratings" (
	"role_id" bigint NOT NULL,
	"user_id" uuid NOT NULL,
	"score" smallint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "role_ratings_role_id_user_id_pk" PRIMARY KEY("role_id","user_id"),
	CONSTRAINT "role_ratings_score_range" CHECK ("role_ratings"."score" BETWEEN 1 AND 5)
);
--> statement-breakpoint
CREATE TABLE "role_tags" (
	"role_id" bigint NOT NULL,
	"tag_id" integer NOT NULL,
	CONSTRAINT "role_tags_role_id_tag_id_pk" PRIMARY KEY("role_id","tag_id")
);
--> statement-breakpoint
CREATE TABLE "roles" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "roles_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"public_id" text NOT NULL,
	"name" text NOT NULL,
	"avatar_image_id" uuid,
	"avatar_blurred_image_id" uuid,
	"banner_image_id" uuid,
	"creator_id" uuid,
	"visibility" "role_visibility" DEFAULT 'public' NOT NULL,
	"is_adult" boolean DEFAULT false NOT NULL,
	"introduction" text DEFAULT '' NOT NULL,
	"scenario" text DEFAULT '' NOT NULL,
	"personality" text DEFAULT '' NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"first_message" text DEFAULT '' NOT NULL,
	"alternate_greetings" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"example_dialogue" text DEFAULT '' NOT NULL,
	"chat_count" integer DEFAULT 0 NOT NULL,
	"popularity" integer DEFAULT 0 NOT NULL,
	"rating_count" integer DEFAULT 0 NOT NULL,
	"rating_sum" integer DEFAULT 0 NOT NULL,
	"rating_average" real DEFAULT 0 NOT NULL,
	"search_text" text DEFAULT '' NOT NULL,
	"search" "tsvector" GENERATED ALWAYS AS (to_tsvector('simple', "roles"."search_text")) STORED NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "tags" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "tags_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"slug" text NOT NULL,
	"names" jsonb NOT NULL
);
--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "show_adult_content" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "role_ratings" ADD CONSTRAINT "role_ratings_role_id_roles_id_fk" FOREIGN KEY ("role_id") REFERENCES "public"."roles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "role_ratings" ADD CONSTRAINT "role_ratings_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "role_tags" ADD CONSTRAINT "role_tags_role_id_roles_id_fk" FOREIGN KEY ("role_id") REFERENCES "public"."roles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "role_tags" ADD CONSTRAINT "role_tags_tag_id_tags_id_fk" FOREIGN KEY ("tag_id") REFERENCES "public"."tags"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "roles" ADD CONSTRAINT "roles_avatar_image_id_images_id_fk" FOREIGN KEY ("avatar_image_id") REFERENCES "public"."images"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "roles" ADD CONSTRAINT "roles_avatar_blurred_image_id_images_id_fk" FOREIGN KEY ("avatar_blurred_image_id") REFERENCES "public"."images"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "roles" ADD CONSTRAINT "roles_banner_image_id_images_id_fk" FOREIGN KEY ("banner_image_id") REFERENCES "public"."images"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "roles" ADD CONSTRAINT "roles_creator_id_users_id_fk" FOREIGN KEY ("creator_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "role_tags_tag_idx" ON "role_tags" USING btree ("tag_id","role_id");--> statement-breakpoint
CREATE UNIQUE INDEX "roles_public_id_key" ON "roles" USING btree ("public_id");--> statement-breakpoint
CREATE INDEX "roles_public_popularity_idx" ON "roles" USING btree ("popularity" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE "roles"."visibility" = 'public';--> statement-breakpoint
CREATE INDEX "roles_public_newest_idx" ON "roles" USING btree ("created_at" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE "roles"."visibility" = 'public';--> statement-breakpoint
CREATE INDEX "roles_public_rating_idx" ON "roles" USING btree ("rating_average" DESC NULLS LAST,"rating_count" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE "roles"."visibility" = 'public';--> statement-breakpoint
CREATE INDEX "roles_creator_idx" ON "roles" USING btree ("creator_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "roles_search_idx" ON "roles" USING gin ("search");--> statement-breakpoint
CREATE UNIQUE INDEX "tags_slug_key" ON "tags" USING btree ("slug");