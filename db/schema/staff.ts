import { bigint, index, jsonb, pgEnum, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core'
import { users } from './users.ts'

export const staffRole = pgEnum('staff_role', ['admin', 'moderator'])

/**
 * Who runs the platform (ADR 054): one row per staff member. The role is read from here on every
 * console call, so a grant or revoke counts from the next request.
 */
export const staffMembers = pgTable('staff_members', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  role: staffRole('role').notNull(),
  /** Who granted it: `cli`, or the granting admin's username. */
  grantedBy: text('granted_by').notNull(),
  grantedAt: timestamp('granted_at', { withTimezone: true }).notNull().defaultNow(),
})

/**
 * A staff member's TOTP second factor (RFC 6238). The secret is encrypted at rest (AES-256-GCM,
 * STAFF_TOTP_KEY); `enabledAt` is null until the first code confirmed it. `lastStep` is the time
 * step of the last code accepted: a code of that step or an earlier one is refused (no replay).
 */
export const staffSecondFactors = pgTable('staff_second_factors', {
  userId: uuid('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  secretEncrypted: text('secret_encrypted').notNull(),
  enabledAt: timestamp('enabled_at', { withTimezone: true }),
  lastStep: bigint('last_step', { mode: 'number' }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
})

/** Ten single-use recovery codes per enrollment; only their SHA-256 is stored. */
export const staffRecoveryCodes = pgTable(
  'staff_recovery_codes',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    codeHash: text('code_hash').notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
  },
  (table) => [uniqueIndex('staff_recovery_codes_hash_key').on(table.userId, table.codeHash)],
)

/**
 * Every console action (ADR 054). Append-only: a trigger refuses UPDATE, DELETE and TRUNCATE. The
 * actor is no foreign key (deleting an account must not rewrite its records); `actorLabel` keeps
 * who it was.
 */
export const adminAudit = pgTable(
  'admin_audit',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    at: timestamp('at', { withTimezone: true }).notNull().defaultNow(),
    /** Null for the command line. */
    actorId: uuid('actor_id'),
    actorLabel: text('actor_label').notNull(),
    action: text('action').notNull(),
    targetType: text('target_type').notNull(),
    targetId: text('target_id').notNull(),
    note: text('note').notNull().default(''),
    details: jsonb('details').$type<Record<string, unknown>>(),
  },
  (table) => [
    index('admin_audit_at_idx').on(table.at),
    index('admin_audit_actor_idx').on(table.actorId, table.at),
    index('admin_audit_target_idx').on(table.targetType, table.targetId, table.at),
  ],
)

export type AdminAuditRow = typeof adminAudit.$inferSelect
