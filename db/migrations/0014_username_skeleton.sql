-- Rows from before this column get their skeleton at startup (authService.backfillUsernameSkeletons, ADR 022):
-- the skeleton needs the Unicode confusables data, which lives in the application, not in SQL.
ALTER TABLE "users" ADD COLUMN "username_skeleton" text;--> statement-breakpoint
CREATE UNIQUE INDEX "users_username_skeleton_key" ON "users" USING btree ("username_skeleton");