import type { Audit } from '#contracts/admin-audit.ts'
import type { AdminTag, TagState } from '#contracts/admin-tags.ts'
import { tagKey } from '#contracts/characters.ts'
import type { Db } from '#db/client.ts'
import { AppError } from '#server/lib/errors.ts'
import type { SiteSettingsRepo } from './site-settings.repo.ts'
import type { TagConsoleRow, TagFilter, TagsConsoleRepo } from './tags-console.repo.ts'

export type Actor = { actorId: string; note: string }

/** The setting of the operator's policy "user-made tags start hidden until approved" (off unless set). */
export const USER_TAGS_START_HIDDEN = 'user_tags_start_hidden'
/** What the audit log names the policy by (its target is a tag setting, not one tag). */
const POLICY_TARGET = 'policy:user-tags-start-hidden'

const tagOut = (row: TagConsoleRow): AdminTag => ({
  slug: row.slug,
  names: row.names,
  userMade: row.userMade,
  creator: row.creatorId ? { id: row.creatorId, username: row.creatorUsername ?? '' } : null,
  characterCount: row.characterCount,
  state: row.state,
})

/**
 * Tag moderation (ADR 059): list, rename (names per locale; the slug stays), merge one tag into
 * another, hide, show, approve, and the policy for new user-made tags. Each action writes its audit
 * record in the transaction of its change; an action that changes nothing writes nothing. The tags
 * table's triggers bump the catalogue version, so cached listings follow at once.
 */
export function createTagsConsole(deps: { db: Db; audit: Audit; repo: TagsConsoleRepo; settings: SiteSettingsRepo }) {
  const { db, audit, repo, settings } = deps

  async function tagOf(slug: string) {
    const tag = await repo.findBySlug(db, slug)
    if (!tag) throw AppError.notFound('No such tag')
    return tag
  }

  /** Moves a tag to `to` from one of `from`; false when it already was there. */
  async function changeState(slug: string, from: TagState[], to: TagState, action: string, actor: Actor) {
    const tag = await tagOf(slug)
    if (tag.state === to) return false
    if (!from.includes(tag.state)) {
      throw AppError.conflict(`The tag is ${tag.state}.`, { reason: `tag_${tag.state}` })
    }
    await db.transaction(async (tx) => {
      await repo.setState(tx, tag.id, to)
      await audit(tx, {
        actorId: actor.actorId,
        action,
        targetType: 'tag',
        targetId: tag.slug,
        note: actor.note,
        details: { from: tag.state, to },
      })
    })
    return true
  }

  async function userTagsStartHidden(): Promise<boolean> {
    return (await settings.get(USER_TAGS_START_HIDDEN)) === true
  }

  return {
    async page(filter: TagFilter, page: number, pageSize: number) {
      const { rows, hasMore } = await repo.page(filter, page, pageSize)
      return { items: rows.map(tagOut), page, pageSize, hasMore }
    },

    /**
     * New names per locale (a locale left out loses its name; at least one stays). Refused with 409
     * when another tag already has one of the names: merging is the way to join two tags.
     */
    async rename(slug: string, names: Record<string, string>, actor: Actor) {
      const tag = await tagOf(slug)
      await db.transaction(async (tx) => {
        const keys = new Set(Object.values(names).map(tagKey))
        const clash = (await repo.allNames(tx)).find(
          (other) => other.id !== tag.id && Object.values(other.names).some((name) => keys.has(tagKey(name))),
        )
        if (clash) throw AppError.conflict('Another tag has that name.', { reason: 'name_taken', slug: clash.slug })
        await repo.rename(tx, tag.id, names)
        await audit(tx, {
          actorId: actor.actorId,
          action: 'tag.rename',
          targetType: 'tag',
          targetId: tag.slug,
          note: actor.note,
          details: { before: tag.names, after: names },
        })
      })
    },

    /**
     * Every character carrying `slug` carries `into` instead (once), and `slug` is gone: its filter
     * URL is then an unknown tag's (ADR 059). Both must exist and differ.
     */
    async merge(slug: string, into: string, actor: Actor) {
      if (slug === into) throw AppError.badRequest('A tag cannot be merged into itself.')
      const [from, target] = await Promise.all([tagOf(slug), tagOf(into)])
      return db.transaction(async (tx) => {
        const result = await repo.merge(tx, from.id, target.id)
        await audit(tx, {
          actorId: actor.actorId,
          action: 'tag.merge',
          targetType: 'tag',
          targetId: from.slug,
          note: actor.note,
          details: { into: target.slug, names: from.names, characters: result.carried, added: result.moved },
        })
        return result
      })
    },

    hide: (slug: string, actor: Actor) => changeState(slug, ['visible', 'pending'], 'hidden', 'tag.hide', actor),
    unhide: (slug: string, actor: Actor) => changeState(slug, ['hidden'], 'visible', 'tag.unhide', actor),
    approve: (slug: string, actor: Actor) => changeState(slug, ['pending'], 'visible', 'tag.approve', actor),

    async policy() {
      return { userTagsStartHidden: await userTagsStartHidden() }
    },

    /** Switches the policy (admins); audited, nothing written when unchanged. */
    async setPolicy(userTagsStartHiddenNow: boolean, actor: Actor) {
      if ((await userTagsStartHidden()) === userTagsStartHiddenNow)
        return { userTagsStartHidden: userTagsStartHiddenNow }
      await db.transaction(async (tx) => {
        await settings.set(tx, USER_TAGS_START_HIDDEN, userTagsStartHiddenNow, actor.actorId)
        await audit(tx, {
          actorId: actor.actorId,
          action: 'tag.policy',
          targetType: 'tag',
          targetId: POLICY_TARGET,
          note: actor.note,
          details: { userTagsStartHidden: userTagsStartHiddenNow },
        })
      })
      return { userTagsStartHidden: userTagsStartHiddenNow }
    },

    /** The state a tag a user makes starts in (the characters module asks on every save that makes one). */
    async newUserTagState(): Promise<'visible' | 'pending'> {
      return (await userTagsStartHidden()) ? 'pending' : 'visible'
    },
  }
}

export type TagsConsole = ReturnType<typeof createTagsConsole>
