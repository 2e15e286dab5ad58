import type { InjectOptions } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runAdminCli } from '#server/modules/staff/admin-cli.ts'
import { CONSOLE_TOKEN_HEADER } from '#server/modules/staff/console-sessions.ts'
import { totpCode } from '#server/modules/staff/totp.ts'
import { createRole, createTags } from '#tests/factories/catalogue.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

// The moderation console's routes (ADR 058) through HTTP, on PGlite (or PostgreSQL with
// TEST_DATABASE_URL): the queue, a reported character, each outcome, the direct actions.

let t: TestApp
type Person = { id: string; email: string; token: string; console?: string }
let moderator: Person
let admin: Person

async function staffMember(role: 'admin' | 'moderator'): Promise<Person> {
  const { user, token } = await t.login()
  const quiet = { log: () => {}, error: () => {} }
  expect(await runAdminCli(['grant', user.email, '--role', role], t.app.services.staff, quiet)).toBe(0)
  const who: Person = { id: user.id, email: user.email, token }
  const setup = await call(who, { method: 'POST', url: '/api/admin/2fa/setup' })
  const code = totpCode(setup.json().data.secret as string, Date.now())
  const enable = await call(who, { method: 'POST', url: '/api/admin/2fa/enable', payload: { code } })
  who.console = enable.json().data.consoleToken
  return who
}

function call(who: Person | null, request: InjectOptions) {
  const headers: Record<string, string> = { ...(request.headers as Record<string, string>) }
  if (who) headers.authorization = `Bearer ${who.token}`
  if (who?.console) headers[CONSOLE_TOKEN_HEADER] = who.console
  return t.app.inject({ remoteAddress: '203.0.113.20', ...request, headers })
}

beforeAll(async () => {
  t = await buildTestApp()
  moderator = await staffMember('moderator')
  admin = await staffMember('admin')
  await createTags(t.database.db, [{ slug: 'consoletag', names: { en: 'Console tag', fr: 'Étiquette console' } }])
})
afterAll(async () => t?.close())

const queue = (who: Person, query = '') => call(who, { method: 'GET', url: `/api/admin/moderation/reports${query}` })
const queueIds = async (who: Person = moderator) =>
  ((await queue(who, '?pageSize=100')).json().data.items as { character: { id: string } }[]).map((i) => i.character.id)
const detail = (who: Person, id: string, query = '') =>
  call(who, { method: 'GET', url: `/api/admin/moderation/characters/${id}${query}` })
const handle = (who: Person, id: string, action: string, note: string) =>
  call(who, { method: 'POST', url: `/api/admin/moderation/characters/${id}/reports`, payload: { action, note } })
const act = (who: Person, id: string, action: string, note: string) =>
  call(who, { method: 'POST', url: `/api/admin/moderation/characters/${id}/actions`, payload: { action, note } })
const report = (roleId: string, reason: string, token?: string) =>
  t.app.inject({
    method: 'POST',
    url: `/api/roles/${roleId}/report`,
    payload: { reason, text: `it is ${reason}` },
    remoteAddress: '198.51.100.7',
    ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
  })
const listed = async (query: string) =>
  ((await t.app.inject({ method: 'GET', url: `/api/roles${query}` })).json().data.items as { roleId: string }[]).map(
    (r) => r.roleId,
  )
const outcomeSeenBy = async (token: string, roleId: string) => {
  const res = await t.app.inject({
    method: 'GET',
    url: '/api/reports/mine',
    headers: { authorization: `Bearer ${token}` },
  })
  return (res.json().data.items as { characterId: string; outcome: string | null }[]).find(
    (r) => r.characterId === roleId,
  )?.outcome
}
const auditActions = async (targetId: string) =>
  (await t.app.services.auditLog.page({ targetId }, 1, 50)).items.map((r) => [r.action, r.note])

/** A public character of a fresh creator, with `reporters` signed-in reports (and one anonymous). */
async function reported(name: string, reasons: string[], options: { anonymous?: boolean } = {}) {
  const creator = await t.login()
  const roleId = await createRole(t.database.db, {
    name,
    creatorId: creator.user.id,
    introduction: `${name} guards the bridge.`,
    firstMessage: `*${name} bows.* Welcome.`,
    tagSlugs: ['consoletag'],
  })
  const reporters = []
  for (const reason of reasons) {
    const reporter = await t.login()
    expect((await report(roleId, reason, reporter.token)).statusCode).toBe(200)
    reporters.push(reporter)
  }
  if (options.anonymous) expect((await report(roleId, 'other')).statusCode).toBe(200)
  return { roleId, creator, reporters }
}

describe('the reports queue', () => {
  it('lists reported characters most reported first, paged, with reasons, reporters and the creator; no e-mail', async () => {
    const most = await reported('Queue Quartermaster', ['spam', 'spam'], { anonymous: true })
    const less = await reported('Queue Lamplighter', ['hate'])

    const res = await queue(moderator, '?pageSize=100')
    expect(res.statusCode).toBe(200)
    expect(res.headers['cache-control']).toContain('no-store')
    const items = res.json().data.items as { character: { id: string } }[]
    const ids = items.map((i) => i.character.id)
    expect(ids.indexOf(most.roleId)).toBeLessThan(ids.indexOf(less.roleId))
    expect(items.find((i) => i.character.id === most.roleId)).toMatchObject({
      character: {
        name: 'Queue Quartermaster',
        isAdult: false,
        visibility: 'public',
        hidden: false,
        creator: { id: most.creator.user.id, username: most.creator.user.username },
      },
      reports: 3,
      reporters: 3,
      reasons: [
        { reason: 'spam', count: 2 },
        { reason: 'other', count: 1 },
      ],
    })
    const body = res.body
    for (const person of [most.creator, ...most.reporters, less.creator]) expect(body).not.toContain(person.user.email)

    const first = (await queue(moderator, '?pageSize=1')).json().data
    expect(first).toMatchObject({ page: 1, pageSize: 1, hasMore: true })
    expect(first.items).toHaveLength(1)
    expect(first.total).toBeGreaterThanOrEqual(2)
    const second = (await queue(moderator, '?pageSize=1&page=2')).json().data
    expect(second.items[0].character.id).not.toBe(first.items[0].character.id)
  })

  it('shows one character as users see it, its open reports with reporter ids only, in any state', async () => {
    const { roleId, creator, reporters } = await reported('Detail Dragoman', ['impersonation'], { anonymous: true })
    const res = await detail(moderator, roleId, '?locale=fr')
    expect(res.statusCode).toBe(200)
    const data = res.json().data
    expect(data.character).toMatchObject({
      id: roleId,
      name: 'Detail Dragoman',
      introduction: 'Detail Dragoman guards the bridge.',
      greeting: '*Detail Dragoman bows.* Welcome.',
      tags: [{ slug: 'consoletag', name: 'Étiquette console' }],
      visibility: 'public',
      hiddenCauses: [],
      creator: { id: creator.user.id, username: creator.user.username },
    })
    expect(data.openReports).toMatchObject([
      { reason: 'impersonation', text: 'it is impersonation', reporterId: reporters[0]?.user.id },
      { reason: 'other', reporterId: null },
    ])
    expect(data.closedReports).toEqual([])
    expect(res.body).not.toContain(reporters[0]?.user.email)
    expect(res.body).not.toContain(creator.user.email)

    // Hidden (private for everyone else), the console still reads it, and says why.
    expect((await act(moderator, roleId, 'hide', 'checking')).statusCode).toBe(200)
    expect((await t.app.inject({ method: 'GET', url: `/api/role?roleId=${roleId}` })).statusCode).toBe(404)
    const hidden = (await detail(moderator, roleId)).json().data
    expect(hidden.character).toMatchObject({ visibility: 'private', hiddenCauses: ['moderation'] })
    expect((await detail(moderator, 'rnosuchcharacter')).statusCode).toBe(404)
  })
})

describe('handling reports', () => {
  it('hide: the character leaves the listing, the queue empties of it, the reporter sees "hidden", all audited', async () => {
    const { roleId, reporters } = await reported('Handled Harbourmaster', ['spam', 'hate'])
    expect(await listed('?q=harbourmaster')).toContain(roleId)

    const res = await handle(moderator, roleId, 'hide', 'Advertises a scam site')
    expect(res.statusCode).toBe(200)
    expect(res.json().data).toEqual({ closed: 2 })
    expect(await listed('?q=harbourmaster')).not.toContain(roleId)
    expect(await queueIds()).not.toContain(roleId)
    for (const reporter of reporters) expect(await outcomeSeenBy(reporter.token, roleId)).toBe('hidden')
    expect(await auditActions(roleId)).toEqual([['character.hide', 'Advertises a scam site']])
    const closed = (await detail(moderator, roleId)).json().data
    expect(closed.openReports).toEqual([])
    expect(closed.closedReports.map((r: { outcome: string }) => r.outcome)).toEqual(['hidden', 'hidden'])
  })

  it('refuses without a note (400) and changes nothing', async () => {
    const { roleId, reporters } = await reported('Noteless Navigator', ['violence'])
    const res = await handle(moderator, roleId, 'hide', '   ')
    expect([res.statusCode, res.json().error]).toEqual([400, 'VALIDATION_ERROR'])
    expect(await queueIds()).toContain(roleId)
    expect(await outcomeSeenBy(reporters[0]?.token ?? '', roleId)).toBeNull()
    expect(await listed('?q=navigator')).toContain(roleId)
    expect(await auditActions(roleId)).toEqual([])
  })

  it('dismiss leaves the character listed; mark 18+ marks it; warn keeps a warning on the creator', async () => {
    const dismissed = await reported('Dismissed Diver', ['other'])
    expect((await handle(moderator, dismissed.roleId, 'dismiss', 'Nothing wrong')).json().data).toEqual({ closed: 1 })
    expect(await outcomeSeenBy(dismissed.reporters[0]?.token ?? '', dismissed.roleId)).toBe('dismissed')
    expect(await listed('?q=diver')).toContain(dismissed.roleId)

    const adult = await reported('Adult Alchemist', ['unmarked_adult'])
    expect((await handle(moderator, adult.roleId, 'mark_adult', 'Explicit intro')).statusCode).toBe(200)
    expect(await outcomeSeenBy(adult.reporters[0]?.token ?? '', adult.roleId)).toBe('marked_adult')
    expect((await detail(moderator, adult.roleId)).json().data.character.isAdult).toBe(true)

    const warned = await reported('Warned Wanderer', ['hate'])
    expect((await handle(moderator, warned.roleId, 'warn', 'Slurs in the greeting')).statusCode).toBe(200)
    expect(await outcomeSeenBy(warned.reporters[0]?.token ?? '', warned.roleId)).toBe('warned')
    const person = await t.app.services.moderation.personDetail(warned.creator.user.id)
    expect(person.warnings.map((w) => w.note)).toEqual(['Slurs in the greeting'])
  })

  it('suspending the creator is refused to a moderator (403) and done by an admin: their logins end', async () => {
    const { roleId, creator, reporters } = await reported('Suspended Smuggler', ['illegal'])
    const url = `/api/admin/moderation/characters/${roleId}/reports/suspend-creator`
    const refused = await call(moderator, { method: 'POST', url, payload: { note: 'Repeat offender' } })
    expect([refused.statusCode, refused.json().error]).toEqual([403, 'FORBIDDEN'])
    // The moderator's route does not take the outcome either.
    expect((await handle(moderator, roleId, 'suspend', 'Repeat offender')).statusCode).toBe(400)
    expect(await queueIds()).toContain(roleId)

    const done = await call(admin, { method: 'POST', url, payload: { note: 'Repeat offender' } })
    expect([done.statusCode, done.json().data]).toEqual([200, { closed: 1 }])
    expect(await outcomeSeenBy(reporters[0]?.token ?? '', roleId)).toBe('suspended')
    const own = await t.app.inject({
      method: 'GET',
      url: '/api/my/roles',
      headers: { authorization: `Bearer ${creator.token}` },
    })
    expect(own.statusCode).toBe(401)
    expect(await listed('?q=smuggler')).not.toContain(roleId)
  })
})

describe('direct character actions', () => {
  it('hide, restore, mark and unmark from a typed id; open reports stay open; repeats change nothing', async () => {
    const { roleId } = await reported('Direct Dowser', ['spam'])
    expect((await act(moderator, roleId, 'hide', 'Pending a look')).json().data).toEqual({ changed: true })
    expect((await act(moderator, roleId, 'hide', 'Again')).json().data).toEqual({ changed: false })
    expect(await listed('?q=dowser')).not.toContain(roleId)
    expect(await queueIds()).toContain(roleId)
    const queued = (await queue(moderator, '?pageSize=100'))
      .json()
      .data.items.find((i: { character: { id: string } }) => i.character.id === roleId)
    expect(queued.character).toMatchObject({ hidden: true, visibility: 'private' })

    expect((await act(moderator, roleId, 'restore', 'Looked fine')).json().data).toEqual({ changed: true })
    expect(await listed('?q=dowser')).toContain(roleId)
    const adult = async () => (await detail(moderator, roleId)).json().data.character.isAdult
    expect((await act(moderator, roleId, 'mark_adult', 'Mature themes')).json().data).toEqual({ changed: true })
    expect(await adult()).toBe(true)
    expect((await act(moderator, roleId, 'unmark_adult', 'Not so mature')).json().data).toEqual({ changed: true })
    expect(await adult()).toBe(false)
    expect(await auditActions(roleId)).toEqual([
      ['character.unmark-adult', 'Not so mature'],
      ['character.mark-adult', 'Mature themes'],
      ['character.restore', 'Looked fine'],
      ['character.hide', 'Pending a look'],
    ])

    const unknown = await act(moderator, 'rnosuchcharacter', 'hide', 'x')
    expect(unknown.statusCode).toBe(404)
    const noNote = await act(moderator, roleId, 'hide', '')
    expect(noNote.statusCode).toBe(400)
    const notStaff = await t.login()
    const stranger = await call(
      { id: notStaff.user.id, email: notStaff.user.email, token: notStaff.token },
      {
        method: 'POST',
        url: `/api/admin/moderation/characters/${roleId}/actions`,
        payload: { action: 'hide', note: 'x' },
      },
    )
    expect([stranger.statusCode, stranger.json().error]).toEqual([403, 'STAFF_ONLY'])
  })
})
