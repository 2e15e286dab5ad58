ALTER TABLE "chat_messages" DROP CONSTRAINT "chat_messages_status";--> statement-breakpoint
ALTER TABLE "chat_swipes" DROP CONSTRAINT "chat_swipes_status";--> statement-breakpoint
ALTER TABLE "chat_messages" ADD CONSTRAINT "chat_messages_status" CHECK ("chat_messages"."status" in ('complete', 'interrupted', 'cut'));--> statement-breakpoint
ALTER TABLE "chat_swipes" ADD CONSTRAINT "chat_swipes_status" CHECK ("chat_swipes"."status" in ('complete', 'interrupted', 'cut'));