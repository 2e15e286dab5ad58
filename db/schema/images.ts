import { boolean, integer, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { bytea } from './types.ts'

/**
 * Images (avatars, banners) live in the database so every app instance serves the same files.
 * They are immutable: a change is a new row. `gated` images (of adult characters) are only sent
 * to viewers who confirmed their age; everyone else gets the blurred twin.
 */
export const images = pgTable('images', {
  id: uuid('id').primaryKey().defaultRandom(),
  contentType: text('content_type').notNull(),
  bytes: bytea('bytes').notNull(),
  width: integer('width').notNull(),
  height: integer('height').notNull(),
  sha256: text('sha256').notNull(),
  gated: boolean('gated').notNull().default(false),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
})

export type ImageRow = typeof images.$inferSelect
