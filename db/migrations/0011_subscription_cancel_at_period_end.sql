ALTER TABLE "subscriptions" ADD COLUMN "cancel_at_period_end" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- Before this column, a subscription set to cancel at the period end was stored as status 'canceled'
-- with its period still running (an ended one gets an end in the past). Keep it active, set to end.
UPDATE "subscriptions" SET "cancel_at_period_end" = true, "status" = 'active' WHERE "status" = 'canceled' AND "current_period_end" > now();
