import { eq } from 'drizzle-orm'
import type { InjectOptions } from 'fastify'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { diamondLedger } from '#db/schema/diamonds.ts'
import { hashPassword } from '#server/modules/auth/passwords.ts'
import { CONSOLE_TOKEN_HEADER } from '#server/modules/staff/console-sessions.ts'
import { totpCode } from '#server/modules/staff/totp.ts'
import { buyerOf, creatorOf, fillAccount, ledgerEntries, userExists } from '#tests/factories/account.ts'
import { createRole } from '#tests/factories/catalogue.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

// The people console's routes (ADR 060) through the API, on PGlite (or
// PostgreSQL with TEST_DATABASE_URL and TEST_REDIS_URL).

const PASSWORD = 'a quiet harbour at dusk'
type Staff = { id: string; username: string; token: string; console: string; secret: string }

let t: TestApp
let admin: Staff
let moderator: Staff
let passwordHash: string

beforeAll(async () => {
  t = await buildTestApp()
  passwordHash = await hashPassword(PASSWORD)
  admin = await staffMember('admin')
  moderator = await staffMember('moderator')
})
afterAll(async () => t?.close())
afterEach(() => vi.useRealTimers())

/** An account made staff, its second factor enrolled: the console open and freshly confirmed. */
async function staffMember(role: 'admin' | 'moderator'): Promise<Staff> {
  const { user, token } = await t.login()
  await t.app.services.staff.grant(user.email, role, { actorId: 'cli' })
  const headers = { authorization: `Bearer ${token}` }
  const setup = await t.app.inject({ method: 'POST', url: '/api/admin/2fa/setup', headers })
  const secret = setup.json().data.secret as string
  const enable = await t.app.inject({
    method: 'POST',
    url: '/api/admin/2fa/enable',
    headers,
    payload: { code: totpCode(secret, Date.now()) },
  })
  expect(enable.statusCode).toBe(200)
  return { id: user.id, username: user.username, token, console: enable.json().data.consoleToken as string, secret }
}

const asStaff = (who: Staff, request: InjectOptions) =>
  t.app.inject({ ...request, headers: { authorization: `Bearer ${who.token}`, [CONSOLE_TOKEN_HEADER]: who.console } })
const get = (url: string, who = admin) => asStaff(who, { method: 'GET', url })
const post = (url: string, payload: object, who = admin) => asStaff(who, { method: 'POST', url, payload })
const detail = async (userId: string) => (await get(`/api/admin/people/${userId}`)).json().data
const login = (email: string, password = PASSWORD) =>
  t.app.inject({ method: 'POST', url: '/api/login', payload: { email, password } })
const account = (token: string) =>
  t.app.inject({ method: 'GET', url: '/api/account', headers: { authorization: `Bearer ${token}` } })
/** The audit records about one person, newest first. */
const auditOf = async (userId: string) =>
  (await t.app.services.auditLog.page({ targetId: userId }, 1, 50)).items.map((r) => [r.action, r.actorId, r.note])

describe('the people console routes', () => {
  it('finds people by e-mail, the beginning of a username and id, paged; private, never cached', async () => {
    const stem = `pager${Date.now().toString(36)}`
    const made = []
    for (let i = 0; i < 3; i++) {
      made.push(await t.login({ username: `${stem}_${i}`, email: `${stem}.${i}@example.test` }))
    }
    const exact = await get(`/api/admin/people?q=${encodeURIComponent(`${stem.toUpperCase()}.1@EXAMPLE.TEST`)}`)
    expect(exact.statusCode).toBe(200)
    expect(exact.headers['cache-control']).toBe('private, no-store')
    expect(exact.json().data.items.map((p: { id: string }) => p.id)).toEqual([made[1]?.user.id])

    const first = (await get(`/api/admin/people?q=${stem}_&pageSize=2`)).json().data
    expect(first).toMatchObject({ page: 1, pageSize: 2, hasMore: true })
    const second = (await get(`/api/admin/people?q=${stem}_&pageSize=2&page=2`)).json().data
    expect(second).toMatchObject({ page: 2, hasMore: false })
    const ids = [...first.items, ...second.items].map((p: { id: string }) => p.id).sort()
    expect(ids).toEqual(made.map((m) => m.user.id).sort())
    expect(first.items[0]).toMatchObject({ suspended: false, hasPassword: false, googleLinked: false })

    const byId = (await get(`/api/admin/people?q=${made[2]?.user.id}`)).json().data
    expect(byId.items).toMatchObject([{ id: made[2]?.user.id, username: `${stem}_2` }])
    expect((await get(`/api/admin/people?q=nobody-${stem}`)).json().data.items).toEqual([])
    for (const bad of ['', 'q=', 'q=a&page=0', 'q=a&pageSize=101']) {
      expect([bad, (await get(`/api/admin/people?${bad}`)).statusCode]).toEqual([bad, 400])
    }
  })

  it("shows a person's account, plan, balance and ledger, characters, reports and warnings; no chat", async () => {
    const other = await t.login()
    const otherRole = await createRole(t.database.db, { name: 'Reported by them', creatorId: other.user.id })
    const person = await t.login()
    const { roleId } = await fillAccount(t.database.db, person.user.id, 'DETAILMARK', otherRole)
    const res = await get(`/api/admin/people/${person.user.id}`)
    expect(res.statusCode).toBe(200)
    expect(res.headers['cache-control']).toBe('private, no-store')
    const data = res.json().data
    expect(data).toMatchObject({
      account: { id: person.user.id, email: person.user.email, username: person.user.username },
      suspended: null,
      plan: { planId: 'plus', status: 'active' },
      balance: 50,
      ledger: [{ amount: 50, reason: 'signup' }],
      characters: [{ publicId: roleId, name: 'Character DETAILMARK', visibility: 'public', hiddenBy: [] }],
      reportsMade: [{ characterId: otherRole, characterName: 'Reported by them', reason: 'spam', status: 'open' }],
      reportsReceived: [],
      warnings: [],
    })
    // Never a chat: fillAccount gave them one, its texts are nowhere in the answer.
    expect(res.body).not.toContain('Question DETAILMARK')
    expect(res.body).not.toContain('Memory DETAILMARK')
    expect((await get('/api/admin/people/00000000-0000-4000-8000-000000000000')).statusCode).toBe(404)
    expect((await get('/api/admin/people/not-a-uuid')).statusCode).toBe(400)
  })

  it('suspends: the open access token is refused at once and login says ACCOUNT_SUSPENDED; restore lets them in', async () => {
    const person = await t.login({ passwordHash })
    const roleId = await createRole(t.database.db, { name: 'Suspended creator role', creatorId: person.user.id })
    const { token } = (await login(person.user.email)).json().data
    expect((await account(token)).statusCode).toBe(200)

    const suspend = await post(`/api/admin/people/${person.user.id}/suspend`, { note: 'spam ring' })
    expect(suspend.statusCode).toBe(200)
    expect(suspend.json().data).toEqual({ changed: true })
    expect((await account(token)).statusCode).toBe(401)
    expect((await account(person.token)).statusCode).toBe(401)
    const refused = await login(person.user.email)
    expect([refused.statusCode, refused.json().error]).toEqual([403, 'ACCOUNT_SUSPENDED'])
    const shown = await detail(person.user.id)
    expect(shown.suspended).toMatchObject({ note: 'spam ring', by: admin.id, byName: admin.username })
    expect(shown.characters).toMatchObject([{ publicId: roleId, visibility: 'private', hiddenBy: ['suspension'] }])
    const found = (await get(`/api/admin/people?q=${encodeURIComponent(person.user.email)}`)).json().data.items
    expect(found).toMatchObject([{ id: person.user.id, suspended: true }])
    // Suspending again changes nothing and writes nothing.
    expect((await post(`/api/admin/people/${person.user.id}/suspend`, { note: 'again' })).json().data).toEqual({
      changed: false,
    })

    const restore = await post(`/api/admin/people/${person.user.id}/restore`, { note: 'cleared on appeal' })
    expect(restore.json().data).toEqual({ changed: true })
    const again = await login(person.user.email)
    expect(again.statusCode).toBe(200)
    expect((await account(again.json().data.token)).statusCode).toBe(200)
    expect((await detail(person.user.id)).characters).toMatchObject([{ visibility: 'public', hiddenBy: [] }])
    expect(await auditOf(person.user.id)).toEqual([
      ['user.restore', admin.id, 'cleared on appeal'],
      ['user.suspend', admin.id, 'spam ring'],
    ])
  })

  it('grants diamonds into the ledger and balance; a deduction below zero is refused and changes nothing', async () => {
    const person = await t.login()
    const grant = await post(`/api/admin/people/${person.user.id}/diamonds`, { amount: 120, note: 'goodwill' })
    expect(grant.statusCode).toBe(200)
    expect(grant.json().data).toEqual({ balance: 120 })
    const shown = await detail(person.user.id)
    expect(shown.balance).toBe(120)
    expect(shown.ledger).toMatchObject([{ amount: 120, reason: 'admin_grant' }])
    expect(shown.ledger[0].reference).toMatch(/^admin:/)

    const over = await post(`/api/admin/people/${person.user.id}/diamonds`, { amount: -121, note: 'too much' })
    expect([over.statusCode, over.json().error]).toEqual([409, 'BALANCE_BELOW_ZERO'])
    const deduct = await post(`/api/admin/people/${person.user.id}/diamonds`, { amount: -20, note: 'double grant' })
    expect(deduct.json().data).toEqual({ balance: 100 })
    for (const payload of [
      { amount: 0, note: 'n' },
      { amount: 1.5, note: 'n' },
      { amount: 1_000_001, note: 'n' },
    ]) {
      const bad = await post(`/api/admin/people/${person.user.id}/diamonds`, payload)
      expect([JSON.stringify(payload), bad.statusCode]).toEqual([JSON.stringify(payload), 400])
    }
    const entries = await t.database.db
      .select({ amount: diamondLedger.amount, reason: diamondLedger.reason })
      .from(diamondLedger)
      .where(eq(diamondLedger.userId, person.user.id))
      .orderBy(diamondLedger.id)
    expect(entries).toEqual([
      { amount: 120, reason: 'admin_grant' },
      { amount: -20, reason: 'admin_deduct' },
    ])
    expect(await auditOf(person.user.id)).toEqual([
      ['diamonds.deduct', admin.id, 'double grant'],
      ['diamonds.grant', admin.id, 'goodwill'],
    ])
  })

  it('warns (kept on their record) and resends the verification mail, one audit record each', async () => {
    const person = await t.login({ emailVerifiedAt: null })
    const warn = await post(`/api/admin/people/${person.user.id}/warn`, { note: 'tone it down' })
    expect(warn.statusCode).toBe(200)
    expect((await detail(person.user.id)).warnings).toMatchObject([{ note: 'tone it down' }])
    const resend = await post(`/api/admin/people/${person.user.id}/resend-verification`, { note: 'asked by mail' })
    expect(resend.json().data).toEqual({ sent: true })
    expect(await auditOf(person.user.id)).toEqual([
      ['user.resend-verification', admin.id, 'asked by mail'],
      ['user.warn', admin.id, 'tone it down'],
    ])
    // A verified address gets nothing, and nothing is written.
    const verified = await t.login()
    const none = await post(`/api/admin/people/${verified.user.id}/resend-verification`, { note: 'asked' })
    expect(none.json().data).toEqual({ sent: false })
    expect(await auditOf(verified.user.id)).toEqual([])
  })

  it('deletes the account as account deletion does, with one audit record', async () => {
    const person = await t.login({ passwordHash })
    const { roleId, orderId } = await fillAccount(t.database.db, person.user.id, 'GONEMARK')
    const privateRole = await createRole(t.database.db, {
      name: 'Private GONEMARK',
      creatorId: person.user.id,
      visibility: 'private',
    })
    const res = await post(`/api/admin/people/${person.user.id}/delete`, { note: 'asked to be forgotten' })
    expect(res.statusCode).toBe(200)
    expect(res.json().data).toEqual({ deleted: true })
    expect(await userExists(t.database.db, person.user.id)).toBe(false)
    expect((await account(person.token)).statusCode).toBe(401)
    expect((await login(person.user.email)).statusCode).toBe(401)
    expect(await creatorOf(t.database.db, privateRole)).toBeUndefined()
    expect(await creatorOf(t.database.db, roleId)).toBeNull()
    expect(await buyerOf(t.database.db, orderId)).toBeNull()
    expect(await ledgerEntries(t.database.db, `signup:${person.user.id}`)).toEqual([{ userId: null, amount: 50 }])
    expect(await auditOf(person.user.id)).toEqual([['user.delete', admin.id, 'asked to be forgotten']])
    expect((await post(`/api/admin/people/${person.user.id}/delete`, { note: 'again' })).statusCode).toBe(404)
  })

  it("refuses without a note, for an unknown person, on one's own account, and without a fresh code", async () => {
    const person = await t.login()
    const actions = ['suspend', 'restore', 'warn', 'delete', 'resend-verification']
    for (const action of actions) {
      for (const payload of [{}, { note: '   ' }]) {
        const res = await post(`/api/admin/people/${person.user.id}/${action}`, payload)
        expect([action, res.statusCode]).toEqual([action, 400])
      }
      const unknown = await post(`/api/admin/people/00000000-0000-4000-8000-000000000000/${action}`, { note: 'n' })
      expect([action, unknown.statusCode]).toEqual([action, 404])
    }
    expect((await post(`/api/admin/people/${person.user.id}/diamonds`, { amount: 5 })).statusCode).toBe(400)
    for (const [action, payload] of [
      ['suspend', { note: 'n' }],
      ['delete', { note: 'n' }],
      ['diamonds', { amount: 5, note: 'n' }],
    ] as const) {
      const own = await post(`/api/admin/people/${admin.id}/${action}`, payload)
      expect([action, own.statusCode, own.json().details?.reason]).toEqual([action, 409, 'own-account'])
    }
    expect(await auditOf(person.user.id)).toEqual([])
    expect(await auditOf(admin.id)).toMatchObject([
      ['staff.2fa-enable', admin.id, ''],
      ['staff.grant', null, ''],
    ])

    // Five minutes on, suspend, delete and diamonds ask for a new code; a current one lets them through.
    vi.useFakeTimers({ now: Date.now() + 5 * 60_000 + 1_000, toFake: ['Date'] })
    admin.token = await t.app.accessTokens.issue({ userId: admin.id })
    for (const [action, payload] of [
      ['suspend', { note: 'n' }],
      ['delete', { note: 'n' }],
      ['diamonds', { amount: 5, note: 'n' }],
    ] as const) {
      const stale = await post(`/api/admin/people/${person.user.id}/${action}`, payload)
      expect([action, stale.statusCode, stale.json().error]).toEqual([action, 403, 'CONFIRMATION_REQUIRED'])
    }
    expect((await post(`/api/admin/people/${person.user.id}/warn`, { note: 'still fine' })).statusCode).toBe(200)
    const confirm = await post('/api/admin/confirm', { code: totpCode(admin.secret, Date.now()) })
    expect(confirm.statusCode).toBe(200)
    const granted = await post(`/api/admin/people/${person.user.id}/diamonds`, { amount: 5, note: 'confirmed' })
    expect(granted.json().data).toEqual({ balance: 5 })
  })

  it('a moderator gets 403 on every people route, and changes nothing', async () => {
    const person = await t.login()
    const routes = t.app.adminRoutes.filter((r) => r.url.startsWith('/api/admin/people'))
    expect(routes).toHaveLength(8)
    for (const route of routes) {
      const url = route.url.replace(':userId', person.user.id)
      const res = await asStaff(moderator, {
        method: route.method as InjectOptions['method'],
        url: route.method === 'GET' && !url.includes(person.user.id) ? `${url}?q=${person.user.email}` : url,
        ...(route.method === 'POST' ? { payload: { note: 'n', amount: 5 } } : {}),
      })
      expect([route.url, route.method, res.statusCode, res.json().error]).toEqual([
        route.url,
        route.method,
        403,
        'FORBIDDEN',
      ])
    }
    expect(await userExists(t.database.db, person.user.id)).toBe(true)
    expect(await auditOf(person.user.id)).toEqual([])
    expect((await account(person.token)).statusCode).toBe(200)
  })
})
