import { and, asc, eq, inArray, isNull, ne, sql } from 'drizzle-orm'
import type { Db, Tx } from '#db/client.ts'
import { chatMessages, chatSessions, chatSwipes } from '#db/schema/chat.ts'
import { diamondBalances, diamondLedger } from '#db/schema/diamonds.ts'
import { lorebooks, roleLorebooks } from '#db/schema/lorebooks.ts'
import { orders, subscriptions } from '#db/schema/payments.ts'
import { chatPersonas, personas } from '#db/schema/personas.ts'
import { roleReports } from '#db/schema/reports.ts'
import { roleAssets } from '#db/schema/role-assets.ts'
import { roleRatings, roles, roleTags, tags } from '#db/schema/roles.ts'
import { users } from '#db/schema/users.ts'
import { visibleChatRole } from '#server/modules/chat/chat.repo.ts'

/**
 * The account as a whole: every table that holds a user's rows, read for the export and removed
 * for the deletion (docs/decisions/015-account-export-and-deletion.md). It reads across domains
 * on purpose: deletion must be one transaction, and the export one consistent picture.
 */
export function createAccountRepo(db: Db) {
  return {
    async findUser(userId: string) {
      const [row] = await db
        .select({
          id: users.id,
          username: users.username,
          email: users.email,
          passwordHash: users.passwordHash,
          createdAt: users.createdAt,
        })
        .from(users)
        .where(eq(users.id, userId))
        .limit(1)
      return row ?? null
    },

    /**
     * A plan the provider still charges by itself (a Stripe subscription neither ended nor set to
     * end at its period end: active, or past due and being retried), whatever its period end says.
     * The same rule as `renews()` in payments/subscription-state.ts.
     */
    async findRenewingSubscription(userId: string) {
      const [row] = await db
        .select({ planId: subscriptions.planId, status: subscriptions.status })
        .from(subscriptions)
        .where(
          and(
            eq(subscriptions.userId, userId),
            ne(subscriptions.status, 'canceled'),
            eq(subscriptions.cancelAtPeriodEnd, false),
            sql`${subscriptions.providerSubscriptionId} is not null`,
          ),
        )
        .limit(1)
      return row ?? null
    },

    /** Everything stored about the user, in one read-only transaction so the parts agree. */
    async exportData(userId: string) {
      return db.transaction(async (tx) => {
        const [profile] = await tx
          .select({
            id: users.id,
            username: users.username,
            email: users.email,
            emailVerifiedAt: users.emailVerifiedAt,
            locale: users.locale,
            avatarUrl: users.avatarUrl,
            hasPassword: sql<boolean>`${users.passwordHash} is not null`,
            googleLinked: sql<boolean>`${users.googleSubject} is not null`,
            showAdultContent: users.showAdultContent,
            createdAt: users.createdAt,
            updatedAt: users.updatedAt,
          })
          .from(users)
          .where(eq(users.id, userId))
        if (!profile) return null

        const characters = await tx
          .select({
            id: roles.id,
            publicId: roles.publicId,
            name: roles.name,
            visibility: roles.visibility,
            isAdult: roles.isAdult,
            introduction: roles.introduction,
            scenario: roles.scenario,
            personality: roles.personality,
            description: roles.description,
            firstMessage: roles.firstMessage,
            alternateGreetings: roles.alternateGreetings,
            exampleDialogue: roles.exampleDialogue,
            characterBook: roles.characterBook,
            cardExtras: roles.cardExtras,
            avatarImageId: roles.avatarImageId,
            bannerImageId: roles.bannerImageId,
            createdAt: roles.createdAt,
            updatedAt: roles.updatedAt,
          })
          .from(roles)
          .where(eq(roles.creatorId, userId))
          .orderBy(asc(roles.id))
        const characterTags =
          characters.length === 0
            ? []
            : await tx
                .select({ roleId: roleTags.roleId, slug: tags.slug, names: tags.names })
                .from(roleTags)
                .innerJoin(tags, eq(tags.id, roleTags.tagId))
                .where(
                  inArray(
                    roleTags.roleId,
                    characters.map((c) => c.id),
                  ),
                )

        const characterIds = characters.map((c) => c.id)
        // The lorebooks attached and the files a card brought (described; their bytes travel in the
        // card exports). The creator's translations come from the role-texts service.
        const characterLorebooks =
          characterIds.length === 0
            ? []
            : await tx
                .select({ roleId: roleLorebooks.roleId, lorebookId: roleLorebooks.lorebookId })
                .from(roleLorebooks)
                .where(inArray(roleLorebooks.roleId, characterIds))
                .orderBy(asc(roleLorebooks.roleId), asc(roleLorebooks.position))
        const characterFiles =
          characterIds.length === 0
            ? []
            : await tx
                .select({
                  roleId: roleAssets.roleId,
                  type: roleAssets.type,
                  name: roleAssets.name,
                  ext: roleAssets.ext,
                  contentType: roleAssets.contentType,
                  byteSize: roleAssets.byteSize,
                })
                .from(roleAssets)
                .where(inArray(roleAssets.roleId, characterIds))
                .orderBy(asc(roleAssets.roleId), asc(roleAssets.position))
        const ownLorebooks = await tx
          .select({
            id: lorebooks.id,
            name: lorebooks.name,
            book: lorebooks.book,
            createdAt: lorebooks.createdAt,
            updatedAt: lorebooks.updatedAt,
          })
          .from(lorebooks)
          .where(eq(lorebooks.ownerId, userId))
          .orderBy(asc(lorebooks.createdAt), asc(lorebooks.id))

        const ownPersonas = await tx
          .select({
            id: personas.id,
            name: personas.name,
            description: personas.description,
            avatarImageId: personas.avatarImageId,
            isDefault: personas.isDefault,
            createdAt: personas.createdAt,
            updatedAt: personas.updatedAt,
          })
          .from(personas)
          .where(eq(personas.ownerId, userId))
          .orderBy(asc(personas.createdAt), asc(personas.id))
        const personaOfChat = await tx
          .select({ sessionId: chatPersonas.sessionId, personaId: chatPersonas.personaId })
          .from(chatPersonas)
          .innerJoin(personas, eq(personas.id, chatPersonas.personaId))
          .where(eq(personas.ownerId, userId))

        const sessions = await tx
          .select({
            id: chatSessions.id,
            characterId: roles.publicId,
            characterName: roles.name,
            modelId: chatSessions.modelId,
            memoryNote: chatSessions.memoryNote,
            memoryUpdatedAt: chatSessions.memoryUpdatedAt,
            authorNote: chatSessions.authorNote,
            authorNoteDepth: chatSessions.authorNoteDepth,
            title: chatSessions.title,
            pinnedAt: chatSessions.pinnedAt,
            parentSessionId: chatSessions.parentSessionId,
            parentMessageId: chatSessions.parentMessageId,
            createdAt: chatSessions.createdAt,
            updatedAt: chatSessions.updatedAt,
          })
          .from(chatSessions)
          // A character made private by its creator is not this user's data: its id and name are left out.
          .leftJoin(roles, visibleChatRole)
          // A chat in its undo window is deleted as far as its user knows (ADR 048).
          .where(and(eq(chatSessions.userId, userId), isNull(chatSessions.deletedAt)))
          .orderBy(asc(chatSessions.createdAt))
        const sessionIds = sessions.map((s) => s.id)
        const messages =
          sessionIds.length === 0
            ? []
            : await tx
                .select({
                  id: chatMessages.id,
                  sessionId: chatMessages.sessionId,
                  author: chatMessages.author,
                  content: chatMessages.content,
                  status: chatMessages.status,
                  modelId: chatMessages.modelId,
                  diamondsSpent: chatMessages.diamondsSpent,
                  swipeId: chatMessages.swipeId,
                  imported: chatMessages.imported,
                  createdAt: chatMessages.createdAt,
                  editedAt: chatMessages.editedAt,
                })
                .from(chatMessages)
                .where(inArray(chatMessages.sessionId, sessionIds))
                .orderBy(asc(chatMessages.id))
        const swipes =
          messages.length === 0
            ? []
            : await tx
                .select({
                  id: chatSwipes.id,
                  messageId: chatSwipes.messageId,
                  content: chatSwipes.content,
                  status: chatSwipes.status,
                  modelId: chatSwipes.modelId,
                  diamondsSpent: chatSwipes.diamondsSpent,
                  createdAt: chatSwipes.createdAt,
                })
                .from(chatSwipes)
                .innerJoin(chatMessages, eq(chatMessages.id, chatSwipes.messageId))
                .where(inArray(chatMessages.sessionId, sessionIds))
                .orderBy(asc(chatSwipes.id))

        const [balance] = await tx
          .select({ balance: diamondBalances.balance })
          .from(diamondBalances)
          .where(eq(diamondBalances.userId, userId))
        const ledger = await tx
          .select({
            amount: diamondLedger.amount,
            reason: diamondLedger.reason,
            reference: diamondLedger.reference,
            createdAt: diamondLedger.createdAt,
          })
          .from(diamondLedger)
          .where(eq(diamondLedger.userId, userId))
          .orderBy(asc(diamondLedger.id))
        // Provider references are left out: they are keys into the provider's systems, not data
        // about the user.
        const orderRows = await tx
          .select({
            id: orders.id,
            planId: orders.planId,
            billingCycle: orders.billingCycle,
            paymentType: orders.paymentType,
            provider: orders.provider,
            status: orders.status,
            amount: orders.amount,
            currency: orders.currency,
            createdAt: orders.createdAt,
            paidAt: orders.paidAt,
          })
          .from(orders)
          .where(eq(orders.userId, userId))
          .orderBy(asc(orders.createdAt))
        const subscriptionRows = await tx
          .select({
            planId: subscriptions.planId,
            billingCycle: subscriptions.billingCycle,
            provider: subscriptions.provider,
            status: subscriptions.status,
            currentPeriodEnd: subscriptions.currentPeriodEnd,
            updatedAt: subscriptions.updatedAt,
          })
          .from(subscriptions)
          .where(eq(subscriptions.userId, userId))
        const ratings = await tx
          .select({ characterId: roles.publicId, score: roleRatings.score, createdAt: roleRatings.createdAt })
          .from(roleRatings)
          .innerJoin(roles, eq(roles.id, roleRatings.roleId))
          .where(eq(roleRatings.userId, userId))
        const reports = await tx
          .select({
            id: roleReports.id,
            characterId: roles.publicId,
            reason: roleReports.reason,
            text: roleReports.text,
            status: roleReports.status,
            createdAt: roleReports.createdAt,
          })
          .from(roleReports)
          .innerJoin(roles, eq(roles.id, roleReports.roleId))
          .where(eq(roleReports.reporterId, userId))
          .orderBy(asc(roleReports.id))

        return {
          profile,
          characters,
          characterTags,
          characterLorebooks,
          characterFiles,
          lorebooks: ownLorebooks,
          personas: ownPersonas,
          personaOfChat,
          sessions,
          messages,
          swipes,
          balance: balance?.balance ?? 0,
          ledger,
          orders: orderRows,
          subscriptions: subscriptionRows,
          ratings,
          reports,
        }
      })
    },

    /**
     * Removes the account in one transaction (ADR 015). Their private characters go; public ones
     * stay without a creator (the foreign key sets it to null), as the privacy policy says. Ratings
     * they gave are taken out of the roles' aggregates; reports they filed stay for the operator
     * without the reporter. Orders and ledger entries stay for accounting without the user (set
     * null). Everything else (tokens, e-mail links, chats, messages, swipes, balance, plan) follows
     * the user row by cascade, personas too (ADR 049). Returns the images of the deleted characters
     * and personas, to remove once nothing refers to them.
     */
    /** `within` runs in the same transaction once the account is found (an operator's audit record, ADR 055). */
    async deleteAccount(
      userId: string,
      within?: (tx: Tx) => Promise<void>,
    ): Promise<{ deleted: boolean; imageIds: string[] }> {
      return db.transaction(async (tx) => {
        const [user] = await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('update')
        if (!user) return { deleted: false, imageIds: [] }
        await within?.(tx)

        // Personas go with the user row by cascade; their avatars are removed after.
        const personaAvatars = await tx
          .select({ avatar: personas.avatarImageId })
          .from(personas)
          .where(eq(personas.ownerId, userId))
        const owned = await tx
          .delete(roles)
          .where(and(eq(roles.creatorId, userId), eq(roles.visibility, 'private')))
          .returning({
            avatar: roles.avatarImageId,
            blurred: roles.avatarBlurredImageId,
            banner: roles.bannerImageId,
          })

        const rated = await tx
          .delete(roleRatings)
          .where(eq(roleRatings.userId, userId))
          .returning({ roleId: roleRatings.roleId })
        const ratedIds = rated.map((r) => r.roleId)
        if (ratedIds.length > 0) {
          await tx
            .update(roles)
            .set({
              ratingCount: sql`(select count(*) from ${roleRatings} where ${roleRatings.roleId} = ${roles.id})::int`,
              ratingSum: sql`(select coalesce(sum(${roleRatings.score}), 0) from ${roleRatings} where ${roleRatings.roleId} = ${roles.id})::int`,
              ratingAverage: sql`(select coalesce(avg(${roleRatings.score}), 0) from ${roleRatings} where ${roleRatings.roleId} = ${roles.id})::real`,
            })
            .where(inArray(roles.id, ratedIds))
        }

        await tx.update(roleReports).set({ reporterId: null }).where(eq(roleReports.reporterId, userId))
        await tx.delete(users).where(eq(users.id, userId))

        const imageIds = [
          ...owned.flatMap((r) => [r.avatar, r.blurred, r.banner]),
          ...personaAvatars.map((p) => p.avatar),
        ].filter((id): id is string => !!id)
        return { deleted: true, imageIds }
      })
    },
  }
}

export type AccountRepo = ReturnType<typeof createAccountRepo>
