import {
  bigint,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core'
import type { StoredLorebook } from '#contracts/lorebooks.ts'
import { roles } from './roles.ts'
import { users } from './users.ts'

/**
 * A user's own lorebooks (SillyTavern World Info, V3 lorebook files), kept apart from characters
 * (ADR 043). `book` is the card lorebook shape with the file's other fields kept; `entryCount`
 * lists books without reading it. They go with their owner's account.
 */
export const lorebooks = pgTable(
  'lorebooks',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    ownerId: uuid('owner_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    entryCount: integer('entry_count').notNull(),
    book: jsonb('book').$type<StoredLorebook>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('lorebooks_owner_idx').on(table.ownerId, table.createdAt.desc(), table.id.desc())],
)

/** The lorebooks attached to a character, read by the chat after the character's own, by `position`. */
export const roleLorebooks = pgTable(
  'role_lorebooks',
  {
    roleId: bigint('role_id', { mode: 'number' })
      .notNull()
      .references(() => roles.id, { onDelete: 'cascade' }),
    lorebookId: uuid('lorebook_id')
      .notNull()
      .references(() => lorebooks.id, { onDelete: 'cascade' }),
    position: smallint('position').notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.roleId, table.lorebookId] }),
    index('role_lorebooks_lorebook_idx').on(table.lorebookId),
  ],
)
