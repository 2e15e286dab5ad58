import type { Tx } from '#db/client.ts'
import { AppError } from '#server/lib/errors.ts'
import type { KeyValueStore } from '#server/lib/key-value-store.ts'
import { enforceLimit } from '#server/lib/rate-limit.ts'
import { ACCESS_TOKEN_TTL_SECONDS } from '#server/modules/auth/access-token.ts'
import { verifyPassword } from '#server/modules/auth/passwords.ts'
import type { CatalogueService } from '#server/modules/catalogue/catalogue.service.ts'
import { type ImagesService, imageUrl } from '#server/modules/images/images.service.ts'
import type { RoleTextsService } from '#server/modules/role-texts/role-texts.service.ts'
import type { AccountRepo } from './account.repo.ts'

const MINUTE = 60_000
export const ACCOUNT_LIMITS = {
  exportPerUser: { max: 10, windowMs: 60 * MINUTE },
  deletePerUser: { max: 5, windowMs: 15 * MINUTE },
  deletePerIp: { max: 20, windowMs: 15 * MINUTE },
}

/**
 * Access tokens are stateless and live up to ACCESS_TOKEN_TTL_SECONDS; a deleted account's id is
 * remembered (shared through Redis) at least that long, and the authentication plugin refuses it.
 */
export const DELETED_USER_KEY = (userId: string) => `deleted-user:${userId}`
const DELETED_MARK_TTL_MS = (ACCESS_TOKEN_TTL_SECONDS + 60) * 1000

export type DeleteConfirmation = { password?: string | undefined; email?: string | undefined }

export function createAccountService(deps: {
  repo: AccountRepo
  kv: KeyValueStore
  images: Pick<ImagesService, 'removeUnused'>
  catalogue: Pick<CatalogueService, 'invalidateListings'>
  /** The creator's own translations of a character (the role-texts module owns them, ADR 039). */
  roleTexts: Pick<RoleTextsService, 'authorTranslationsOf'>
  now?: () => Date
}) {
  const { repo, kv, images, catalogue, roleTexts } = deps
  const now = deps.now ?? (() => new Date())

  /** The deletion itself, shared by the user's own and an operator's: rows, then the token mark, pictures, listings. */
  async function removeAccount(userId: string, within?: (tx: Tx) => Promise<void>): Promise<boolean> {
    const { deleted, imageIds } = await repo.deleteAccount(userId, within)
    if (!deleted) return false
    await kv.set(DELETED_USER_KEY(userId), '1', DELETED_MARK_TTL_MS)
    await images.removeUnused(imageIds)
    await catalogue.invalidateListings()
    return true
  }

  return {
    /** What the account page shows, and how deletion is confirmed (password or e-mail). */
    async summary(userId: string) {
      const user = await repo.findUser(userId)
      if (!user) throw AppError.unauthorized()
      return {
        username: user.username,
        email: user.email,
        hasPassword: user.passwordHash !== null,
        createdAt: user.createdAt.toISOString(),
      }
    },

    /** Everything stored about the user, as one JSON document (the "download my data" file). */
    async exportData(userId: string) {
      await enforceLimit(kv, `account-export:user:${userId}`, ACCOUNT_LIMITS.exportPerUser)
      const data = await repo.exportData(userId)
      if (!data) throw AppError.unauthorized()
      const tagsOf = new Map<number, { slug: string; names: Record<string, string> }[]>()
      for (const tag of data.characterTags) {
        tagsOf.set(tag.roleId, [...(tagsOf.get(tag.roleId) ?? []), { slug: tag.slug, names: tag.names }])
      }
      const byRole = <T extends { roleId: number }>(rows: T[]) => {
        const of = new Map<number, Omit<T, 'roleId'>[]>()
        for (const { roleId, ...row } of rows) of.set(roleId, [...(of.get(roleId) ?? []), row])
        return of
      }
      const translationsOf = new Map<number, object[]>()
      for (const { id } of data.characters) {
        const rows = await roleTexts.authorTranslationsOf(id)
        translationsOf.set(
          id,
          rows.map(({ roleId: _role, origin: _origin, sourceHash: _hash, stale: _stale, ...texts }) => texts),
        )
      }
      const lorebooksOf = byRole(data.characterLorebooks)
      const filesOf = byRole(data.characterFiles)
      const swipesOf = new Map<number, (typeof data.swipes)[number][]>()
      for (const swipe of data.swipes) swipesOf.set(swipe.messageId, [...(swipesOf.get(swipe.messageId) ?? []), swipe])
      const messagesOf = new Map<string, (typeof data.messages)[number][]>()
      for (const message of data.messages) {
        messagesOf.set(message.sessionId, [...(messagesOf.get(message.sessionId) ?? []), message])
      }
      const exportedChats = new Set(data.sessions.map((session) => session.id))
      const personaOf = new Map(data.personaOfChat.map((link) => [link.sessionId, link.personaId]))
      return {
        format: 'taleweave-account-export',
        version: 1,
        exportedAt: now().toISOString(),
        profile: data.profile,
        characters: data.characters.map(({ id, avatarImageId, bannerImageId, publicId, ...character }) => ({
          id: publicId,
          ...character,
          tags: tagsOf.get(id) ?? [],
          avatarUrl: imageUrl(avatarImageId),
          bannerUrl: imageUrl(bannerImageId),
          translations: translationsOf.get(id) ?? [],
          lorebookIds: (lorebooksOf.get(id) ?? []).map((link) => link.lorebookId),
          cardFiles: filesOf.get(id) ?? [],
        })),
        lorebooks: data.lorebooks,
        personas: data.personas.map(({ avatarImageId, ...persona }) => ({
          ...persona,
          avatarUrl: imageUrl(avatarImageId),
        })),
        ratings: data.ratings,
        chats: data.sessions.map(({ parentSessionId, parentMessageId, ...session }) => ({
          ...session,
          personaId: personaOf.get(session.id) ?? null,
          // A branch names the chat and message it was branched from (ADR 050), when that chat is
          // in this export too (not deleted, nor in its undo window).
          branchedFrom:
            parentSessionId && exportedChats.has(parentSessionId)
              ? { chatId: parentSessionId, messageId: parentMessageId }
              : null,
          messages: (messagesOf.get(session.id) ?? []).map(({ sessionId: _session, ...message }) => ({
            ...message,
            swipes: (swipesOf.get(message.id) ?? []).map(({ messageId: _message, ...swipe }) => swipe),
          })),
        })),
        diamonds: { balance: data.balance, ledger: data.ledger },
        orders: data.orders,
        subscriptions: data.subscriptions,
        reports: data.reports,
      }
    },

    /**
     * Deletes the account after the user proves it is them: their password, or for an account
     * without one (Google only) their e-mail address typed in full.
     */
    async deleteAccount(userId: string, confirmation: DeleteConfirmation, ip: string): Promise<void> {
      await enforceLimit(kv, `account-delete:ip:${ip}`, ACCOUNT_LIMITS.deletePerIp)
      await enforceLimit(kv, `account-delete:user:${userId}`, ACCOUNT_LIMITS.deletePerUser)
      const user = await repo.findUser(userId)
      if (!user) throw AppError.unauthorized()
      const confirmed = user.passwordHash
        ? await verifyPassword(user.passwordHash, confirmation.password ?? '')
        : (confirmation.email ?? '').trim().toLowerCase() === user.email.toLowerCase()
      // 403, not 401: the session is fine, the confirmation is not (a 401 would log the browser out).
      if (!confirmed) {
        throw new AppError(
          403,
          'INVALID_CREDENTIALS',
          user.passwordHash ? 'The password is wrong.' : 'The e-mail address does not match.',
        )
      }
      if (await repo.findRenewingSubscription(userId)) {
        throw AppError.conflict('Your plan is still charged by the provider; cancel it before deleting the account.', {
          reason: 'subscription-renews',
        })
      }
      if (!(await removeAccount(userId))) throw AppError.unauthorized()
    },

    /**
     * Deletes an account for an operator (ADR 055): the same deletion as the user's own, without
     * their confirmation; `within` runs in its transaction (the audit record). Refused while a plan
     * is still charged by the provider; false when there is no such account.
     */
    async deleteByOperator(userId: string, within: (tx: Tx) => Promise<void>): Promise<boolean> {
      if (await repo.findRenewingSubscription(userId)) {
        throw AppError.conflict('The plan is still charged by the provider; cancel it before deleting the account.', {
          reason: 'subscription-renews',
        })
      }
      return removeAccount(userId, within)
    },
  }
}

export type AccountService = ReturnType<typeof createAccountService>
