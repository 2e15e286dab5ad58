import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ChatPersona, MyPersonas, Persona } from '#contracts/personas.ts'
import { type OpenAiApiDouble, startOpenAiApi } from '#tests/doubles/openai-api.ts'
import { createRole } from '#tests/factories/catalogue.ts'
import { writeModelsFile } from '#tests/helpers/chat.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

// Personas (issue 22 item 2, ADR 049) through the API: owners only, the limits with their field
// codes, one default that a new chat takes, the persona of a chat switched between replies, and
// the persona's name and description reaching the model (the OpenAI double sees the request).

type Session = Awaited<ReturnType<TestApp['login']>>

let t: TestApp
let api: OpenAiApiDouble
let owner: Session
let stranger: Session

beforeAll(async () => {
  api = await startOpenAiApi({ reply: () => 'Aye.' })
  const modelsFile = writeModelsFile([
    { id: 'tavern-8b', name: 'Tavern 8B', premium: false, contextTokens: 128_000, baseUrl: api.baseUrl },
  ])
  t = await buildTestApp({ env: { MODELS_FILE: modelsFile } })
  owner = await t.login({ username: 'account_name' })
  stranger = await t.login()
})
afterAll(async () => {
  await t.close()
  await api.close()
})

const call = (
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT',
  url: string,
  session: Session | null,
  body?: object,
) =>
  t.app.inject({
    method,
    url,
    ...(body ? { payload: body } : {}),
    headers: session ? { authorization: `Bearer ${session.token}` } : {},
  })

async function create(session: Session, body: object): Promise<Persona> {
  const res = await call('POST', '/api/personas', session, body)
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data as Persona
}

describe('personas', () => {
  it('are the signed-in owner’s alone', async () => {
    const mine = await create(owner, { name: '  Captain   Vell ', description: 'A sailor.\r\nScarred.' })
    expect(mine).toMatchObject({ name: 'Captain Vell', description: 'A sailor.\nScarred.', isDefault: false })

    expect((await call('GET', '/api/my/personas', null)).statusCode).toBe(401)
    expect((await call('POST', '/api/personas', null, { name: 'X' })).statusCode).toBe(401)
    const theirs = ((await call('GET', '/api/my/personas', stranger)).json().data as MyPersonas).items
    expect(theirs).toEqual([])
    for (const [method, url, body] of [
      ['PATCH', `/api/personas/${mine.id}`, { name: 'Stolen', description: '' }],
      ['DELETE', `/api/personas/${mine.id}`, undefined],
      ['DELETE', `/api/personas/${mine.id}/avatar`, undefined],
      ['PUT', '/api/personas/default', { personaId: mine.id }],
    ] as const) {
      const res = await call(method, url, stranger, body)
      expect(res.statusCode, `${method} ${url}`).toBe(404)
    }
    const list = (await call('GET', '/api/my/personas', owner)).json().data as MyPersonas
    expect(list.items.map((p) => [p.name, p.isDefault])).toEqual([['Captain Vell', false]])
    expect(list).toMatchObject({ total: 1, limit: 20 })
    expect((await call('DELETE', `/api/personas/${mine.id}`, owner)).statusCode).toBe(200)
    expect(((await call('GET', '/api/my/personas', owner)).json().data as MyPersonas).total).toBe(0)
  })

  it('refuse fields past their limits with codes the form words, and a 21st persona', async () => {
    const user = await t.login()
    const refused = async (body: object) => {
      const res = await call('POST', '/api/personas', user, body)
      expect(res.statusCode, res.body).toBe(400)
      expect(res.json().error).toBe('VALIDATION_ERROR')
      return res.json().details
    }
    expect(await refused({ name: '   ' })).toEqual([{ path: 'name', code: 'required' }])
    expect(await refused({ name: 'n'.repeat(81) })).toEqual([{ path: 'name', code: 'too_long', limit: 80 }])
    expect(await refused({ name: 'Ok', description: 'd'.repeat(2001) })).toEqual([
      { path: 'description', code: 'too_long', limit: 2000 },
    ])
    // Code points, not UTF-16 units: 80 emoji are a valid name, 2,000 CJK characters a valid description.
    await create(user, { name: '🐉'.repeat(80), description: '龍'.repeat(2000) })
    for (let i = 2; i <= 20; i++) await create(user, { name: `Persona ${i}` })
    expect(await refused({ name: 'One too many' })).toEqual([{ path: 'personas', code: 'too_many', limit: 20 }])
    const list = (await call('GET', '/api/my/personas?pageSize=20', user)).json().data as MyPersonas
    expect(list.total).toBe(20)
  })

  it('have at most one default, which can be cleared', async () => {
    const user = await t.login()
    const a = await create(user, { name: 'Ash', isDefault: true })
    const b = await create(user, { name: 'Birch' })
    const defaults = async () =>
      ((await call('GET', '/api/my/personas', user)).json().data as MyPersonas).items
        .filter((p) => p.isDefault)
        .map((p) => p.name)
    expect(await defaults()).toEqual(['Ash'])
    expect((await call('PUT', '/api/personas/default', user, { personaId: b.id })).statusCode).toBe(200)
    expect(await defaults()).toEqual(['Birch'])
    // A new persona made default takes it over.
    await create(user, { name: 'Cedar', isDefault: true })
    expect(await defaults()).toEqual(['Cedar'])
    expect((await call('PUT', '/api/personas/default', user, { personaId: null })).statusCode).toBe(200)
    expect(await defaults()).toEqual([])
    expect(a.isDefault).toBe(true)
  })

  it('keep an avatar through the images service, and remove it', async () => {
    const user = await t.login()
    const persona = await create(user, { name: 'Painted' })
    const png = await sharp({ create: { width: 40, height: 60, channels: 3, background: '#0ea5e9' } })
      .png()
      .toBuffer()
    const form = new FormData()
    form.append('avatar', new Blob([new Uint8Array(png)]), 'me.png')
    const body = new Response(form)
    const res = await t.app.inject({
      method: 'PUT',
      url: `/api/personas/${persona.id}/avatar`,
      payload: Buffer.from(await body.arrayBuffer()),
      headers: { 'content-type': body.headers.get('content-type') ?? '', authorization: `Bearer ${user.token}` },
    })
    expect(res.statusCode, res.body).toBe(200)
    const url = (res.json().data as Persona).avatarUrl
    expect(url).toMatch(/^\/api\/public\/images\//)
    expect((await t.app.inject({ method: 'GET', url: `${url}/square-128` })).statusCode).toBe(200)
    const removed = await call('DELETE', `/api/personas/${persona.id}/avatar`, user)
    expect((removed.json().data as Persona).avatarUrl).toBeNull()
    // The picture is gone with it: nothing else used it.
    expect((await t.app.inject({ method: 'GET', url: String(url) })).statusCode).toBe(404)
  })
})

describe('in the chat', () => {
  async function startChat(session: Session, roleId: string) {
    const res = await t.injectWithLogin({ method: 'POST', url: '/api/createSession', payload: { roleId } }, session)
    expect(res.statusCode, res.body).toBe(200)
    return res.json().data as { id: string; firstMessage: { content: string } | null }
  }
  const send = async (session: Session, sessionId: string, message: string) => {
    const res = await t.injectWithLogin(
      { method: 'POST', url: '/api/chat', payload: { sessionId, message, chatModelId: 'tavern-8b' } },
      session,
    )
    expect(res.statusCode, res.body).toBe(200)
    const request = api.requests.at(-1)
    return { system: String(request?.messages[0]?.content), body: request }
  }

  it('uses the default persona in the greeting and the prompt, and a switched one from the next reply', async () => {
    const user = await t.login({ username: 'plain_account' })
    const roleId = await createRole(t.database.db, {
      name: 'Ione',
      creatorId: user.user.id,
      firstMessage: 'Welcome aboard, {{user}}. I am {{char}}.',
      scenario: '{{user}} boards the ship at dawn.',
    })
    // Without a persona: the account name, as before.
    const plain = await startChat(user, roleId)
    expect(plain.firstMessage?.content).toBe('Welcome aboard, plain_account. I am Ione.')
    expect((await call('GET', `/api/chat/persona?sessionId=${plain.id}`, user)).json().data).toEqual({
      sessionId: plain.id,
      personaId: null,
    })
    const before = await send(user, plain.id, 'Hello.')
    expect(before.system).toContain('plain_account boards the ship at dawn.')
    expect(before.system).not.toContain('## plain_account')

    const vell = await create(user, {
      name: 'Captain Vell',
      description: '{{user}} is a scarred captain who distrusts {{char}}.',
      isDefault: true,
    })
    const chat = await startChat(user, roleId)
    expect(chat.firstMessage?.content).toBe('Welcome aboard, Captain Vell. I am Ione.')
    expect(
      ((await call('GET', `/api/chat/persona?sessionId=${chat.id}`, user)).json().data as ChatPersona).personaId,
    ).toBe(vell.id)
    const first = await send(user, chat.id, 'Hello.')
    expect(first.system).toContain('Captain Vell boards the ship at dawn.')
    expect(first.system).toContain('## Captain Vell\nCaptain Vell is a scarred captain who distrusts Ione.')
    expect(first.system).not.toContain('plain_account')
    // Its own section, after the character's and before the language line.
    expect(first.system.indexOf('## Scenario')).toBeLessThan(first.system.indexOf('## Captain Vell'))

    // Switched in the chat: the next reply is written for the other persona; the older chat is untouched.
    const mara = await create(user, { name: 'Mara', description: 'Mara is a stowaway.' })
    const switched = await call('PUT', '/api/chat/persona', user, { sessionId: chat.id, personaId: mara.id })
    expect(switched.statusCode, switched.body).toBe(200)
    const second = await send(user, chat.id, 'Hello again.')
    expect(second.system).toContain('Mara boards the ship at dawn.')
    expect(second.system).toContain('## Mara\nMara is a stowaway.')
    // Messages already written keep the name they were written with (the greeting, folded in last).
    expect(second.system.split('## The conversation so far')[0]).not.toContain('Captain Vell')
    expect((await send(user, plain.id, 'Still me.')).system).toContain('plain_account boards')

    // Back to the account name, and a deleted persona falls back to it as well.
    await call('PUT', '/api/chat/persona', user, { sessionId: chat.id, personaId: null })
    expect((await send(user, chat.id, 'Who am I?')).system).toContain('plain_account boards')
    await call('PUT', '/api/chat/persona', user, { sessionId: chat.id, personaId: mara.id })
    await call('DELETE', `/api/personas/${mara.id}`, user)
    expect((await send(user, chat.id, 'And now?')).system).toContain('plain_account boards')
  })

  it("never sets someone else's chat or persona", async () => {
    const user = await t.login()
    const roleId = await createRole(t.database.db, { name: 'Ione', creatorId: user.user.id, firstMessage: 'Hi.' })
    const chat = await startChat(user, roleId)
    const theirs = await create(stranger, { name: 'Intruder' })
    const mine = await create(user, { name: 'Me' })
    // Their persona on my chat; my persona on a chat that is not theirs.
    expect(
      (await call('PUT', '/api/chat/persona', user, { sessionId: chat.id, personaId: theirs.id })).statusCode,
    ).toBe(404)
    expect((await call('PUT', '/api/chat/persona', stranger, { sessionId: chat.id, personaId: null })).statusCode).toBe(
      404,
    )
    expect((await call('GET', `/api/chat/persona?sessionId=${chat.id}`, stranger)).statusCode).toBe(404)
    expect((await call('PUT', '/api/chat/persona', user, { sessionId: chat.id, personaId: mine.id })).statusCode).toBe(
      200,
    )
  })

  it('are in the account data export and go with the account', async () => {
    const user = await t.login({ passwordHash: null })
    const roleId = await createRole(t.database.db, { name: 'Ione', creatorId: user.user.id, firstMessage: 'Hi.' })
    const persona = await create(user, { name: 'Exported', description: 'Kept in the file.', isDefault: true })
    const chat = await startChat(user, roleId)
    const exported = await t.injectWithLogin({ method: 'GET', url: '/api/account/export' }, user)
    expect(exported.statusCode, exported.body).toBe(200)
    const file = exported.json()
    expect(file.personas).toEqual([
      expect.objectContaining({ id: persona.id, name: 'Exported', description: 'Kept in the file.', isDefault: true }),
    ])
    expect(file.chats.find((c: { id: string }) => c.id === chat.id)?.personaId).toBe(persona.id)

    const deleted = await t.injectWithLogin(
      { method: 'POST', url: '/api/account/delete', payload: { email: user.user.email } },
      user,
    )
    expect(deleted.statusCode, deleted.body).toBe(200)
    const { personas } = await import('#db/schema/personas.ts')
    const { eq } = await import('drizzle-orm')
    expect(await t.database.db.select().from(personas).where(eq(personas.ownerId, user.user.id))).toEqual([])
  })
})
