import { sql } from 'drizzle-orm'
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core'
import { users } from './users.ts'

/** Plans, loaded from config/plans.json at start. Prices in integer minor units of `currency`. */
export const plans = pgTable('plans', {
  id: text('id').primaryKey(),
  priceMonthly: integer('price_monthly').notNull(),
  priceYearly: integer('price_yearly').notNull(),
  currency: text('currency').notNull(),
  diamondsPerMonth: integer('diamonds_per_month').notNull(),
  /** The conversation budget the chat uses, in thousands of tokens. */
  memoryK: integer('memory_k').notNull(),
  unlimitedFreeModels: boolean('unlimited_free_models').notNull(),
  premiumModels: boolean('premium_models').notNull(),
  bestValue: boolean('best_value').notNull().default(false),
  sortOrder: integer('sort_order').notNull().default(0),
  active: boolean('active').notNull().default(true),
})

/**
 * Every change of a balance, never updated or deleted. `reference` names the cause uniquely
 * (`signup:<user>`, `monthly:<user>:<plan>:<YYYY-MM>`, `order:<id>`, `chat:<swipe>`, and for a
 * hold `chat-hold:<hold>` and its end `chat-hold-end:<hold>`), so the same cause can never count
 * twice, however often it is retried.
 */
export const diamondLedger = pgTable(
  'diamond_ledger',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    /** Null once the user deleted their account: the entries are kept for accounting (ADR 015). */
    userId: uuid('user_id').references(() => users.id, { onDelete: 'set null' }),
    amount: integer('amount').notNull(),
    reason: text('reason').notNull(),
    reference: text('reference').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    uniqueIndex('diamond_ledger_reference_key').on(table.reference),
    index('diamond_ledger_user_idx').on(table.userId, table.createdAt.desc()),
  ],
)

/** The running sum of a user's ledger, kept in the same transaction; the database refuses < 0. */
export const diamondBalances = pgTable(
  'diamond_balances',
  {
    userId: uuid('user_id')
      .primaryKey()
      .references(() => users.id, { onDelete: 'cascade' }),
    balance: integer('balance').notNull().default(0),
  },
  (table) => [check('diamond_balances_not_negative', sql`${table.balance} >= 0`)],
)

/**
 * Diamonds reserved for a premium reply being written (ADR 024). The debit itself is the ledger's
 * `hold` entry; this row says the hold is still open. Settling or refunding it deletes the row in
 * the transaction that writes the ledger's end entry, so the table holds exactly the open holds,
 * and the ones a dead process left behind are found by age.
 */
export const diamondHolds = pgTable(
  'diamond_holds',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    amount: integer('amount').notNull(),
    /** What the diamonds are held for; the ledger references are `<purpose>-hold:<id>` and `<purpose>-hold-end:<id>`. */
    purpose: text('purpose').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    index('diamond_holds_created_idx').on(table.createdAt),
    check('diamond_holds_amount_positive', sql`${table.amount} > 0`),
  ],
)
