import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { AuditEntry } from '#contracts/admin-audit.ts'
import { diamondLedger } from '#db/schema/diamonds.ts'
import { roles } from '#db/schema/roles.ts'
import { adminAudit } from '#db/schema/staff.ts'
import { hashPassword } from '#server/modules/auth/passwords.ts'
import { userExists } from '#tests/factories/account.ts'
import { createRole, createTags } from '#tests/factories/catalogue.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'
import { createModerationService, type ModerationService } from './moderation.service.ts'
import { createPeopleRepo } from './people.repo.ts'
import { createReportsQueueRepo } from './reports-queue.repo.ts'
import { createRoleHidesRepo } from './role-hides.repo.ts'
import { createSuspensionsRepo } from './suspensions.repo.ts'
import { createWarningsRepo } from './warnings.repo.ts'

const PASSWORD = 'correct horse battery staple'

describe('moderation and people actions (ADR 055)', () => {
  let t: TestApp
  let moderation: ModerationService
  let passwordHash: string
  let audited: AuditEntry[]
  let staffId: string

  beforeAll(async () => {
    t = await buildTestApp()
    passwordHash = await hashPassword(PASSWORD)
    const db = t.database.db
    const { catalogue, auth, account, diamonds } = t.app.services
    moderation = createModerationService({
      db,
      // Records the call, and proves it runs inside the action's transaction: it writes there.
      audit: async (tx, entry) => {
        await tx.select({ id: roles.id }).from(roles).limit(1)
        audited.push(entry)
      },
      hides: createRoleHidesRepo(db),
      suspensions: createSuspensionsRepo(db),
      reports: createReportsQueueRepo(db),
      warnings: createWarningsRepo(db),
      people: createPeopleRepo(db),
      catalogue,
      auth,
      account,
      diamonds,
    })
    staffId = (await t.login()).user.id
    await createTags(t.database.db, [{ slug: 'modtag', names: { en: 'Modtag' } }])
  })
  afterAll(async () => {
    await t.close()
  })
  beforeEach(() => {
    audited = []
  })

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
  const actor = (note: string) => ({ actorId: staffId, note })
  const get = (url: string, token?: string) =>
    t.app.inject({ method: 'GET', url, ...(token ? { headers: bearer(token) } : {}) })
  const listed = async (query: string) =>
    ((await get(`/api/roles${query}`)).json().data.items as { roleId: string }[]).map((r) => r.roleId)
  const sitemapPaths = async () =>
    ((await get('/api/sitemap/pages?pageSize=5000')).json().data.items as { path: string }[]).map((p) => p.path)
  const startChat = (token: string, roleId: string) =>
    t.app.inject({ method: 'POST', url: '/api/createSession', payload: { roleId }, headers: bearer(token) })
  const report = (roleId: string, reason: string, token?: string) =>
    t.app.inject({
      method: 'POST',
      url: `/api/roles/${roleId}/report`,
      payload: { reason, text: `because ${reason}` },
      ...(token ? { headers: bearer(token) } : {}),
    })

  /** The mail the job queue wrote to the outbox for this address (waits for it, up to 10 s). */
  async function mailTo(email: string): Promise<string> {
    const outbox = path.join(t.config.dataDir, 'outbox')
    for (let waited = 0; waited < 10_000; waited += 100) {
      const files = await readdir(outbox).catch(() => [] as string[])
      for (const file of files) {
        const text = await readFile(path.join(outbox, file), 'utf8')
        if (text.includes(`To: ${email}`)) return text
      }
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    throw new Error(`no mail to ${email}`)
  }

  async function loginWithPassword(email: string, password = PASSWORD) {
    return t.app.inject({ method: 'POST', url: '/api/login', payload: { email, password } })
  }

  describe('a hidden character', () => {
    it('disappears from listings, search, tag pages, sitemaps, its page and new chats; restored, it is back', async () => {
      const creator = await t.login()
      const other = await t.login()
      const name = 'Quillon Hideaway'
      const roleId = await createRole(t.database.db, { name, creatorId: creator.user.id, tagSlugs: ['modtag'] })
      // A chat another user started before it was hidden.
      const before = await startChat(other.token, roleId)
      expect(before.statusCode).toBe(200)
      // Cached listings first, so the test sees the cache dropped.
      expect(await listed('')).toContain(roleId)
      expect(await listed('?q=quillon')).toContain(roleId)
      expect(await listed('?tags=modtag')).toContain(roleId)
      expect(await sitemapPaths()).toContain(`/characters/${roleId}`)

      expect(await moderation.hideCharacter(roleId, actor('abusive'))).toEqual({ changed: true })
      expect(audited).toEqual([
        { actorId: staffId, action: 'character.hide', targetType: 'character', targetId: roleId, note: 'abusive' },
      ])

      expect(await listed('')).not.toContain(roleId)
      expect(await listed('?q=quillon')).not.toContain(roleId)
      expect(await listed('?tags=modtag')).not.toContain(roleId)
      expect(await sitemapPaths()).not.toContain(`/characters/${roleId}`)
      expect((await get(`/api/role?roleId=${roleId}`)).statusCode).toBe(404)
      expect((await get(`/api/role?roleId=${roleId}`, other.token)).statusCode).toBe(404)
      // Its creator still sees it, and the operator's hide is on it.
      const own = await get(`/api/role?roleId=${roleId}`, creator.token)
      expect(own.statusCode).toBe(200)
      expect(own.json().data).toMatchObject({ visibility: 'private', hiddenByOperator: true })
      const mine = (await get('/api/my/roles', creator.token)).json().data.roles
      expect(mine).toMatchObject([{ roleId, visibility: 'private', hiddenByOperator: true }])
      expect(await moderation.hiddenCauses(roleId)).toEqual(['moderation'])
      // Other users cannot start a chat with it; the chat already started stays readable.
      expect((await startChat((await t.login()).token, roleId)).statusCode).toBe(404)
      const chatId = before.json().data.id
      const existing = await t.app.inject({
        method: 'POST',
        url: '/api/session',
        payload: { sessionId: chatId },
        headers: bearer(other.token),
      })
      expect(existing.statusCode).toBe(200)
      // ...as a chat whose character is gone: its texts reach neither the page nor the prompt.
      expect(existing.json().data.role).toBeNull()

      // The creator cannot make it public again by editing it: the database keeps it private.
      await t.database.db.update(roles).set({ visibility: 'public' }).where(eq(roles.publicId, roleId))
      expect(await listed('')).not.toContain(roleId)
      expect(await listed('?tags=modtag')).not.toContain(roleId)

      // Hiding again changes nothing and writes no second record.
      expect(await moderation.hideCharacter(roleId, actor('again'))).toEqual({ changed: false })
      expect(audited).toHaveLength(1)

      expect(await moderation.restoreCharacter(roleId, actor('appeal upheld'))).toEqual({ changed: true })
      expect(audited[1]).toMatchObject({ action: 'character.restore', targetId: roleId, note: 'appeal upheld' })
      expect(await listed('')).toContain(roleId)
      expect(await listed('?tags=modtag')).toContain(roleId)
      expect((await startChat((await t.login()).token, roleId)).statusCode).toBe(200)
      expect((await get(`/api/role?roleId=${roleId}`, creator.token)).json().data).not.toHaveProperty(
        'hiddenByOperator',
      )
    })

    it('a private character restored stays private', async () => {
      const creator = await t.login()
      const roleId = await createRole(t.database.db, {
        name: 'Secret One',
        creatorId: creator.user.id,
        visibility: 'private',
      })
      await moderation.hideCharacter(roleId, actor('x'))
      await moderation.restoreCharacter(roleId, actor('y'))
      const [row] = await t.database.db.select({ v: roles.visibility }).from(roles).where(eq(roles.publicId, roleId))
      expect(row?.v).toBe('private')
    })

    it('refuses without a note or for an unknown character, changing nothing', async () => {
      const roleId = await createRole(t.database.db, { name: 'Noted One' })
      await expect(moderation.hideCharacter(roleId, actor('  '))).rejects.toMatchObject({ status: 400 })
      await expect(moderation.hideCharacter('nope', actor('x'))).rejects.toMatchObject({ status: 404 })
      await expect(moderation.hideCharacter(roleId, actor('x'.repeat(2001)))).rejects.toMatchObject({ status: 400 })
      expect(await listed('?q=noted')).toContain(roleId)
      expect(audited).toEqual([])
    })

    it('is marked adult and unmarked, leaving the non-adult listing and sitemap', async () => {
      const roleId = await createRole(t.database.db, { name: 'Velvet Marker' })
      expect(await moderation.setCharacterAdult(roleId, true, actor('explicit'))).toEqual({ changed: true })
      expect(audited[0]).toMatchObject({ action: 'character.mark-adult', targetId: roleId })
      expect(await sitemapPaths()).not.toContain(`/characters/${roleId}`)
      expect(await moderation.setCharacterAdult(roleId, false, actor('not explicit'))).toEqual({ changed: true })
      expect(audited[1]).toMatchObject({ action: 'character.unmark-adult' })
      const [row] = await t.database.db.select({ adult: roles.isAdult }).from(roles).where(eq(roles.publicId, roleId))
      expect(row?.adult).toBe(false)
    })
  })

  describe('suspension', () => {
    it("ends the user's access token at once, refuses new logins with ACCOUNT_SUSPENDED, hides their characters; restore undoes it", async () => {
      const user = await t.login({ passwordHash })
      const roleId = await createRole(t.database.db, { name: 'Suspended Creation', creatorId: user.user.id })
      const login = await loginWithPassword(user.user.email)
      expect(login.statusCode).toBe(200)
      const { token, refreshToken } = login.json().data
      expect((await get('/api/account', token)).statusCode).toBe(200)
      expect((await get('/api/account', user.token)).statusCode).toBe(200)

      expect(await moderation.suspendUser(user.user.id, actor('spam ring'))).toEqual({ changed: true })
      expect(audited).toMatchObject([
        {
          action: 'user.suspend',
          targetType: 'user',
          targetId: user.user.id,
          note: 'spam ring',
          details: { charactersHidden: 1 },
        },
      ])

      // Both unexpired access tokens are refused at once; the refresh token too.
      expect((await get('/api/account', token)).statusCode).toBe(401)
      expect((await get('/api/account', user.token)).statusCode).toBe(401)
      expect((await t.app.inject({ method: 'POST', url: '/api/refresh', payload: { refreshToken } })).statusCode).toBe(
        401,
      )
      // A new login with the right password is refused, saying why; a wrong one says only that it is wrong.
      const refused = await loginWithPassword(user.user.email)
      expect(refused.statusCode).toBe(403)
      expect(refused.json().error).toBe('ACCOUNT_SUSPENDED')
      const wrong = await loginWithPassword(user.user.email, 'not the password')
      expect(wrong.statusCode).toBe(401)
      expect(wrong.json().error).toBe('INVALID_CREDENTIALS')
      // Their public characters leave the listings while suspended.
      expect(await listed('?q=suspended')).not.toContain(roleId)
      expect((await moderation.personDetail(user.user.id)).suspended).toMatchObject({ note: 'spam ring', by: staffId })
      expect((await moderation.searchPeople(user.user.email))[0]).toMatchObject({ id: user.user.id, suspended: true })

      expect(await moderation.restoreUser(user.user.id, actor('cleared'))).toEqual({ changed: true })
      expect(audited[1]).toMatchObject({ action: 'user.restore', details: { charactersShown: 1 } })
      expect(await listed('?q=suspended')).toContain(roleId)
      const again = await loginWithPassword(user.user.email)
      expect(again.statusCode).toBe(200)
      expect((await get('/api/account', again.json().data.token)).statusCode).toBe(200)
    })

    it('no token is issued to a suspended account, even from a refresh token that escaped revocation', async () => {
      const user = await t.login({ passwordHash })
      const { refreshToken } = (await loginWithPassword(user.user.email)).json().data
      // The suspension row alone, as if the login raced the suspension and its token was written after the revocation.
      await t.database.db.transaction((tx) =>
        createSuspensionsRepo(t.database.db).suspend(tx, { userId: user.user.id, note: 'race', actorId: staffId }),
      )
      const refused = await t.app.inject({ method: 'POST', url: '/api/refresh', payload: { refreshToken } })
      expect(refused.statusCode).toBe(403)
      expect(refused.json().error).toBe('ACCOUNT_SUSPENDED')
    })

    it("a character a moderator hid stays hidden when its creator's suspension ends", async () => {
      const user = await t.login()
      const roleId = await createRole(t.database.db, { name: 'Twice Hidden', creatorId: user.user.id })
      await moderation.hideCharacter(roleId, actor('bad'))
      await moderation.suspendUser(user.user.id, actor('worse'))
      await moderation.restoreUser(user.user.id, actor('ok'))
      expect(await listed('?q=twice')).not.toContain(roleId)
      await moderation.restoreCharacter(roleId, actor('fine'))
      expect(await listed('?q=twice')).toContain(roleId)
    })
  })

  describe('the reports queue', () => {
    it('groups open reports by character and closes them with the outcome the reporter sees', async () => {
      const creator = await t.login()
      const roleId = await createRole(t.database.db, { name: 'Reported Rogue', creatorId: creator.user.id })
      const alice = await t.login()
      const bob = await t.login()
      expect((await report(roleId, 'spam', alice.token)).statusCode).toBe(200)
      expect((await report(roleId, 'spam', bob.token)).statusCode).toBe(200)
      expect((await report(roleId, 'hate')).statusCode).toBe(200)

      const queue = await moderation.reportsQueue()
      const group = queue.find((g) => g.character.id === roleId)
      expect(group).toMatchObject({
        character: {
          id: roleId,
          name: 'Reported Rogue',
          isAdult: false,
          visibility: 'public',
          creatorId: creator.user.id,
        },
        reasons: [
          { reason: 'spam', count: 2 },
          { reason: 'hate', count: 1 },
        ],
        reports: 3,
        reporters: 3,
      })
      expect(group?.texts).toContain('because hate')

      expect(await moderation.handleReports(roleId, 'hide', actor('confirmed'))).toEqual({ closed: 3 })
      expect(audited.map((a) => a.action)).toEqual(['character.hide', 'report.close', 'report.close', 'report.close'])
      expect((await moderation.reportsQueue()).some((g) => g.character.id === roleId)).toBe(false)
      expect(await listed('?q=rogue')).not.toContain(roleId)

      const mine = await moderation.myReports(alice.user.id)
      expect(mine[0]).toMatchObject({ characterId: roleId, reason: 'spam', outcome: 'hidden' })
      expect(mine[0]?.handledAt).not.toBeNull()
      expect(JSON.stringify(mine)).not.toContain('confirmed')
      const route = await get('/api/reports/mine', alice.token)
      expect(route.statusCode).toBe(200)
      expect(route.json().data.items[0]).toMatchObject({ characterId: roleId, outcome: 'hidden' })
      expect((await get('/api/reports/mine')).statusCode).toBe(401)
    })

    it.each([
      ['dismiss', 'dismissed'],
      ['mark_adult', 'marked_adult'],
      ['warn', 'warned'],
      ['suspend', 'suspended'],
    ] as const)('%s closes the reports as %s', async (action, outcome) => {
      const creator = await t.login()
      const roleId = await createRole(t.database.db, { name: `Queue ${action}`, creatorId: creator.user.id })
      const reporter = await t.login()
      await report(roleId, 'other', reporter.token)
      expect(await moderation.handleReports(roleId, action, actor(`note ${action}`))).toEqual({ closed: 1 })
      expect((await moderation.myReports(reporter.user.id))[0]?.outcome).toBe(outcome)
      expect(audited.at(-1)).toMatchObject({ action: 'report.close', targetType: 'report', details: { outcome } })
      const detail = await moderation.personDetail(creator.user.id)
      if (action === 'warn') {
        expect(detail.warnings).toMatchObject([{ note: 'note warn' }])
        expect(audited[0]).toMatchObject({ action: 'user.warn', targetId: creator.user.id })
      }
      if (action === 'suspend') {
        expect(detail.suspended).not.toBeNull()
        expect((await get('/api/account', creator.token)).statusCode).toBe(401)
      }
      if (action === 'mark_adult') expect(audited[0]).toMatchObject({ action: 'character.mark-adult' })
      if (action === 'dismiss') expect(await listed(`?q=queue`)).toContain(roleId)
    })
  })

  describe('people', () => {
    it('finds users by e-mail (exact or prefix), name and id; shows their detail without chats', async () => {
      const user = await t.login({ username: 'findable_person', email: 'Findable.Person@example.test' })
      const roleId = await createRole(t.database.db, { name: 'Detail Role', creatorId: user.user.id })
      await report(roleId, 'spam', (await t.login()).token)
      const ids = async (q: string) => (await moderation.searchPeople(q)).map((p) => p.id)
      expect(await ids('findable.person@example.test')).toEqual([user.user.id])
      expect(await ids('FINDABLE.p')).toEqual([user.user.id])
      expect(await ids('findable_')).toEqual([user.user.id])
      expect(await ids(user.user.id)).toEqual([user.user.id])
      expect(await ids('%')).not.toContain(user.user.id)
      expect(await ids('   ')).toEqual([])
      expect((await moderation.searchPeople(user.user.id))[0]?.suspended).toBe(false)

      const detail = await moderation.personDetail(user.user.id)
      expect(detail.account).toMatchObject({ id: user.user.id, username: 'findable_person' })
      expect(detail.characters).toMatchObject([{ publicId: roleId, name: 'Detail Role', hiddenBy: [] }])
      expect(detail.reportsReceived).toMatchObject([{ characterId: roleId, reason: 'spam' }])
      expect(detail).not.toHaveProperty('chats')
      await expect(moderation.personDetail('00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({
        status: 404,
      })
    })

    it('grants and deducts diamonds through the ledger, never below zero', async () => {
      const user = await t.login()
      expect(await moderation.adjustDiamonds(user.user.id, 30, actor('goodwill'))).toEqual({ balance: 30 })
      expect(audited[0]).toMatchObject({ action: 'diamonds.grant', targetId: user.user.id, details: { amount: 30 } })
      expect(await moderation.adjustDiamonds(user.user.id, -10, actor('mistake'))).toEqual({ balance: 20 })
      expect(audited[1]).toMatchObject({ action: 'diamonds.deduct', details: { amount: -10 } })
      await expect(moderation.adjustDiamonds(user.user.id, -21, actor('too much'))).rejects.toMatchObject({
        status: 409,
        code: 'BALANCE_BELOW_ZERO',
      })
      await expect(moderation.adjustDiamonds(user.user.id, 1.5, actor('odd'))).rejects.toMatchObject({ status: 400 })
      expect(audited).toHaveLength(2)
      const entries = await t.database.db
        .select({ amount: diamondLedger.amount, reason: diamondLedger.reason })
        .from(diamondLedger)
        .where(eq(diamondLedger.userId, user.user.id))
        .orderBy(diamondLedger.id)
      expect(entries).toEqual([
        { amount: 30, reason: 'admin_grant' },
        { amount: -10, reason: 'admin_deduct' },
      ])
      expect((await moderation.personDetail(user.user.id)).balance).toBe(20)
    })

    it('an action whose audit record fails changes nothing', async () => {
      const user = await t.login()
      const failing = createModerationService({
        ...{
          db: t.database.db,
          hides: createRoleHidesRepo(t.database.db),
          suspensions: createSuspensionsRepo(t.database.db),
          reports: createReportsQueueRepo(t.database.db),
          warnings: createWarningsRepo(t.database.db),
          people: createPeopleRepo(t.database.db),
          ...t.app.services,
        },
        audit: async () => {
          throw new Error('audit down')
        },
      })
      await expect(failing.adjustDiamonds(user.user.id, 5, actor('x'))).rejects.toThrow('audit down')
      await expect(failing.suspendUser(user.user.id, actor('x'))).rejects.toThrow('audit down')
      expect((await moderation.personDetail(user.user.id)).balance).toBe(0)
      expect((await moderation.personDetail(user.user.id)).suspended).toBeNull()
      // The app's own wiring writes each action to the console's audit log (ADR 054), with it.
      await t.app.services.moderation.adjustDiamonds(user.user.id, 5, actor('a wiring check'))
      const logged = await t.database.db.select().from(adminAudit).where(eq(adminAudit.targetId, user.user.id))
      expect(logged).toMatchObject([{ action: 'diamonds.grant', actorId: staffId, note: 'a wiring check' }])
    })

    it('deletes an account as account deletion does, with its audit record', async () => {
      const user = await t.login()
      await moderation.deleteUser(user.user.id, actor('requested by mail'))
      expect(await userExists(t.database.db, user.user.id)).toBe(false)
      expect(audited).toMatchObject([{ action: 'user.delete', targetId: user.user.id, note: 'requested by mail' }])
      expect((await get('/api/account', user.token)).statusCode).toBe(401)
      await expect(moderation.deleteUser(user.user.id, actor('again'))).rejects.toMatchObject({ status: 404 })
    })

    it('resends the verification mail to an unverified account only, within the mail limit', async () => {
      const verified = await t.login()
      expect(await moderation.resendVerification(verified.user.id, actor('asked'))).toEqual({ sent: false })
      const unverified = await t.login({ emailVerifiedAt: null })
      expect(await moderation.resendVerification(unverified.user.id, actor('asked'))).toEqual({ sent: true })
      expect(audited).toMatchObject([{ action: 'user.resend-verification', targetId: unverified.user.id }])
      let sent = 1
      for (let i = 0; i < 10; i += 1) {
        if ((await moderation.resendVerification(unverified.user.id, actor('asked'))).sent) sent += 1
      }
      expect(sent).toBeLessThan(11)
    })

    it('warns a user: the warning is kept on their record', async () => {
      const user = await t.login()
      await moderation.warnUser(user.user.id, actor('tone it down'))
      expect((await moderation.personDetail(user.user.id)).warnings).toMatchObject([{ note: 'tone it down' }])
      // A mail in their language quoting the note, queued with the warning and sent by the job queue.
      const mail = await mailTo(user.user.email)
      expect(mail).toContain('Subject: A warning from the Taleweave moderators')
      expect(mail).toContain('tone it down')
      expect(audited).toMatchObject([{ action: 'user.warn', targetType: 'user', targetId: user.user.id }])
    })
  })
})
