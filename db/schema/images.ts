import { boolean, integer, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { bytea } from './types.ts'

/**
 * Images (avatars, banners) live in the database so every app instance serves the same files.
 * They are immutable: a change is a new row. `gated` images (of adult characters) are only sent
 * to viewers who confirmed their age; everyone else gets the blurred twin.
 *
 * An avatar row holds the picture as it was uploaded (any aspect ratio, bounded, lossless WebP:
 * ADR 042); the sizes pages show are rows of `image_variants`. Avatars stored before that are
 * 512x512 WebP (or drawn SVG) rows without variants.
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

/**
 * The sizes of an image that pages show (`IMAGE_VARIANTS` in contracts/images.ts: a 2:3 card
 * frame, a square thumbnail), made when the image is stored. They share the image's gating and
 * go with it when it is deleted.
 */
export const imageVariants = pgTable(
  'image_variants',
  {
    imageId: uuid('image_id')
      .notNull()
      .references(() => images.id, { onDelete: 'cascade' }),
    variant: text('variant').notNull(),
    contentType: text('content_type').notNull(),
    bytes: bytea('bytes').notNull(),
    width: integer('width').notNull(),
    height: integer('height').notNull(),
    sha256: text('sha256').notNull(),
  },
  (table) => [primaryKey({ columns: [table.imageId, table.variant] })],
)

export type ImageRow = typeof images.$inferSelect
