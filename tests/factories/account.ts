import { randomBytes } from 'node:crypto'
import { eq } from 'drizzle-orm'
import type { Db } from '#db/client.ts'
import { chatSessions } from '#db/schema/chat.ts'
import { diamondBalances, diamondLedger } from '#db/schema/diamonds.ts'
import { lorebooks, roleLorebooks } from '#db/schema/lorebooks.ts'
import { orders, subscriptions } from '#db/schema/payments.ts'
import { roleReports } from '#db/schema/reports.ts'
import { roleAssets } from '#db/schema/role-assets.ts'
import { roleTranslations } from '#db/schema/role-texts.ts'
import { roles } from '#db/schema/roles.ts'
import { users } from '#db/schema/users.ts'
import { createRole, createTags, ratingsFor } from './catalogue.ts'
import { addMessages } from './chat.ts'

/**
 * Gives a user a bit of everything an account holds: a tagged character, a chat with a reply,
 * diamonds, a paid order and a plan, a report and a rating of `otherRoleId`, a lorebook attached to the
 * character, a translation of it by its creator and a file from its card. Every text contains
 * `marker`, so an export can be searched for another user's data.
 */
export async function fillAccount(db: Db, userId: string, marker: string, otherRoleId?: string) {
  const slug = `tag-${randomBytes(3).toString('hex')}`
  await createTags(db, [{ slug, names: { en: `Tag ${marker}` } }])
  const roleId = await createRole(db, {
    name: `Character ${marker}`,
    creatorId: userId,
    tagSlugs: [slug],
    scenario: `Scenario ${marker}`,
  })
  const sessionId = await chatWith(db, userId, roleId, marker)
  const [role] = await db.select({ id: roles.id }).from(roles).where(eq(roles.publicId, roleId))
  if (!role) throw new Error('role was not stored')
  const book = { name: `Book ${marker}`, extensions: {}, entries: [] }
  const [lorebook] = await db
    .insert(lorebooks)
    .values({ ownerId: userId, name: `Book ${marker}`, entryCount: 0, book })
    .returning({ id: lorebooks.id })
  if (!lorebook) throw new Error('lorebook was not stored')
  await db.insert(roleLorebooks).values({ roleId: role.id, lorebookId: lorebook.id, position: 0 })
  await db.insert(roleTranslations).values({
    roleId: role.id,
    locale: 'ja',
    origin: 'author',
    name: `Name ja ${marker}`,
    scenario: `Scenario ja ${marker}`,
    sourceHash: 'x',
  })
  const fileBytes = Buffer.from(`File ${marker}`)
  await db.insert(roleAssets).values({
    roleId: role.id,
    position: 0,
    type: 'emotion',
    name: `joy-${marker}`,
    ext: 'png',
    contentType: 'image/png',
    byteSize: fileBytes.length,
    sha256: 'x',
    bytes: fileBytes,
  })
  await db.insert(diamondLedger).values({ userId, amount: 50, reason: 'signup', reference: `signup:${userId}` })
  await db.insert(diamondBalances).values({ userId, balance: 50 })
  const orderId = `ord_${randomBytes(6).toString('hex')}`
  await db.insert(orders).values({
    id: orderId,
    userId,
    planId: 'plus',
    billingCycle: 'monthly',
    paymentType: 'card',
    provider: 'sandbox',
    providerRef: `secret-ref-${marker}`,
    status: 'paid',
    amount: 999,
    currency: 'usd',
    paidAt: new Date(),
  })
  await db.insert(subscriptions).values({
    userId,
    planId: 'plus',
    billingCycle: 'monthly',
    provider: 'sandbox',
    status: 'active',
    currentPeriodEnd: new Date(Date.now() + 30 * 86_400_000),
  })
  if (otherRoleId) {
    const [other] = await db.select({ id: roles.id }).from(roles).where(eq(roles.publicId, otherRoleId))
    if (other)
      await db
        .insert(roleReports)
        .values({ roleId: other.id, reporterId: userId, reason: 'spam', text: `Report ${marker}` })
    await ratingsFor(db, otherRoleId, [{ userId, score: 2 }])
  }
  return { roleId, sessionId, orderId, lorebookId: lorebook.id }
}

/** A chat of the user with a character: a greeting, a question and an answer. */
export async function chatWith(db: Db, userId: string, rolePublicId: string, marker: string) {
  const [role] = await db.select({ id: roles.id }).from(roles).where(eq(roles.publicId, rolePublicId))
  const [session] = await db
    .insert(chatSessions)
    .values({ userId, roleId: role?.id ?? null, memoryNote: `Memory ${marker}` })
    .returning({ id: chatSessions.id })
  if (!session) throw new Error('session was not stored')
  await addMessages(db, session.id, [
    { author: 'assistant', content: `Greeting ${marker}` },
    { author: 'user', content: `Question ${marker}` },
    { author: 'assistant', content: `Answer ${marker}` },
  ])
  return session.id
}

/** Makes the user's plan one that Stripe renews. */
export async function makePlanRenew(db: Db, userId: string) {
  await db
    .update(subscriptions)
    .set({ provider: 'stripe', providerSubscriptionId: `sub_${randomBytes(6).toString('hex')}` })
    .where(eq(subscriptions.userId, userId))
}

export async function userExists(db: Db, userId: string) {
  const rows = await db.select({ id: users.id }).from(users).where(eq(users.id, userId))
  return rows.length > 0
}

export async function ratingOf(db: Db, rolePublicId: string) {
  const [row] = await db
    .select({ ratingCount: roles.ratingCount, ratingSum: roles.ratingSum })
    .from(roles)
    .where(eq(roles.publicId, rolePublicId))
  return row
}

/** Who a character's creator is now, or undefined when it is gone. */
export async function creatorOf(db: Db, rolePublicId: string) {
  const [row] = await db.select({ creatorId: roles.creatorId }).from(roles).where(eq(roles.publicId, rolePublicId))
  return row ? row.creatorId : undefined
}

/** An order's buyer now (null once anonymised), or undefined when the order is gone. */
export async function buyerOf(db: Db, orderId: string) {
  const [row] = await db.select({ userId: orders.userId }).from(orders).where(eq(orders.id, orderId))
  return row ? row.userId : undefined
}

/** The ledger entries recorded under a reference, with their user (null once anonymised). */
export async function ledgerEntries(db: Db, reference: string) {
  return db
    .select({ userId: diamondLedger.userId, amount: diamondLedger.amount })
    .from(diamondLedger)
    .where(eq(diamondLedger.reference, reference))
}
