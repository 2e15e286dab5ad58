CREATE TABLE "role_assets" (
	"role_id" bigint NOT NULL,
	"position" smallint NOT NULL,
	"type" text NOT NULL,
	"name" text NOT NULL,
	"ext" text NOT NULL,
	"content_type" text NOT NULL,
	"byte_size" integer NOT NULL,
	"sha256" text NOT NULL,
	"bytes" "bytea" NOT NULL,
	CONSTRAINT "role_assets_role_id_position_pk" PRIMARY KEY("role_id","position")
);
--> statement-breakpoint
ALTER TABLE "role_assets" ADD CONSTRAINT "role_assets_role_id_roles_id_fk" FOREIGN KEY ("role_id") REFERENCES "public"."roles"("id") ON DELETE cascade ON UPDATE no action;