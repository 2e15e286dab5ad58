import { sql } from 'drizzle-orm'
import type { InjectOptions } from 'fastify'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { TOKENS_ENDED_KEY } from '#server/modules/auth/access-token.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'
import { runAdminCli } from './admin-cli.ts'
import { CONSOLE_TOKEN_HEADER } from './console-sessions.ts'
import { totpCode } from './totp.ts'

// The console's foundation (ADR 054), through the API on PGlite (or PostgreSQL with TEST_DATABASE_URL).
let t: TestApp
beforeAll(async () => {
  t = await buildTestApp()
})
afterAll(async () => t?.close())
afterEach(() => vi.useRealTimers())

type Person = { id: string; email: string; token: string; console?: string; secret?: string; recovery?: string[] }

function cli(...argv: string[]) {
  const out: string[] = []
  const err: string[] = []
  return runAdminCli(argv, t.app.services.staff, { log: (l) => out.push(l), error: (l) => err.push(l) }).then(
    (code) => ({ code, out: out.join('\n'), err: err.join('\n') }),
  )
}

async function person(): Promise<Person> {
  const { user, token } = await t.login()
  return { id: user.id, email: user.email, token }
}

function call(who: Person | null, request: InjectOptions) {
  const headers: Record<string, string> = { ...(request.headers as Record<string, string>) }
  if (who) headers.authorization = `Bearer ${who.token}`
  if (who?.console) headers[CONSOLE_TOKEN_HEADER] = who.console
  return t.app.inject({ remoteAddress: '203.0.113.9', ...request, headers })
}

/** Steps the clock (Date only) by `ms`, so a new TOTP step comes. */
function advance(ms: number) {
  vi.useFakeTimers({ now: Date.now() + ms, toFake: ['Date'] })
}

async function enroll(who: Person) {
  const setup = await call(who, { method: 'POST', url: '/api/admin/2fa/setup' })
  expect(setup.statusCode).toBe(200)
  who.secret = setup.json().data.secret as string
  const enable = await call(who, {
    method: 'POST',
    url: '/api/admin/2fa/enable',
    payload: { code: totpCode(who.secret, Date.now()) },
  })
  expect(enable.statusCode).toBe(200)
  who.console = enable.json().data.consoleToken
  who.recovery = enable.json().data.recoveryCodes
}

async function staffMember(role: 'admin' | 'moderator') {
  const who = await person()
  expect((await cli('grant', who.email, '--role', role)).code).toBe(0)
  await enroll(who)
  return who
}

describe('npm run admin', () => {
  it('grants, lists and revokes by e-mail, audited as cli', async () => {
    const who = await person()
    const granted = await cli('grant', who.email.toUpperCase())
    expect(granted).toMatchObject({ code: 0 })
    expect(granted.out).toContain('is now admin')
    expect(await t.app.services.staff.roleOf(who.id)).toBe('admin')
    expect((await cli('grant', who.email, '--role', 'moderator')).code).toBe(0)
    expect(await t.app.services.staff.roleOf(who.id)).toBe('moderator')
    const list = await cli('list')
    expect(list.out).toMatch(new RegExp(`moderator\\s+${who.email}`))
    expect((await cli('revoke', who.email)).code).toBe(0)
    expect(await t.app.services.staff.roleOf(who.id)).toBeNull()

    const audit = await t.app.services.auditLog.page({ targetId: who.id }, 1, 10)
    expect(audit.items.map((r) => [r.action, r.actorId, r.actorLabel])).toEqual([
      ['staff.revoke', null, 'cli'],
      ['staff.grant', null, 'cli'],
      ['staff.grant', null, 'cli'],
    ])
  })

  it('refuses an unknown e-mail, a bad role and a bad command with a message and a non-zero exit', async () => {
    const unknown = await cli('grant', 'nobody@example.test')
    expect(unknown.code).toBe(1)
    expect(unknown.err).toContain('No account has the e-mail address nobody@example.test')
    const who = await person()
    expect((await cli('grant', who.email, '--role', 'owner')).code).toBe(2)
    expect((await cli('revoke', who.email)).code).toBe(1)
    expect((await cli('promote', who.email)).code).toBe(2)
    expect((await cli('grant')).code).toBe(2)
    expect(await t.app.services.staff.roleOf(who.id)).toBeNull()
  })
})

// Every console route and who may call it: a route added without a row here fails the first test.
const ROUTES: Record<string, { role: 'admin' | 'moderator'; secondFactor: boolean; fresh: boolean; body?: object }> = {
  'GET /api/admin/me': { role: 'moderator', secondFactor: false, fresh: false },
  'POST /api/admin/2fa/setup': { role: 'moderator', secondFactor: false, fresh: false },
  'POST /api/admin/2fa/enable': { role: 'moderator', secondFactor: false, fresh: false, body: { code: '000000' } },
  'POST /api/admin/2fa/verify': { role: 'moderator', secondFactor: false, fresh: false, body: { code: '000000' } },
  'POST /api/admin/confirm': { role: 'moderator', secondFactor: true, fresh: false, body: { code: '000000' } },
  'GET /api/admin/staff': { role: 'admin', secondFactor: true, fresh: false },
  'POST /api/admin/staff/grant': { role: 'admin', secondFactor: true, fresh: true, body: { email: 'x@example.test' } },
  'POST /api/admin/staff/revoke': { role: 'admin', secondFactor: true, fresh: true, body: { email: 'x@example.test' } },
  'POST /api/admin/staff/reset-2fa': {
    role: 'admin',
    secondFactor: true,
    fresh: true,
    body: { email: 'x@example.test' },
  },
  'GET /api/admin/audit': { role: 'admin', secondFactor: true, fresh: false },
  'GET /api/admin/audit.csv': { role: 'admin', secondFactor: true, fresh: false },
  // The health dashboard (ADR 057): admins only.
  'GET /api/admin/health/daily': { role: 'admin', secondFactor: true, fresh: false },
  'GET /api/admin/health/jobs': { role: 'admin', secondFactor: true, fresh: false },
  'POST /api/admin/health/jobs/retry': {
    role: 'admin',
    secondFactor: true,
    fresh: false,
    body: { id: 1, note: 'route table' },
  },
  'GET /api/admin/health/models': { role: 'admin', secondFactor: true, fresh: false },
  // Money (ADR 056): admin only; a refund and a cancel need a fresh confirmation.
  'GET /api/admin/money/orders': { role: 'admin', secondFactor: true, fresh: false },
  'GET /api/admin/money/orders/:id': { role: 'admin', secondFactor: true, fresh: false },
  'GET /api/admin/money/orders/:id/refund-preview': { role: 'admin', secondFactor: true, fresh: false },
  'POST /api/admin/money/orders/:id/refund': { role: 'admin', secondFactor: true, fresh: true, body: { note: 'x' } },
  'GET /api/admin/money/subscriptions': { role: 'admin', secondFactor: true, fresh: false },
  'POST /api/admin/money/subscriptions/:userId/cancel': {
    role: 'admin',
    secondFactor: true,
    fresh: true,
    body: { when: 'now', note: 'x' },
  },
  'GET /api/admin/money/webhooks': { role: 'admin', secondFactor: true, fresh: false },
  'GET /api/admin/money/btcpay': { role: 'admin', secondFactor: true, fresh: false },
  'POST /api/admin/money/btcpay/:id/refresh': { role: 'admin', secondFactor: true, fresh: false },
  // Tag moderation and featured characters (ADR 059): moderators; the tag policy is an admin's.
  'GET /api/admin/tags': { role: 'moderator', secondFactor: true, fresh: false },
  'POST /api/admin/tags/:slug/rename': {
    role: 'moderator',
    secondFactor: true,
    fresh: false,
    body: { names: { en: 'x' }, note: 'x' },
  },
  'POST /api/admin/tags/:slug/merge': {
    role: 'moderator',
    secondFactor: true,
    fresh: false,
    body: { into: 'y', note: 'x' },
  },
  'POST /api/admin/tags/:slug/hide': { role: 'moderator', secondFactor: true, fresh: false, body: { note: 'x' } },
  'POST /api/admin/tags/:slug/unhide': { role: 'moderator', secondFactor: true, fresh: false, body: { note: 'x' } },
  'POST /api/admin/tags/:slug/approve': { role: 'moderator', secondFactor: true, fresh: false, body: { note: 'x' } },
  'GET /api/admin/tags/policy': { role: 'moderator', secondFactor: true, fresh: false },
  'POST /api/admin/tags/policy': {
    role: 'admin',
    secondFactor: true,
    fresh: false,
    body: { userTagsStartHidden: false, note: 'x' },
  },
  'GET /api/admin/featured': { role: 'moderator', secondFactor: true, fresh: false },
  'POST /api/admin/featured': { role: 'moderator', secondFactor: true, fresh: false, body: { roleId: 'x', note: 'x' } },
  'POST /api/admin/featured/remove': {
    role: 'moderator',
    secondFactor: true,
    fresh: false,
    body: { roleId: 'x', note: 'x' },
  },
  'POST /api/admin/featured/order': {
    role: 'moderator',
    secondFactor: true,
    fresh: false,
    body: { roleIds: ['x'], note: 'x' },
  },
  // People (ADR 060): admin only (moderators handle content); suspend, delete and diamonds need a fresh confirmation.
  'GET /api/admin/people': { role: 'admin', secondFactor: true, fresh: false },
  'GET /api/admin/people/:userId': { role: 'admin', secondFactor: true, fresh: false },
  'POST /api/admin/people/:userId/suspend': { role: 'admin', secondFactor: true, fresh: true, body: { note: 'x' } },
  'POST /api/admin/people/:userId/restore': { role: 'admin', secondFactor: true, fresh: false, body: { note: 'x' } },
  'POST /api/admin/people/:userId/warn': { role: 'admin', secondFactor: true, fresh: false, body: { note: 'x' } },
  'POST /api/admin/people/:userId/delete': { role: 'admin', secondFactor: true, fresh: true, body: { note: 'x' } },
  'POST /api/admin/people/:userId/resend-verification': {
    role: 'admin',
    secondFactor: true,
    fresh: false,
    body: { note: 'x' },
  },
  'POST /api/admin/people/:userId/diamonds': {
    role: 'admin',
    secondFactor: true,
    fresh: true,
    body: { amount: 1, note: 'x' },
  },
  // Moderation (ADR 058): content for moderators; suspending an account is an admin's, freshly confirmed.
  'GET /api/admin/moderation/reports': { role: 'moderator', secondFactor: true, fresh: false },
  'GET /api/admin/moderation/characters/:characterId': { role: 'moderator', secondFactor: true, fresh: false },
  'POST /api/admin/moderation/characters/:characterId/reports': {
    role: 'moderator',
    secondFactor: true,
    fresh: false,
    body: { action: 'dismiss', note: 'x' },
  },
  'POST /api/admin/moderation/characters/:characterId/reports/suspend-creator': {
    role: 'admin',
    secondFactor: true,
    fresh: true,
    body: { note: 'x' },
  },
  'POST /api/admin/moderation/characters/:characterId/actions': {
    role: 'moderator',
    secondFactor: true,
    fresh: false,
    body: { action: 'hide', note: 'x' },
  },
}
/** The gate's own refusals: a route past the gate may still refuse (a wrong code), never with these. */
const GATE_ERRORS = ['UNAUTHORIZED', 'STAFF_ONLY', 'FORBIDDEN', 'SECOND_FACTOR_REQUIRED', 'CONFIRMATION_REQUIRED']
const passedGate = (res: { statusCode: number; json(): { error?: string } }) =>
  res.statusCode < 400 || !GATE_ERRORS.includes(res.json().error ?? '')
const request = (route: string, body?: object): InjectOptions => {
  const [method = 'GET', url = ''] = route.split(' ')
  return { method: method as InjectOptions['method'], url, ...(body ? { payload: body } : {}) }
}

describe('the gate', () => {
  it('knows every console route from the route table', () => {
    const registered = t.app.adminRoutes.map((r) => `${r.method} ${r.url}`).sort()
    expect(registered).toEqual(Object.keys(ROUTES).sort())
  })

  it('refuses a stranger (401) and a user who is not staff (403 STAFF_ONLY) on every route, before the body is read', async () => {
    const user = await person()
    for (const route of t.app.adminRoutes) {
      const key = `${route.method} ${route.url}`
      // A body that fails validation: a refusal before reading it answers 401/403, never 400.
      const bad = route.method === 'POST' ? { payload: { code: 42, email: [] } } : {}
      const anonymous = await call(null, { ...request(key), ...bad })
      expect([key, anonymous.statusCode, anonymous.json().error]).toEqual([key, 401, 'UNAUTHORIZED'])
      const normal = await call(user, { ...request(key), ...bad })
      expect([key, normal.statusCode, normal.json().error]).toEqual([key, 403, 'STAFF_ONLY'])
    }
  })

  it('lets a moderator only where a moderator may, and only with a verified second factor', async () => {
    const moderator = await staffMember('moderator')
    const locked = { ...moderator, console: undefined }
    for (const [key, rule] of Object.entries(ROUTES)) {
      const res = await call(moderator, request(key, rule.body))
      if (rule.role === 'admin') expect([key, res.statusCode, res.json().error]).toEqual([key, 403, 'FORBIDDEN'])
      else expect([key, passedGate(res)]).toEqual([key, true])
      if (rule.role === 'moderator' && rule.secondFactor) {
        const without = await call(locked, request(key, rule.body))
        expect([key, without.statusCode, without.json().error]).toEqual([key, 403, 'SECOND_FACTOR_REQUIRED'])
      }
    }
  })

  it('lets an admin everywhere with a verified second factor; sensitive actions need a fresh confirmation', async () => {
    const admin = await staffMember('admin')
    const locked = { ...admin, console: undefined }
    for (const [key, rule] of Object.entries(ROUTES)) {
      if (rule.secondFactor) {
        const without = await call(locked, request(key, rule.body))
        expect([key, without.statusCode, without.json().error]).toEqual([key, 403, 'SECOND_FACTOR_REQUIRED'])
      }
    }
    // Just verified: fresh. Five minutes on: the sensitive ones ask again, the others still answer.
    advance(5 * 60_000 + 1_000)
    admin.token = await t.app.accessTokens.issue({ userId: admin.id })
    for (const [key, rule] of Object.entries(ROUTES)) {
      const res = await call(admin, request(key, rule.body))
      if (rule.fresh) expect([key, res.statusCode, res.json().error]).toEqual([key, 403, 'CONFIRMATION_REQUIRED'])
      else expect([key, passedGate(res)]).toEqual([key, true])
    }
  })

  it("reads the role on every call: a revoke counts at the revoked member's next request", async () => {
    const admin = await staffMember('admin')
    const moderator = await staffMember('moderator')
    expect((await call(moderator, { method: 'GET', url: '/api/admin/me' })).json().data).toMatchObject({
      role: 'moderator',
      secondFactor: 'enabled',
      unlocked: true,
      recoveryCodesLeft: 10,
    })
    const revoke = await call(admin, {
      method: 'POST',
      url: '/api/admin/staff/revoke',
      payload: { email: moderator.email, note: 'left' },
    })
    expect(revoke.statusCode).toBe(200)
    const after = await call(moderator, { method: 'GET', url: '/api/admin/me' })
    expect([after.statusCode, after.json().error]).toEqual([403, 'STAFF_ONLY'])
    // Granted again, the old second factor and console token are gone: enroll anew.
    const grant = await call(admin, {
      method: 'POST',
      url: '/api/admin/staff/grant',
      payload: { email: moderator.email, role: 'moderator' },
    })
    expect(grant.statusCode).toBe(200)
    expect((await call(moderator, { method: 'GET', url: '/api/admin/me' })).json().data).toMatchObject({
      role: 'moderator',
      secondFactor: 'none',
    })
    const actions = (await call(admin, { method: 'GET', url: `/api/admin/audit?targetId=${moderator.id}` })).json().data
      .items
    expect(
      actions.map((r: { action: string; actorId: string; note: string }) => [r.action, r.actorId, r.note]),
    ).toEqual([
      ['staff.grant', admin.id, ''],
      ['staff.revoke', admin.id, 'left'],
      ['staff.2fa-enable', moderator.id, ''],
      ['staff.grant', null, ''],
    ])
  })

  it('ends the console token when its owner logs out everywhere', async () => {
    const admin = await staffMember('admin')
    expect((await call(admin, { method: 'GET', url: '/api/admin/staff' })).statusCode).toBe(200)
    await t.kv.set(TOKENS_ENDED_KEY(admin.id), String(Date.now()), 60_000)
    advance(1_000)
    admin.token = await t.app.accessTokens.issue({ userId: admin.id })
    const res = await call(admin, { method: 'GET', url: '/api/admin/staff' })
    expect([res.statusCode, res.json().error]).toEqual([403, 'SECOND_FACTOR_REQUIRED'])
  })
})

describe('the second factor', () => {
  it('accepts each code once (replay refused), and the next step’s code', async () => {
    const admin = await staffMember('admin')
    const secret = admin.secret ?? ''
    // The enabling code's step is spent.
    const replay = await call(admin, {
      method: 'POST',
      url: '/api/admin/2fa/verify',
      payload: { code: totpCode(secret, Date.now()) },
    })
    expect([replay.statusCode, replay.json().error]).toEqual([403, 'INVALID_SECOND_FACTOR_CODE'])
    advance(30_000)
    const code = totpCode(secret, Date.now())
    const first = await call(admin, { method: 'POST', url: '/api/admin/2fa/verify', payload: { code } })
    expect(first.statusCode).toBe(200)
    expect(first.json().data.usedRecoveryCode).toBe(false)
    const again = await call(admin, { method: 'POST', url: '/api/admin/2fa/verify', payload: { code } })
    expect([again.statusCode, again.json().error]).toEqual([403, 'INVALID_SECOND_FACTOR_CODE'])
    // An earlier step's code, still inside the drift, is refused too once a later one was used.
    advance(30_000)
    expect((await call(admin, { method: 'POST', url: '/api/admin/confirm', payload: { code } })).statusCode).toBe(403)
    // The console token the verify gave opens the console.
    const opened = { ...admin, console: first.json().data.consoleToken }
    expect((await call(opened, { method: 'GET', url: '/api/admin/audit' })).statusCode).toBe(200)
  })

  it('takes a recovery code once, in any case', async () => {
    const moderator = await staffMember('moderator')
    const [recovery = ''] = moderator.recovery ?? []
    const used = await call(moderator, {
      method: 'POST',
      url: '/api/admin/2fa/verify',
      payload: { code: recovery.toUpperCase() },
    })
    expect(used.statusCode).toBe(200)
    expect(used.json().data.usedRecoveryCode).toBe(true)
    const again = await call(moderator, { method: 'POST', url: '/api/admin/2fa/verify', payload: { code: recovery } })
    expect([again.statusCode, again.json().error]).toEqual([403, 'INVALID_SECOND_FACTOR_CODE'])
    expect((await call(moderator, { method: 'GET', url: '/api/admin/me' })).json().data.recoveryCodesLeft).toBe(9)
  })

  it('cannot be set up again once enabled, and keeps its secret encrypted at rest', async () => {
    const moderator = await staffMember('moderator')
    const again = await call(moderator, { method: 'POST', url: '/api/admin/2fa/setup' })
    expect([again.statusCode, again.json().error]).toEqual([409, 'CONFLICT'])
    const rows = await t.database.db.execute(
      sql`select secret_encrypted from staff_second_factors where user_id = ${moderator.id}`,
    )
    const stored = JSON.stringify(rows)
    expect(stored).not.toContain(moderator.secret)
    expect(stored).toContain('v1.')
  })

  it('refreshes a confirmation with a current code', async () => {
    const admin = await staffMember('admin')
    advance(6 * 60_000)
    admin.token = await t.app.accessTokens.issue({ userId: admin.id })
    const target = await person()
    const grant = {
      method: 'POST' as const,
      url: '/api/admin/staff/grant',
      payload: { email: target.email, role: 'moderator' },
    }
    expect((await call(admin, grant)).json().error).toBe('CONFIRMATION_REQUIRED')
    const wrong = await call(admin, { method: 'POST', url: '/api/admin/confirm', payload: { code: '000000' } })
    expect(wrong.json().error).toBe('INVALID_SECOND_FACTOR_CODE')
    const confirm = await call(admin, {
      method: 'POST',
      url: '/api/admin/confirm',
      payload: { code: totpCode(admin.secret ?? '', Date.now()) },
    })
    expect(confirm.statusCode).toBe(200)
    expect((await call(admin, grant)).statusCode).toBe(200)
    expect(await t.app.services.staff.roleOf(target.id)).toBe('moderator')
  })

  it('limits wrong codes per account and source; another source is not locked out', async () => {
    const moderator = await staffMember('moderator')
    const wrong = (ip: string) =>
      call(moderator, { method: 'POST', url: '/api/admin/2fa/verify', payload: { code: '000000' }, remoteAddress: ip })
    for (let i = 0; i < 5; i++) expect((await wrong('198.51.100.1')).json().error).toBe('INVALID_SECOND_FACTOR_CODE')
    const limited = await wrong('198.51.100.1')
    expect([limited.statusCode, limited.json().error]).toEqual([429, 'RATE_LIMITED'])
    advance(30_000)
    const owner = await call(moderator, {
      method: 'POST',
      url: '/api/admin/2fa/verify',
      payload: { code: totpCode(moderator.secret ?? '', Date.now()) },
      remoteAddress: '192.0.2.44',
    })
    expect(owner.statusCode).toBe(200)
  })
})

describe('the audit log', () => {
  it('is append-only in the database: UPDATE, DELETE and TRUNCATE are refused', async () => {
    const who = await person()
    await cli('grant', who.email)
    await expect(t.database.db.execute(sql`update admin_audit set note = 'changed'`)).rejects.toThrow()
    await expect(t.database.db.execute(sql`delete from admin_audit`)).rejects.toThrow()
    await expect(t.database.db.execute(sql`truncate admin_audit`)).rejects.toThrow()
    const page = await t.app.services.auditLog.page({ targetId: who.id }, 1, 10)
    expect(page.items.map((r) => r.note)).toEqual([''])
  })

  it('pages and filters, and exports CSV with formulas disarmed', async () => {
    const admin = await staffMember('admin')
    const target = await person()
    const note = '=HYPERLINK("http://evil.test","click"), "quoted"'
    expect(
      (await call(admin, { method: 'POST', url: '/api/admin/staff/grant', payload: { email: target.email, note } }))
        .statusCode,
    ).toBe(200)
    const page = (
      await call(admin, { method: 'GET', url: `/api/admin/audit?actorId=${admin.id}&action=staff.grant&pageSize=1` })
    ).json().data
    expect(page).toMatchObject({ page: 1, pageSize: 1, total: 1 })
    expect(page.items[0]).toMatchObject({
      actorLabel: expect.any(String),
      targetId: target.id,
      note,
      details: { email: target.email, role: 'moderator', before: null },
    })
    const bad = await call(admin, { method: 'GET', url: '/api/admin/audit?targetType=planet' })
    expect(bad.statusCode).toBe(400)

    const csv = await call(admin, { method: 'GET', url: `/api/admin/audit.csv?targetId=${target.id}` })
    expect(csv.statusCode).toBe(200)
    expect(csv.headers['content-type']).toContain('text/csv')
    const lines = csv.body.trimEnd().split('\r\n')
    expect(lines).toHaveLength(2)
    expect(lines[1]).toContain(`"'=HYPERLINK(""http://evil.test"",""click""), ""quoted"""`)
  })
})
