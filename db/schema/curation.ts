import { bigint, index, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core'
import { roles } from './roles.ts'
import { users } from './users.ts'

/**
 * The characters an operator features on the home page (ADR 059), in their order (`position`,
 * smallest first). A character that is deleted leaves the list; one that is hidden or made private
 * stays in it but is not shown (the home page reads only public ones). A trigger (migration 0035)
 * bumps the catalogue version with every change, so the cached home page data follows.
 */
export const featuredRoles = pgTable(
  'featured_roles',
  {
    roleId: bigint('role_id', { mode: 'number' })
      .primaryKey()
      .references(() => roles.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    featuredBy: uuid('featured_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index('featured_roles_position_idx').on(table.position)],
)

/**
 * Operator settings kept in the database (ADR 059), one row per key, switched from the console and
 * audited. Absent key: the setting's default.
 */
export const siteSettings = pgTable('site_settings', {
  key: text('key').primaryKey(),
  value: jsonb('value').$type<unknown>().notNull(),
  updatedBy: uuid('updated_by').references(() => users.id, { onDelete: 'set null' }),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
})
