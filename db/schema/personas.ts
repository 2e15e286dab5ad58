import { sql } from 'drizzle-orm'
import { boolean, index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { chatSessions } from './chat.ts'
import { images } from './images.ts'
import { users } from './users.ts'

/**
 * Who the user is in a story (issue 22 item 2, ADR 049): a name that stands for `{{user}}` and a
 * short description the character is told. At most one is the user's default, which a new chat
 * takes; without one the account name is used. They go with their owner's account.
 */
export const personas = pgTable(
  'personas',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    ownerId: uuid('owner_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    /** An avatar stored by the images service (kept whole with its variants); removed with the persona. */
    avatarImageId: uuid('avatar_image_id').references(() => images.id, { onDelete: 'set null' }),
    isDefault: boolean('is_default').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    index('personas_owner_idx').on(table.ownerId, table.createdAt, table.id),
    uniqueIndex('personas_one_default_key').on(table.ownerId).where(sql`${table.isDefault}`),
  ],
)

/**
 * The persona of a chat, from the next reply on. No row: the account name (a chat started without
 * a default persona, or whose persona was deleted).
 */
export const chatPersonas = pgTable(
  'chat_personas',
  {
    sessionId: uuid('session_id')
      .primaryKey()
      .references(() => chatSessions.id, { onDelete: 'cascade' }),
    personaId: uuid('persona_id')
      .notNull()
      .references(() => personas.id, { onDelete: 'cascade' }),
  },
  (table) => [index('chat_personas_persona_idx').on(table.personaId)],
)
