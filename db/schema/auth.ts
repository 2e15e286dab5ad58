import { boolean, index, pgEnum, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { users } from './users.ts'

/**
 * Refresh tokens are opaque random strings; only their SHA-256 is stored. Each login starts a
 * family; every refresh marks the presented token used and issues the next one in the family.
 * Presenting a used or revoked token means it was copied: the whole family is revoked.
 * Rotation does not extend the family beyond its absolute lifetime (ADR 019).
 */
export const refreshTokens = pgTable(
  'refresh_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    familyId: uuid('family_id').notNull(),
    tokenHash: text('token_hash').notNull(),
    /** "Remember me": decides how long the family lives. */
    remember: boolean('remember').notNull().default(false),
    /**
     * When the login itself happened (password or Google), copied to every token of the family:
     * the family ends a fixed time after it however active it is (ADR 019).
     */
    familyStartedAt: timestamp('family_started_at', { withTimezone: true }).notNull(),
    /** The earlier of the idle deadline (the last refresh plus the idle span) and the family's end. */
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('refresh_tokens_hash_key').on(table.tokenHash),
    index('refresh_tokens_family_idx').on(table.familyId),
    index('refresh_tokens_user_idx').on(table.userId),
  ],
)

export const emailTokenPurpose = pgEnum('email_token_purpose', ['verify-email', 'reset-password'])

/** Single-use, expiring links sent by e-mail; only their SHA-256 is stored. */
export const emailTokens = pgTable(
  'email_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    purpose: emailTokenPurpose('purpose').notNull(),
    tokenHash: text('token_hash').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('email_tokens_hash_key').on(table.tokenHash),
    index('email_tokens_user_idx').on(table.userId),
  ],
)
