CREATE TABLE "diamond_balances" (
	"user_id" uuid PRIMARY KEY NOT NULL,
	"balance" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "diamond_balances_not_negative" CHECK ("diamond_balances"."balance" >= 0)
);
--> statement-breakpoint
CREATE TABLE "diamond_ledger" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "diamond_ledger_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"user_id" uuid NOT NULL,
	"amount" integer NOT NULL,
	"reason" text NOT NULL,
	"reference" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "plans" (
	"id" text PRIMARY KEY NOT NULL,
	"price_monthly" integer NOT NULL,
	"price_yearly" integer NOT NULL,
	"currency" text NOT NULL,
	"diamonds_per_month" integer NOT NULL,
	"memory_k" integer NOT NULL,
	"unlimited_free_models" boolean NOT NULL,
	"premium_models" boolean NOT NULL,
	"best_value" boolean DEFAULT false NOT NULL,
	"sort_order" integer DEFAULT 0 NOT NULL,
	"active" boolean DEFAULT true NOT NULL
);
--> statement-breakpoint
ALTER TABLE "diamond_balances" ADD CONSTRAINT "diamond_balances_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "diamond_ledger" ADD CONSTRAINT "diamond_ledger_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "diamond_ledger_reference_key" ON "diamond_ledger" USING btree ("reference");--> statement-breakpoint
CREATE INDEX "diamond_ledger_user_idx" ON "diamond_ledger" USING btree ("user_id","created_at" DESC NULLS LAST);