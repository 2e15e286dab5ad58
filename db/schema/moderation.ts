import { bigint, boolean, index, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { roles } from './roles.ts'
import { users } from './users.ts'

/**
 * Suspended accounts (ADR 055): a row while the account is suspended, deleted on restore. Logins
 * are refused and every token issue asks here (server/modules/auth/sessions.ts); the access tokens
 * handed out before end through the tokens-ended mark.
 */
export const userSuspensions = pgTable('user_suspensions', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  note: text('note').notNull(),
  actorId: uuid('actor_id').references(() => users.id, { onDelete: 'set null' }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
})

export type RoleHideCause = 'moderation' | 'suspension'

/**
 * Why a character is hidden by the operator (ADR 055): by a moderator (`moderation`), or because
 * its creator is suspended (`suspension`). While any row exists the character is private, and a
 * database trigger (migration 0032) keeps it so whoever writes `roles`; `was_public` says what it
 * returns to once the last row goes.
 */
export const roleHides = pgTable(
  'role_hides',
  {
    roleId: bigint('role_id', { mode: 'number' })
      .notNull()
      .references(() => roles.id, { onDelete: 'cascade' }),
    cause: text('cause').$type<RoleHideCause>().notNull(),
    note: text('note').notNull(),
    wasPublic: boolean('was_public').notNull(),
    actorId: uuid('actor_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.roleId, table.cause] })],
)

/** Warnings an operator gave a user (ADR 055); mailed to them in their language and kept. */
export const userWarnings = pgTable(
  'user_warnings',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The character the warning is about, when it came from the reports queue. */
    roleId: bigint('role_id', { mode: 'number' }).references(() => roles.id, { onDelete: 'set null' }),
    note: text('note').notNull(),
    actorId: uuid('actor_id').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('user_warnings_user_idx').on(table.userId, table.createdAt.desc())],
)
