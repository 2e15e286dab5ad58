import { sql } from 'drizzle-orm'
import { boolean, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'

/** Account holders. Later capabilities (auth, points, plans) add their own tables around it. */
export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    username: text('username').notNull(),
    /**
     * The username's look (server/lib/username-skeleton.ts, UTS #39): no two accounts look alike.
     * Written with the username; rows from before it are filled in at startup (ADR 022).
     */
    usernameSkeleton: text('username_skeleton'),
    email: text('email').notNull(),
    passwordHash: text('password_hash'),
    avatarUrl: text('avatar_url'),
    emailVerifiedAt: timestamp('email_verified_at', { withTimezone: true }),
    /** Language of the e-mails we send them (the interface language they registered in). */
    locale: text('locale').notNull().default('en'),
    /** The OpenID Connect `sub` of their linked Google account. */
    googleSubject: text('google_subject'),
    /** The user confirmed they are 18 or older and wants to see adult characters. */
    showAdultContent: boolean('show_adult_content').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    // E-mail addresses compare case-insensitively; usernames too, so "Alice" and "alice" are one.
    uniqueIndex('users_email_lower_key').on(sql`lower(${table.email})`),
    uniqueIndex('users_username_lower_key').on(sql`lower(${table.username})`),
    uniqueIndex('users_username_skeleton_key').on(table.usernameSkeleton),
    uniqueIndex('users_google_subject_key').on(table.googleSubject),
  ],
)

export type UserRow = typeof users.$inferSelect
export type NewUserRow = typeof users.$inferInsert
