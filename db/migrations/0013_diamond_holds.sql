CREATE TABLE "diamond_holds" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" uuid NOT NULL,
	"amount" integer NOT NULL,
	"purpose" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "diamond_holds_amount_positive" CHECK ("diamond_holds"."amount" > 0)
);
--> statement-breakpoint
ALTER TABLE "diamond_holds" ADD CONSTRAINT "diamond_holds_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "diamond_holds_created_idx" ON "diamond_holds" USING btree ("created_at");