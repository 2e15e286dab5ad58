import { bigint, integer, pgTable, primaryKey, smallint, text } from 'drizzle-orm/pg-core'
import { roles } from './roles.ts'
import { bytea } from './types.ts'

/**
 * The files a character's card carried besides its picture (other icons, backgrounds, emotions,
 * user icons, sounds, other files: ADR 047), kept as they came for the card exports. `type`,
 * `name` and `ext` are the card's asset entry's; `contentType` is sniffed for pictures, else
 * from the extension. Never served on their own: only the exports carry them. They go with the
 * character.
 */
export const roleAssets = pgTable(
  'role_assets',
  {
    roleId: bigint('role_id', { mode: 'number' })
      .notNull()
      .references(() => roles.id, { onDelete: 'cascade' }),
    /** The asset's place among the character's files, from 0 (the card's order). */
    position: smallint('position').notNull(),
    type: text('type').notNull(),
    name: text('name').notNull(),
    ext: text('ext').notNull(),
    contentType: text('content_type').notNull(),
    byteSize: integer('byte_size').notNull(),
    sha256: text('sha256').notNull(),
    bytes: bytea('bytes').notNull(),
  },
  // The key's first column serves the reads and the cascade by role.
  (table) => [primaryKey({ columns: [table.roleId, table.position] })],
)
