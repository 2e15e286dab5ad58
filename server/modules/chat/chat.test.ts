// Over 400 lines for a reason: the chat's behaviour end to end (HTTP, streams, the model double,
// diamonds, memory jobs) on one app and one double, which take seconds to start; split into files,
// each would start its own. The units have their own tests beside them (turn-pipeline, turn-slots,
// prompt, lorebook, entitlements).
import type { AddressInfo } from 'node:net'
import { eq } from 'drizzle-orm'
import fc from 'fast-check'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  CHAT_CREATE_SESSION_LIMIT,
  CHAT_MEMORY_UPDATE_LIMIT,
  CHAT_MESSAGE_MAX_LENGTH,
  CHAT_SEND_LIMIT,
  type ChatMessage,
  type ChatStreamEvent,
} from '#contracts/chat.ts'
import { SIGNUP_GRANT_DIAMONDS } from '#contracts/plans.ts'
import { chatMessages, chatSessions, chatSwipes } from '#db/schema/chat.ts'
import { diamondHolds, diamondLedger } from '#db/schema/diamonds.ts'
import { roles } from '#db/schema/roles.ts'
import { SAFETY_MARGIN } from '#server/modules/models/model-server-info.ts'
import { countMessageTokens } from '#server/modules/models/tokens.ts'
import { type ChatMessageBody, type OpenAiApiDouble, startOpenAiApi } from '#tests/doubles/openai-api.ts'
import { createRole } from '#tests/factories/catalogue.ts'
import { addMessages } from '#tests/factories/chat.ts'
import { parseEvents, readEvents, writeModelsFile } from '#tests/helpers/chat.ts'
import { BASIC_PLAN, shippedPlans, writePlansFile } from '#tests/helpers/plans.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'
import { INSTRUCTIONS_CLOSE, INSTRUCTIONS_OPEN } from './message-shaping.ts'
import { contextWindow } from './prompt.ts'

type Session = Awaited<ReturnType<TestApp['login']>>

const REPLY = 'The lighthouse keeper smiles and hands you a lantern, still warm from the fire.'
const SUMMARY = 'MEMORY: the traveller arrived at the lighthouse and asked about the storm.'
const TIMEOUT_MS = 1500
const KEEPALIVE_MS = 100
const PREMIUM_COST = 5

/** What the double answers: summaries (non-streamed) get SUMMARY, replies get REPLY. */
const defaultReply = (_messages: ChatMessageBody[], body: { stream?: boolean }) => (body.stream ? REPLY : SUMMARY)

let api: OpenAiApiDouble
let t: TestApp
let baseUrl: string
let modelsFile: string

beforeAll(async () => {
  api = await startOpenAiApi({ reply: defaultReply })
  modelsFile = writeModelsFile([
    { id: 'tavern-8b', name: 'Tavern 8B', premium: false, contextTokens: 128_000, baseUrl: api.baseUrl },
    {
      id: 'grand-70b',
      name: 'Grand 70B',
      premium: true,
      diamondsPerMessage: PREMIUM_COST,
      contextTokens: 128_000,
      baseUrl: api.baseUrl,
      model: 'provider/grand-70b',
    },
    { id: 'small-2k', name: 'Small', premium: false, contextTokens: 2048, baseUrl: api.baseUrl },
  ])
  // The shipped plans (the free one spends its diamonds on premium models) and a paid plan without
  // premium models or diamonds, to see the per-plan gate refuse them (ADR 018).
  t = await buildTestApp({
    env: {
      MODELS_FILE: modelsFile,
      LLM_TIMEOUT_MS: String(TIMEOUT_MS),
      CHAT_STREAM_KEEPALIVE_MS: String(KEEPALIVE_MS),
    },
    plansFile: writePlansFile([...shippedPlans(), BASIC_PLAN]),
  })
  await t.app.listen({ port: 0, host: '127.0.0.1' })
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
})
afterEach(() => {
  expect(api.pendingFaults).toEqual([])
  api.reply = defaultReply
  api.tokenDelayMs = 0
  api.firstTokenDelayMs = 0
})
afterAll(async () => {
  await t.close()
  await api.close()
})

// --- helpers -----------------------------------------------------------------------------------

const post = (session: Session, url: string, payload?: object) =>
  t.injectWithLogin({ method: 'POST', url, ...(payload ? { payload } : {}) }, session)

async function newRole(overrides: Parameters<typeof createRole>[1] = { name: 'Mara' }) {
  return createRole(t.database.db, {
    description: '{{char}} keeps the lighthouse on the northern cliffs.',
    personality: 'Patient, dry humour.',
    scenario: '<USER> arrives soaked during a storm.',
    firstMessage: 'Come in out of the rain, {{user}}. I am {{Char}}.',
    alternateGreetings: ['Another storm, another guest. Sit, {{USER}}.'],
    exampleDialogue: '<START>\n{{user}}: Hello?\n{{char}}: Door is open.',
    ...overrides,
  })
}

async function newChat(session?: Session, roleOverrides?: Parameters<typeof createRole>[1]) {
  const user = session ?? (await t.login())
  const roleId = await newRole(roleOverrides)
  const res = await post(user, '/api/createSession', { roleId })
  expect(res.statusCode).toBe(200)
  return { user, roleId, sessionId: res.json().data.id as string, created: res.json().data }
}

const send = (session: Session, sessionId: string, message: string, extra: object = {}) =>
  post(session, '/api/chat', { sessionId, message, chatModelId: 'tavern-8b', ...extra })

async function stream(session: Session, url: string, payload: object) {
  const res = await post(session, url, payload)
  return { res, events: res.headers['content-type']?.startsWith('text/event-stream') ? parseEvents(res.body) : [] }
}

const eventOf = <K extends ChatStreamEvent['event']>(events: ChatStreamEvent[], name: K) =>
  events.find((e) => e.event === name) as Extract<ChatStreamEvent, { event: K }> | undefined

async function messagesOf(session: Session, sessionId: string): Promise<ChatMessage[]> {
  const res = await post(session, '/api/messages', { sessionId, limit: 100 })
  expect(res.statusCode).toBe(200)
  return res.json().data.items
}

const balanceOf = async (session: Session) =>
  (await t.injectWithLogin({ method: 'GET', url: '/api/points' }, session)).json().data.totalPoints as number

/** A user who bought this plan through the sandbox. */
async function planUser(planId: string): Promise<Session> {
  const session = await t.login()
  const { orderId } = (await post(session, '/api/subscription', { planId })).json().data
  expect((await post(session, '/api/payment/sandbox', { orderId, outcome: 'paid' })).statusCode).toBe(200)
  return session
}

/** A user on the pro plan (32K memory, premium models, 3000 diamonds), bought through the sandbox. */
const proUser = () => planUser('pro')

/** A user on the test-only basic plan: no premium models, no monthly diamonds. */
const basicUser = () => planUser(BASIC_PLAN.id)

const lastStreamed = () => api.requests.filter((r) => r.stream).at(-1)

// --- tests -------------------------------------------------------------------------------------

describe('models', () => {
  it('lists the offered models without endpoints, keys or provider names', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/models' })
    expect(res.statusCode).toBe(200)
    const { models, defaultModelId } = res.json().data
    expect(defaultModelId).toBe('tavern-8b')
    expect(models.map((m: { id: string }) => m.id)).toEqual(['tavern-8b', 'grand-70b', 'small-2k'])
    expect(models[1]).toEqual({
      id: 'grand-70b',
      name: 'Grand 70B',
      description: '',
      premium: true,
      diamondsPerMessage: PREMIUM_COST,
      contextTokens: 128_000,
      userSettings: {
        temperature: { min: 0, max: 1.5, default: null },
        replyTokens: { min: 64, max: 1024, default: 1024 },
      },
    })
    expect(res.body).not.toContain(api.baseUrl)
    expect(res.body).not.toContain('provider/grand-70b')
  })
})

describe('sessions', () => {
  it("starts with the character's greeting, macros filled in, alternate greetings as swipes", async () => {
    const { user, roleId, sessionId, created } = await newChat()
    const greeting: ChatMessage = created.firstMessage
    expect(greeting).toMatchObject({
      author: 'assistant',
      content: `Come in out of the rain, ${user.user.username}. I am Mara.`,
      status: 'complete',
      swipeIndex: 0,
      swipeCount: 2,
      modelId: null,
    })
    expect(created.role).toEqual({ id: roleId, name: 'Mara', avatar: null })
    expect(created.context).toMatchObject({ modelId: 'tavern-8b', memoryK: 4, windowTokens: 4000, trimmed: false })

    const swipes = (await post(user, '/api/chat/swipes', { sessionId, messageId: greeting.id })).json().data
    expect(swipes.swipes.map((s: { content: string }) => s.content)).toEqual([
      greeting.content,
      `Another storm, another guest. Sit, ${user.user.username}.`,
    ])
    const chosen = await post(user, '/api/chat/selectSwipe', { sessionId, messageId: greeting.id, swipeIndex: 1 })
    expect(chosen.json().data.message).toMatchObject({ swipeIndex: 1, content: swipes.swipes[1].content })
    expect((await messagesOf(user, sessionId))[0]?.content).toBe(swipes.swipes[1].content)

    const role = await t.app.inject({ method: 'GET', url: `/api/role?roleId=${roleId}` })
    expect(role.json().data.chatCount).toBe(1)
  })

  it("lists the user's sessions newest first with role and last message; others see none of them", async () => {
    const user = await t.login()
    const first = await newChat(user, { name: 'Ilse' })
    const second = await newChat(user, { name: 'Oren', firstMessage: '', alternateGreetings: [] })
    expect(second.created.firstMessage).toBeNull()
    // Chats without a message of the user are not history (ADR 048); one written to is.
    expect((await post(user, '/api/sessions')).json().data).toMatchObject({ sessions: [], total: 0 })
    const [firstWords] = await addMessages(t.database.db, first.sessionId, [{ author: 'user', content: 'Hi' }])
    await addMessages(t.database.db, second.sessionId, [{ author: 'user', content: 'Hello?' }])
    await t.database.db.update(chatSessions).set({ updatedAt: new Date() }).where(eq(chatSessions.id, second.sessionId))
    await t.database.db.delete(chatMessages).where(eq(chatMessages.id, firstWords ?? 0))
    expect((await post(user, '/api/sessions')).json().data.total).toBe(1)
    await addMessages(t.database.db, first.sessionId, [{ author: 'user', content: 'Hi' }])
    let list = (await post(user, '/api/sessions')).json().data
    expect(list).toMatchObject({ page: 1, total: 2, totalPages: 1 })
    expect(list.sessions.map((s: { id: string }) => s.id)).toEqual([second.sessionId, first.sessionId])
    expect(list.sessions[1]).toMatchObject({
      role: { id: first.roleId, name: 'Ilse', avatar: null },
      lastMessage: `Come in out of the rain, ${user.user.username}. I am Ilse.`,
    })
    expect(list.sessions[0]).toMatchObject({ lastMessage: null, title: null, pinned: false })

    // Activity moves a session to the top.
    await send(user, first.sessionId, 'Hello there')
    list = (await post(user, '/api/sessions', { page: 1, pageSize: 1 })).json().data
    expect(list).toMatchObject({ total: 2, totalPages: 2, pageSize: 1 })
    expect(list.sessions[0]).toMatchObject({ id: first.sessionId, lastMessage: REPLY })

    const other = await t.login()
    expect((await post(other, '/api/sessions')).json().data).toMatchObject({ sessions: [], total: 0 })
  })

  it('refuses unknown characters, private characters of others and adult ones before the age check', async () => {
    const user = await t.login()
    expect((await post(user, '/api/createSession', { roleId: 'nope' })).statusCode).toBe(404)
    const owner = await t.login()
    const privateRole = await newRole({ name: 'Secret', visibility: 'private', creatorId: owner.user.id })
    expect((await post(user, '/api/createSession', { roleId: privateRole })).statusCode).toBe(404)
    expect((await post(owner, '/api/createSession', { roleId: privateRole })).statusCode).toBe(200)
    const adult = await newRole({ name: 'Velvet', isAdult: true })
    const refused = await post(user, '/api/createSession', { roleId: adult })
    expect(refused.statusCode).toBe(403)
    expect(refused.json().details).toEqual({ reason: 'ADULT_CONTENT' })
    const confirmed = await t.app.inject({
      method: 'POST',
      url: '/api/createSession',
      payload: { roleId: adult },
      headers: { authorization: `Bearer ${user.token}`, cookie: 'adult_ok=1' },
    })
    expect(confirmed.statusCode).toBe(200)
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/createSession', payload: { roleId: adult } })).statusCode,
    ).toBe(401)
  })

  it('a character made private answers only its creator: others keep their messages, the chat is unavailable', async () => {
    const owner = await t.login()
    const roleId = await newRole({ name: 'Mara', creatorId: owner.user.id })
    const reader = await t.login()
    const theirs = (await post(reader, '/api/createSession', { roleId })).json().data.id as string
    const ownerChat = (await post(owner, '/api/createSession', { roleId })).json().data.id as string
    expect((await send(reader, theirs, 'Before the change')).statusCode).toBe(200)
    await t.app.services.diamonds.grantSignup(reader.user.id)

    // The creator makes it private and gives it texts meant for nobody else.
    const SECRET = 'SECRET-SCENARIO-only-for-the-creator'
    await t.database.db
      .update(roles)
      .set({ visibility: 'private', name: 'Mara the Hidden', scenario: SECRET, description: SECRET })
      .where(eq(roles.publicId, roleId))
    const requests = api.requests.length

    // Every turn is refused with a code the chat page translates; nothing is stored or asked.
    const turns = [
      await send(reader, theirs, 'After the change'),
      await send(reader, theirs, 'After the change', { chatModelId: 'grand-70b' }),
      await post(reader, '/api/chat/stream', { sessionId: theirs, message: 'After the change' }),
      await post(reader, '/api/chat/regenerate', { sessionId: theirs }),
      await post(reader, '/api/chat/regenerate/stream', { sessionId: theirs, chatModelId: 'grand-70b' }),
    ]
    for (const res of turns) {
      expect(res.statusCode, res.body).toBe(403)
      expect(res.json().error).toBe('CHARACTER_UNAVAILABLE')
    }
    expect(api.requests.length).toBe(requests)
    expect(await balanceOf(reader)).toBe(SIGNUP_GRANT_DIAMONDS)

    // Their own messages stay readable; the character's new texts and name reach none of their pages.
    const messages = await messagesOf(reader, theirs)
    expect(messages.map((m) => m.author)).toEqual(['assistant', 'user', 'assistant'])
    expect(messages.map((m) => m.content).slice(0, 2)).toEqual([REPLY, 'Before the change'])
    const detail = await post(reader, '/api/session', { sessionId: theirs })
    expect(detail.statusCode).toBe(200)
    expect(detail.json().data.role).toBeNull()
    const list = await post(reader, '/api/sessions')
    expect(list.json().data.sessions).toEqual([expect.objectContaining({ id: theirs, role: null })])
    for (const body of [detail.body, list.body]) {
      expect(body).not.toContain(SECRET)
      expect(body).not.toContain('Hidden')
    }

    // Their data export holds their messages, not the private character's texts.
    const exported = await t.injectWithLogin({ method: 'GET', url: '/api/account/export' }, reader)
    expect(exported.statusCode).toBe(200)
    expect(exported.body).toContain('Before the change')
    expect(exported.body).not.toContain(SECRET)
    expect(exported.body).not.toContain('Hidden')
    expect(exported.json().chats[0]).toMatchObject({ characterId: null, characterName: null })

    // The creator still chats with it, private texts and all.
    expect((await send(owner, ownerChat, 'Still there?')).statusCode).toBe(200)
    expect(JSON.stringify(lastStreamed()?.messages)).toContain(SECRET)
    const ownerExport = await t.injectWithLogin({ method: 'GET', url: '/api/account/export' }, owner)
    expect(ownerExport.json().chats.map((c: { characterName: string }) => c.characterName)).toContain('Mara the Hidden')
  })

  it("answers 'Invalid session!' for another user's session and unknown ones, on every call", async () => {
    const { user, sessionId, created } = await newChat()
    const intruder = await t.login()
    const messageId = created.firstMessage.id
    const calls: [string, object][] = [
      ['/api/session', { sessionId }],
      ['/api/messages', { sessionId }],
      ['/api/chat', { sessionId, message: 'hi' }],
      ['/api/chat/stream', { sessionId, message: 'hi' }],
      ['/api/chat/regenerate', { sessionId }],
      ['/api/chat/regenerate/stream', { sessionId }],
      ['/api/chat/stop', { sessionId }],
      ['/api/chat/swipes', { sessionId, messageId }],
      ['/api/chat/selectSwipe', { sessionId, messageId, swipeIndex: 1 }],
      ['/api/chat/editMessage', { sessionId, messageId, content: 'mine now' }],
      ['/api/chat/deleteMessage', { sessionId, messageId }],
      ['/api/session/memory', { sessionId }],
      ['/api/session/memory/update', { sessionId, note: 'hijacked' }],
      ['/api/deleteSession', { sessionId }],
    ]
    const requestsBefore = api.requests.length
    for (const [url, payload] of calls) {
      for (const caller of [intruder, user]) {
        const target = caller === user ? { ...payload, sessionId: crypto.randomUUID() } : payload
        const res = await post(caller, url, target)
        expect(res.statusCode, url).toBe(404)
        expect(res.json(), url).toMatchObject({ success: false, error: 'INVALID_SESSION', message: 'Invalid session!' })
      }
    }
    expect((await post(user, '/api/session', { sessionId: 'not-a-uuid' })).json().error).toBe('INVALID_SESSION')
    // The spec passes the session of /api/session in the query.
    const viaQuery = await t.injectWithLogin({ method: 'POST', url: `/api/session?sessionId=${sessionId}` }, user)
    expect(viaQuery.json().data.id).toBe(sessionId)
    // Nothing of the owner's changed and the model was never asked.
    expect(api.requests.length).toBe(requestsBefore)
    expect(await messagesOf(user, sessionId)).toEqual([created.firstMessage])
    expect((await post(user, '/api/session', { sessionId })).json().data.memory.note).toBe('')
  })

  it('pages messages newest first with a cursor', async () => {
    const { user, sessionId, created } = await newChat()
    const ids = await addMessages(
      t.database.db,
      sessionId,
      Array.from({ length: 6 }, (_, i) => ({ author: i % 2 ? 'assistant' : 'user', content: `m${i}` }) as const),
    )
    const all = [created.firstMessage.id, ...ids].reverse()
    const seen: number[] = []
    let before: number | undefined
    for (let page = 0; page < 5; page++) {
      const data = (await post(user, '/api/messages', { sessionId, limit: 3, ...(before ? { before } : {}) })).json()
        .data
      expect(data.total).toBe(7)
      seen.push(...data.items.map((m: ChatMessage) => m.id))
      if (data.nextBefore === null) break
      before = data.nextBefore
    }
    expect(seen).toEqual(all)
  })

  it('deletes a message, then the whole session', async () => {
    const { user, sessionId } = await newChat()
    const sent = (await send(user, sessionId, 'Is the lamp lit?')).json().data
    expect((await post(user, '/api/chat/deleteMessage', { sessionId, messageId: sent.reply.id })).statusCode).toBe(200)
    const left = await messagesOf(user, sessionId)
    expect(left.map((m) => m.id)).not.toContain(sent.reply.id)
    expect(left[0]?.id).toBe(sent.userMessage.id)
    const list = (await post(user, '/api/sessions')).json().data.sessions
    expect(list[0].lastMessage).toBe('Is the lamp lit?')
    expect((await post(user, '/api/chat/deleteMessage', { sessionId, messageId: sent.reply.id })).statusCode).toBe(404)

    // Gone at once for the user; its rows stay for the undo window (chat-tidy.test.ts has the purge).
    expect((await post(user, '/api/deleteSession', { sessionId })).json().data).toMatchObject({ deleted: true })
    expect((await post(user, '/api/session', { sessionId })).json().error).toBe('INVALID_SESSION')
    expect((await post(user, '/api/sessions')).json().data.total).toBe(0)
  })
})

describe('sending', () => {
  it('answers without streaming: stores the message and the reply, builds the prompt from the character', async () => {
    // The introduction (the card's creator notes) is for people: never sent to the model (V2 spec).
    const notes = 'Creator notes: best with a 70B model; art by a friend.'
    const { user, sessionId, created } = await newChat(undefined, { name: 'Mara', introduction: notes })
    const res = await send(user, sessionId, 'May I dry my coat by the fire?')
    expect(res.statusCode).toBe(200)
    const body = res.json()
    expect(body).toMatchObject({ code: 0, success: true, data: { content: REPLY, stopped: false, replayed: false } })
    const { userMessage, reply } = body.data
    expect(userMessage).toMatchObject({ author: 'user', content: 'May I dry my coat by the fire?' })
    expect(reply).toMatchObject({ author: 'assistant', content: REPLY, status: 'complete', modelId: 'tavern-8b' })
    expect(reply.id).toBeGreaterThan(userMessage.id)
    expect((await messagesOf(user, sessionId)).map((m) => m.id)).toEqual([
      reply.id,
      userMessage.id,
      created.firstMessage.id,
    ])

    const sent = lastStreamed()
    const [system, ...history] = sent?.messages ?? []
    expect(system?.role).toBe('system')
    const prompt = String(system?.content)
    expect(prompt).toContain('You are Mara')
    expect(prompt).toContain('Mara keeps the lighthouse on the northern cliffs.')
    expect(prompt).toContain(`${user.user.username} arrives soaked during a storm.`)
    expect(prompt).toContain(`${user.user.username}: Hello?\nMara: Door is open.`)
    expect(prompt).not.toMatch(/\{\{|<user>|<bot>/i)
    expect(JSON.stringify(sent?.messages)).not.toContain('Creator notes')
    expect(prompt).not.toContain('Introduction')
    // The greeting leads the conversation: folded into the system prompt, where every template takes it (ADR 029).
    expect(prompt).toContain(`begins with Mara saying:\n${created.firstMessage.content}`)
    expect(history).toEqual([{ role: 'user', content: 'May I dry my coat by the fire?' }])
  })

  it("draws on the character's lorebook when its keys appear, and on the card's system prompt and post-history text", async () => {
    const entryBase = { secondaryKeys: [], enabled: true, useRegex: false, extensions: {} }
    const { user, sessionId, roleId } = await newChat(undefined, { name: 'Mara' })
    await t.database.db
      .update(roles)
      .set({
        characterBook: {
          extensions: {},
          entries: [
            {
              ...entryBase,
              keys: ['lantern'],
              content: 'The lantern was a gift from {{char}}’s late brother.',
              insertionOrder: 1,
            },
            { ...entryBase, keys: ['kraken'], content: 'A kraken sleeps beneath the cliffs.', insertionOrder: 2 },
          ],
        },
        cardExtras: {
          systemPrompt: 'Speak like an old sailor. {{original}}',
          postHistoryInstructions: 'Answer {{user}} in two sentences.',
        },
      })
      .where(eq(roles.publicId, roleId))
    await send(user, sessionId, 'Where did the lantern come from?')
    const first = lastStreamed()?.messages ?? []
    const system = String(first[0]?.content)
    expect(system.startsWith('Speak like an old sailor. You are Mara')).toBe(true)
    expect(system).toContain('The lantern was a gift from Mara’s late brother.')
    expect(system).not.toContain('kraken')
    // The post-history text closes the last user turn (strict templates take no late system message).
    expect(first.at(-1)).toEqual({
      role: 'user',
      content: `Where did the lantern come from?\n\n${INSTRUCTIONS_OPEN}\nAnswer ${user.user.username} in two sentences.\n${INSTRUCTIONS_CLOSE}`,
    })
    expect(first.filter((m) => m.role === 'system')).toHaveLength(1)

    await send(user, sessionId, 'Is there a KRAKEN down there?')
    expect(String(lastStreamed()?.messages[0]?.content)).toContain('A kraken sleeps beneath the cliffs.')
  })

  it('counts every message of the character for @@activate_only_every, also those that no longer fit', async () => {
    const entryBase = { keys: [], secondaryKeys: [], enabled: true, useRegex: false, extensions: {}, constant: true }
    const { user, sessionId, roleId } = await newChat(undefined, { name: 'Mara' })
    await t.database.db
      .update(roles)
      .set({
        characterBook: {
          extensions: {},
          entries: [
            { ...entryBase, content: '@@activate_only_every 3\nThe bell of three.', insertionOrder: 1 },
            { ...entryBase, content: '@@activate_only_every 7\nThe bell of seven.', insertionOrder: 2 },
            { ...entryBase, content: '@@activate_only_every 5\nThe bell of five.', insertionOrder: 3 },
          ],
        },
      })
      .where(eq(roles.publicId, roleId))
    // The greeting and 20 replies: 21 of the character's messages, far more than a 4K memory holds.
    const long = 'The tide rolls in and the tide rolls out again, grey and slow. '.repeat(12)
    await addMessages(
      t.database.db,
      sessionId,
      Array.from({ length: 40 }, (_, i) => ({ author: i % 2 ? 'assistant' : 'user', content: `${i} ${long}` })),
    )
    await send(user, sessionId, 'Which bells ring tonight?')
    const sent = lastStreamed()?.messages ?? []
    const system = String(sent[0]?.content)
    expect(sent.length).toBeLessThan(40)
    expect(system).toContain('The bell of three.')
    expect(system).toContain('The bell of seven.')
    expect(system).not.toContain('The bell of five.')
    expect(JSON.stringify(sent)).not.toContain('@@')
  })

  it('streams: start with the stored user message, deltas, done with the stored reply and the gauge', async () => {
    const { user, sessionId } = await newChat()
    const { res, events } = await stream(user, '/api/chat/stream', {
      sessionId,
      message: 'Tell me about the storm.',
      chatModelId: 'tavern-8b',
    })
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8')
    expect(res.headers['content-encoding']).toBeUndefined()
    expect(events[0]?.event).toBe('start')
    expect(events.at(-1)?.event).toBe('done')
    const start = eventOf(events, 'start')?.data
    const deltas = events.filter((e) => e.event === 'delta').map((e) => (e.data as { text: string }).text)
    expect(deltas.length).toBeGreaterThan(3)
    expect(deltas.join('')).toBe(REPLY)
    const done = eventOf(events, 'done')?.data
    expect(done?.reply).toMatchObject({ content: REPLY, status: 'complete' })
    expect(done?.userMessage?.id).toBe(start?.userMessage?.id)
    expect(done?.context.usedTokens).toBeGreaterThan(0)
    expect(done?.context.usedTokens).toBeLessThanOrEqual(done?.context.budgetTokens ?? 0)
    const stored = await messagesOf(user, sessionId)
    expect(stored[0]).toEqual(done?.reply)
    expect(stored[1]).toEqual(start?.userMessage)
  })

  it("done carries the user's balance as it is when the free reply is stored (read by the same statement)", async () => {
    const { user, sessionId } = await newChat()
    const ask = async (message: string) =>
      eventOf((await stream(user, '/api/chat/stream', { sessionId, message, chatModelId: 'tavern-8b' })).events, 'done')
        ?.data
    const first = await ask('Hello?')
    expect(first?.diamondsSpent).toBe(0)
    expect(first?.balance).toBe(await balanceOf(user))
    await t.app.services.diamonds.grantSignup(user.user.id)
    const granted = await balanceOf(user)
    expect(granted).toBeGreaterThan(first?.balance ?? 0)
    const second = await ask('And now?')
    expect(second?.balance).toBe(granted)
  })

  it('sends a keep-alive comment while the model is silent, so the browser waits as long as it takes (ADR 032)', async () => {
    const { user, sessionId } = await newChat()
    api.firstTokenDelayMs = 6 * KEEPALIVE_MS
    const { res, events } = await stream(user, '/api/chat/stream', { sessionId, message: 'Take your time.' })
    expect(events.at(-1)?.event).toBe('done')
    const silence = res.body.slice(res.body.indexOf('event: start'), res.body.indexOf('event: delta'))
    // Six intervals of silence: a comment every interval (a few may be lost to timer jitter).
    expect(silence.split(': keep-alive\n\n').length - 1).toBeGreaterThanOrEqual(3)
    // The comments are not events: the reply reads the same.
    expect(eventOf(events, 'done')?.data.reply.content).toBe(REPLY)
  })

  it('a new message after a stranded one is never a second user turn in a row (ADR 029)', async () => {
    const { user, sessionId } = await newChat()
    api.fail(500)
    expect((await send(user, sessionId, 'Is the lamp lit?')).statusCode).toBe(502)
    const res = await send(user, sessionId, 'Hello? Anyone?')
    expect(res.statusCode).toBe(200)
    const sent = lastStreamed()?.messages ?? []
    // What every strict template asks: one system message first, then user and assistant in turn.
    expect(sent.map((m) => m.role)).toEqual(['system', 'user'])
    expect(sent[1]?.content).toBe('Is the lamp lit?\n\nHello? Anyone?')
    // Both messages stay stored as they were written.
    expect((await messagesOf(user, sessionId)).map((m) => m.author)).toEqual(['assistant', 'user', 'user', 'assistant'])
  })

  it('keeps the message and reports a provider 500; retry is one regenerate call', async () => {
    const { user, sessionId } = await newChat()
    api.fail(500)
    const res = await send(user, sessionId, 'Are you still there?')
    expect(res.statusCode).toBe(502)
    expect(res.json()).toMatchObject({
      error: 'MODEL_ERROR',
      details: { kind: 'provider', partialKept: false, reply: null },
    })
    const kept = await messagesOf(user, sessionId)
    expect(kept[0]).toMatchObject({ author: 'user', content: 'Are you still there?' })
    expect(res.json().details.userMessageId).toBe(kept[0]?.id)

    api.fail(503)
    const { events } = await stream(user, '/api/chat/regenerate/stream', { sessionId })
    expect(eventOf(events, 'start')?.data.userMessage).toBeNull()
    expect(eventOf(events, 'error')?.data).toMatchObject({
      code: 'MODEL_OVERLOADED',
      kind: 'provider',
      reason: 'overloaded',
      retryable: true,
      partialKept: false,
    })

    const retry = await post(user, '/api/chat/regenerate', { sessionId })
    expect(retry.statusCode).toBe(200)
    expect(retry.json().data.reply).toMatchObject({ content: REPLY, status: 'complete', swipeCount: 1 })
    const after = await messagesOf(user, sessionId)
    expect(after.map((m) => m.author)).toEqual(['assistant', 'user', 'assistant'])
    // The retry answered the same message: it was the last one the model saw.
    expect(lastStreamed()?.messages.at(-1)).toEqual({ role: 'user', content: 'Are you still there?' })
  })

  it('a reply when the embedded model cannot be had (download failed, engine missing) fails as MODEL_UNREACHABLE, retryable (ADR 036)', async () => {
    const { user, sessionId } = await newChat()
    api.failWith(503, { error: { type: 'model_unavailable', message: 'The embedded model is not available' } })
    const { events } = await stream(user, '/api/chat/stream', { sessionId, message: 'Hello?' })
    expect(eventOf(events, 'error')?.data).toMatchObject({
      code: 'MODEL_UNREACHABLE',
      reason: 'unreachable',
      retryable: true,
    })
    expect((await messagesOf(user, sessionId)).map((m) => m.content)).toContain('Hello?')
  })

  it('a reply while the embedded model is being prepared fails with MODEL_PREPARING, retryable, the message kept (ADR 037)', async () => {
    const { user, sessionId } = await newChat()
    api.failWith(503, { error: { type: 'model_preparing', message: 'The model is being prepared', percent: 42 } })
    const { events } = await stream(user, '/api/chat/stream', { sessionId, message: 'Are you awake?' })
    expect(eventOf(events, 'error')?.data).toMatchObject({
      code: 'MODEL_PREPARING',
      kind: 'provider',
      reason: 'preparing',
      retryable: true,
      partialKept: false,
    })
    expect((await messagesOf(user, sessionId)).map((m) => [m.author, m.content])).toContainEqual([
      'user',
      'Are you awake?',
    ])
    // Once it is ready the same message gets its reply.
    const retry = await post(user, '/api/chat/regenerate', { sessionId })
    expect(retry.json().data.reply).toMatchObject({ content: REPLY, status: 'complete' })
  })

  it('times out a model that stalls (504), keeping the message', async () => {
    const { user, sessionId } = await newChat()
    api.stall()
    const res = await send(user, sessionId, 'Hello?')
    expect(res.statusCode).toBe(504)
    expect(res.json()).toMatchObject({ error: 'MODEL_ERROR', details: { kind: 'timeout', partialKept: false } })
    expect((await messagesOf(user, sessionId))[0]).toMatchObject({ author: 'user', content: 'Hello?' })
  })

  it('times out a stream that stops midway, keeping the partial reply as interrupted', async () => {
    const { user, sessionId } = await newChat()
    api.tokenDelayMs = TIMEOUT_MS * 2
    const { events } = await stream(user, '/api/chat/stream', { sessionId, message: 'Go on.' })
    const error = eventOf(events, 'error')?.data
    expect(error).toMatchObject({ code: 'MODEL_ERROR', kind: 'timeout', partialKept: true })
    expect(error?.reply).toMatchObject({ content: 'The', status: 'interrupted', diamondsSpent: 0 })
    expect((await messagesOf(user, sessionId))[0]).toEqual(error?.reply)
  })

  it('keeps a cut stream as an interrupted reply; regenerate adds a complete alternative; swipes select', async () => {
    const { user, sessionId } = await newChat()
    api.cut(3)
    const { events } = await stream(user, '/api/chat/stream', { sessionId, message: 'What is that light?' })
    const error = eventOf(events, 'error')?.data
    expect(error).toMatchObject({ kind: 'cut', partialKept: true })
    const partial = 'The lighthouse keeper'
    expect(error?.reply).toMatchObject({ content: partial, status: 'interrupted', swipeIndex: 0, swipeCount: 1 })
    const replyId = error?.reply?.id

    const regenerated = (await post(user, '/api/chat/regenerate', { sessionId })).json().data
    expect(regenerated.reply).toMatchObject({
      id: replyId,
      content: REPLY,
      status: 'complete',
      swipeIndex: 1,
      swipeCount: 2,
    })
    // The alternative answered the same user message, without the interrupted text in the prompt.
    expect(lastStreamed()?.messages.at(-1)).toEqual({ role: 'user', content: 'What is that light?' })

    api.reply = 'A third answer.'
    const third = (await post(user, '/api/chat/regenerate', { sessionId })).json().data
    expect(third.reply).toMatchObject({ id: replyId, content: 'A third answer.', swipeIndex: 2, swipeCount: 3 })
    const swipes = (await post(user, '/api/chat/swipes', { sessionId, messageId: replyId })).json().data
    expect(swipes).toMatchObject({ selectedIndex: 2 })
    expect(swipes.swipes.map((s: { content: string; status: string }) => [s.content, s.status])).toEqual([
      [partial, 'interrupted'],
      [REPLY, 'complete'],
      ['A third answer.', 'complete'],
    ])

    const back = await post(user, '/api/chat/selectSwipe', { sessionId, messageId: replyId, swipeIndex: 1 })
    expect(back.json().data.message).toMatchObject({ content: REPLY, swipeIndex: 1, status: 'complete' })
    expect((await messagesOf(user, sessionId))[0]).toMatchObject({ content: REPLY, swipeIndex: 1 })
    const outOfRange = await post(user, '/api/chat/selectSwipe', { sessionId, messageId: replyId, swipeIndex: 3 })
    expect(outOfRange.statusCode).toBe(400)
    // The next message answers what is shown.
    await send(user, sessionId, 'And then?')
    expect(lastStreamed()?.messages.slice(-2)).toEqual([
      { role: 'assistant', content: REPLY },
      { role: 'user', content: 'And then?' },
    ])
  })

  it('stops on request: the partial reply is kept and the stream ends with stopped', async () => {
    const { user, sessionId } = await newChat()
    api.tokenDelayMs = 100
    const n = api.timings.length
    const streaming = stream(user, '/api/chat/stream', { sessionId, message: 'Tell me a long story.' })
    await expect.poll(() => api.timings[n]?.firstTokenAt).toBeDefined()
    await new Promise((r) => setTimeout(r, 250))
    expect((await post(user, '/api/chat/stop', { sessionId })).json().data).toEqual({ stopped: true })
    const { events } = await streaming
    const stopped = eventOf(events, 'stopped')?.data
    expect(stopped?.partialKept).toBe(true)
    expect(stopped?.reply?.status).toBe('interrupted')
    expect(REPLY.startsWith(stopped?.reply?.content ?? 'x')).toBe(true)
    expect(stopped?.reply?.content.length).toBeLessThan(REPLY.length)
    await expect.poll(() => api.timings[n]?.closedEarly).toBe(true)
    expect((await post(user, '/api/chat/stop', { sessionId })).json().data).toEqual({ stopped: false })
    expect((await messagesOf(user, sessionId))[0]).toEqual(stopped?.reply)
  })

  it('stops when the client goes away mid-stream, keeping what came (real HTTP)', async () => {
    const { user, sessionId } = await newChat()
    api.tokenDelayMs = 100
    const n = api.timings.length
    const abort = new AbortController()
    const response = await fetch(`${baseUrl}/api/chat/stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ sessionId, message: 'Whisper it.' }),
      signal: abort.signal,
    })
    let deltas = 0
    const events = await readEvents(response, (event) => {
      if (event.event === 'delta' && ++deltas === 3) abort.abort()
    })
    expect(events[0]?.event).toBe('start')
    await expect.poll(() => api.timings[n]?.closedEarly).toBe(true)
    await expect
      .poll(async () => (await messagesOf(user, sessionId))[0])
      .toMatchObject({ author: 'assistant', status: 'interrupted' })
    const kept = (await messagesOf(user, sessionId))[0]?.content ?? ''
    // What the client saw (three deltas), perhaps one more that was on its way, never the whole reply.
    expect(kept.startsWith('The lighthouse keeper')).toBe(true)
    expect(REPLY.startsWith(kept) && kept.length < REPLY.length).toBe(true)
  })

  it('refuses a second message while a reply is being written', async () => {
    const { user, sessionId } = await newChat()
    api.tokenDelayMs = 50
    const n = api.timings.length
    const first = stream(user, '/api/chat/stream', { sessionId, message: 'One.' })
    await expect.poll(() => api.timings[n]?.firstTokenAt).toBeDefined()
    const second = await send(user, sessionId, 'Two.')
    expect(second.statusCode).toBe(409)
    expect(second.json().error).toBe('REPLY_IN_PROGRESS')
    expect(eventOf((await first).events, 'done')).toBeDefined()
    expect((await messagesOf(user, sessionId)).filter((m) => m.author === 'user').map((m) => m.content)).toEqual([
      'One.',
    ])
  })

  it('edits a message: later messages go, and a regeneration answers the new text', async () => {
    const { user, sessionId } = await newChat()
    const first = (await send(user, sessionId, 'I bring bad news.')).json().data
    const second = (await send(user, sessionId, 'The ship sank.')).json().data
    const edited = await post(user, '/api/chat/editMessage', {
      sessionId,
      messageId: first.userMessage.id,
      content: 'I bring good news.',
    })
    expect(edited.statusCode).toBe(200)
    expect(edited.json().data.message).toMatchObject({ id: first.userMessage.id, content: 'I bring good news.' })
    expect(edited.json().data.message.editedAt).not.toBeNull()
    expect(edited.json().data.removedMessageIds).toEqual([first.reply.id, second.userMessage.id, second.reply.id])
    const regenerated = (await post(user, '/api/chat/regenerate', { sessionId })).json().data
    expect(regenerated.reply.content).toBe(REPLY)
    expect(lastStreamed()?.messages.at(-1)).toEqual({ role: 'user', content: 'I bring good news.' })
    const stored = await messagesOf(user, sessionId)
    expect(stored.map((m) => m.content)).toEqual([REPLY, 'I bring good news.', expect.any(String)])

    const notMine = await post(user, '/api/chat/editMessage', {
      sessionId,
      messageId: regenerated.reply.id,
      content: 'x',
    })
    expect(notMine.statusCode).toBe(403)
    const tooLong = await post(user, '/api/chat/editMessage', {
      sessionId,
      messageId: first.userMessage.id,
      content: 'x'.repeat(CHAT_MESSAGE_MAX_LENGTH + 1),
    })
    expect(tooLong.json().error).toBe('MESSAGE_TOO_LONG')
  })

  it('regenerating a lone greeting is refused (choose among the greetings instead)', async () => {
    const { user, sessionId } = await newChat()
    const requests = api.requests.length
    const res = await post(user, '/api/chat/regenerate', { sessionId })
    expect(res.statusCode).toBe(400)
    expect(api.requests.length).toBe(requests)
  })
})

describe('limits', () => {
  it('bounds the message length with MESSAGE_TOO_LONG, counting characters, not UTF-16 units', async () => {
    const { user, sessionId } = await newChat()
    const requests = api.requests.length
    const tooLong = await send(user, sessionId, 'a'.repeat(CHAT_MESSAGE_MAX_LENGTH + 1))
    expect(tooLong.statusCode).toBe(400)
    expect(tooLong.json()).toMatchObject({
      error: 'MESSAGE_TOO_LONG',
      details: { maxLength: CHAT_MESSAGE_MAX_LENGTH, length: CHAT_MESSAGE_MAX_LENGTH + 1 },
    })
    expect(api.requests.length).toBe(requests)
    expect(await messagesOf(user, sessionId)).toHaveLength(1)
    // 4000 emoji are 8000 UTF-16 units, and still within the bound.
    const emoji = await send(user, sessionId, '🌊'.repeat(CHAT_MESSAGE_MAX_LENGTH))
    expect(emoji.statusCode).toBe(200)
    expect((await send(user, sessionId, '   ')).statusCode).toBe(400)
  })

  it('rate-limits sending per user', async () => {
    const { user, sessionId } = await newChat()
    const other = await newChat()
    for (let i = 0; i < CHAT_SEND_LIMIT.max; i++) {
      // Refused attempts count too: the limit is on attempts, before anything else is checked.
      expect((await send(user, sessionId, 'x'.repeat(CHAT_MESSAGE_MAX_LENGTH + 1))).statusCode).toBe(400)
    }
    const limited = await send(user, sessionId, 'Hello')
    expect(limited.statusCode).toBe(429)
    expect(limited.json().error).toBe('RATE_LIMITED')
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0)
    expect((await post(user, '/api/chat/regenerate/stream', { sessionId })).statusCode).toBe(429)
    expect(await messagesOf(user, sessionId)).toHaveLength(1)
    expect((await send(other.user, other.sessionId, 'Hello')).statusCode).toBe(200)
  })

  it('rate-limits starting chats per user: a burst gets 429 RATE_LIMITED and creates nothing more', async () => {
    const user = await t.login()
    const other = await t.login()
    const roleId = await newRole()
    const burst = await Promise.all(
      Array.from({ length: CHAT_CREATE_SESSION_LIMIT.max + 10 }, () => post(user, '/api/createSession', { roleId })),
    )
    const statuses = burst.map((res) => res.statusCode)
    expect(statuses.filter((s) => s === 200)).toHaveLength(CHAT_CREATE_SESSION_LIMIT.max)
    expect(statuses.filter((s) => s === 429)).toHaveLength(10)
    const limited = burst.find((res) => res.statusCode === 429)
    expect(limited?.json().error).toBe('RATE_LIMITED')
    expect(Number(limited?.headers['retry-after'])).toBeGreaterThan(0)
    // Those refused created nothing (those let through may have reused an empty chat, ADR 048).
    const rows = await t.database.db.select().from(chatSessions).where(eq(chatSessions.userId, user.user.id))
    expect(rows.length).toBeGreaterThanOrEqual(1)
    expect(rows.length).toBeLessThanOrEqual(CHAT_CREATE_SESSION_LIMIT.max)
    // Another user is not held back by it.
    expect((await post(other, '/api/createSession', { roleId })).statusCode).toBe(200)
  })

  it('rate-limits saving memory notes per user; the note refused keeps the one before', async () => {
    const { user, sessionId } = await newChat()
    for (let i = 0; i < CHAT_MEMORY_UPDATE_LIMIT.max; i++) {
      const saved = await post(user, '/api/session/memory/update', { sessionId, note: `Note ${i}` })
      expect(saved.statusCode).toBe(200)
    }
    const limited = await post(user, '/api/session/memory/update', { sessionId, note: 'One too many' })
    expect(limited.statusCode).toBe(429)
    expect(limited.json().error).toBe('RATE_LIMITED')
    const memory = await post(user, '/api/session/memory', { sessionId })
    expect(memory.json().data.note).toBe(`Note ${CHAT_MEMORY_UPDATE_LIMIT.max - 1}`)
    const other = await newChat()
    expect(
      (await post(other.user, '/api/session/memory/update', { sessionId: other.sessionId, note: 'Mine' })).statusCode,
    ).toBe(200)
  })

  it('refuses a model that is not offered, before storing anything', async () => {
    const { user, sessionId } = await newChat()
    const res = await send(user, sessionId, 'Hi', { chatModelId: 'gpt-99' })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toMatchObject({ error: 'MODEL_UNAVAILABLE', details: { chatModelId: 'gpt-99' } })
    expect(await messagesOf(user, sessionId)).toHaveLength(1)
    // Without a model the session's last one is used, else the default.
    const res2 = await post(user, '/api/chat', { sessionId, message: 'Hi' })
    expect(res2.json().data.reply.modelId).toBe('tavern-8b')
  })

  it('recognises a repeated request with a free model: the stored reply again, nothing asked or stored twice', async () => {
    const { user, sessionId } = await newChat()
    const payload = { requestId: 'req-free-0001' }
    api.fail(500)
    expect((await send(user, sessionId, 'Are you there?', payload)).statusCode).toBe(502)
    // The first attempt failed after storing the message: the repeat generates the reply it never got.
    const retried = await send(user, sessionId, 'Are you there?', payload)
    expect(retried.json().data).toMatchObject({ replayed: false, content: REPLY })
    const modelCalls = api.requests.length
    const { events } = await stream(user, '/api/chat/stream', { sessionId, message: 'Are you there?', ...payload })
    expect(eventOf(events, 'start')?.data).toMatchObject({ replayed: true })
    expect(eventOf(events, 'done')?.data).toMatchObject({ replayed: true, content: REPLY })
    expect(api.requests.length).toBe(modelCalls)
    expect((await messagesOf(user, sessionId)).map((m) => m.author)).toEqual(['assistant', 'user', 'assistant'])
  })

  it("refuses, storing nothing, when the chat's character is gone or its model became premium for this plan", async () => {
    const { user, sessionId, roleId } = await newChat(await basicUser())
    // The session's own model is used when none is named: a premium one is refused to a plan without them.
    await t.database.db.update(chatSessions).set({ modelId: 'grand-70b' }).where(eq(chatSessions.id, sessionId))
    const premium = await post(user, '/api/chat/stream', { sessionId, message: 'Is anyone keeping the lamp?' })
    expect(premium.statusCode).toBe(403)
    expect(premium.json()).toMatchObject({ error: 'PREMIUM_REQUIRES_PLAN' })
    await t.database.db.delete(roles).where(eq(roles.publicId, roleId))
    const gone = await post(user, '/api/chat/stream', {
      sessionId: sessionId.toUpperCase(),
      message: 'Is anyone keeping the lamp?',
    })
    expect(gone.statusCode).toBe(409)
    expect(await messagesOf(user, sessionId)).toHaveLength(1)
    expect(api.requests.filter((r) => r.messages.at(-1)?.content === 'Is anyone keeping the lamp?')).toHaveLength(0)
  })
})

describe('premium models and diamonds', () => {
  it('refuses premium models to a plan without them (403), storing and spending nothing', async () => {
    const user = await basicUser()
    // Diamonds in hand do not open premium models on a plan that has none.
    await t.app.services.diamonds.grantSignup(user.user.id)
    const { sessionId } = await newChat(user)
    const requests = api.requests.length
    const res = await send(user, sessionId, 'Hi', { chatModelId: 'grand-70b' })
    expect(res.statusCode).toBe(403)
    expect(res.json()).toMatchObject({
      error: 'PREMIUM_REQUIRES_PLAN',
      details: { chatModelId: 'grand-70b', planId: BASIC_PLAN.id },
    })
    const streamed = await post(user, '/api/chat/stream', { sessionId, message: 'Hi', chatModelId: 'grand-70b' })
    expect(streamed.statusCode).toBe(403)
    expect(streamed.json().error).toBe('PREMIUM_REQUIRES_PLAN')
    expect(await messagesOf(user, sessionId)).toHaveLength(1)
    expect(await balanceOf(user)).toBe(SIGNUP_GRANT_DIAMONDS)
    expect(api.requests.length).toBe(requests)
  })

  it('the free plan spends its diamonds on premium models: balance and ledger show the spend', async () => {
    const user = await t.login()
    await t.app.services.diamonds.grantSignup(user.user.id)
    const { sessionId } = await newChat(user)
    expect((await post(user, '/api/session', { sessionId })).json().data.plan).toEqual({
      planId: 'free',
      memoryK: 4,
      premiumModels: true,
    })
    const res = await send(user, sessionId, 'Light the big lamp?', {
      chatModelId: 'grand-70b',
      requestId: 'req-free-premium',
    })
    expect(res.statusCode).toBe(200)
    expect(res.json().data).toMatchObject({
      diamondsSpent: PREMIUM_COST,
      balance: SIGNUP_GRANT_DIAMONDS - PREMIUM_COST,
      reply: { content: REPLY, modelId: 'grand-70b', diamondsSpent: PREMIUM_COST },
    })
    expect(lastStreamed()?.model).toBe('provider/grand-70b')
    expect(await balanceOf(user)).toBe(SIGNUP_GRANT_DIAMONDS - PREMIUM_COST)
    const [swipe] = await t.database.db.select().from(chatSwipes).where(eq(chatSwipes.requestId, 'req-free-premium'))
    const ledger = await t.database.db
      .select()
      .from(diamondLedger)
      .where(eq(diamondLedger.userId, user.user.id))
      .orderBy(diamondLedger.id)
    // The price was held before the model was asked, and the hold settled into the spend (ADR 024).
    const holdId = ledger.find((row) => row.reason === 'hold')?.reference.slice('chat-hold:'.length)
    expect(ledger.map((row) => ({ amount: row.amount, reason: row.reason, reference: row.reference }))).toEqual([
      { amount: SIGNUP_GRANT_DIAMONDS, reason: 'signup', reference: `signup:${user.user.id}` },
      { amount: -PREMIUM_COST, reason: 'hold', reference: `chat-hold:${holdId}` },
      { amount: PREMIUM_COST, reason: 'settle', reference: `chat-hold-end:${holdId}` },
      { amount: -PREMIUM_COST, reason: 'chat', reference: `chat:${swipe?.id}` },
    ])

    // Streamed, the same: paid once more.
    const { events } = await stream(user, '/api/chat/stream', {
      sessionId,
      message: 'And the small one?',
      chatModelId: 'grand-70b',
    })
    expect(eventOf(events, 'done')?.data).toMatchObject({
      diamondsSpent: PREMIUM_COST,
      balance: SIGNUP_GRANT_DIAMONDS - 2 * PREMIUM_COST,
    })
    expect(await balanceOf(user)).toBe(SIGNUP_GRANT_DIAMONDS - 2 * PREMIUM_COST)
    expect((await messagesOf(user, sessionId)).map((m) => m.author)).toEqual([
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
    ])
  })

  it('the free plan without diamonds: premium models refused with 402, nothing stored, asked or spent', async () => {
    const user = await t.login()
    const { sessionId } = await newChat(user)
    expect(await balanceOf(user)).toBe(0)
    const requests = api.requests.length
    const res = await send(user, sessionId, 'Light the big lamp?', { chatModelId: 'grand-70b' })
    expect(res.statusCode).toBe(402)
    expect(res.json()).toMatchObject({ error: 'INSUFFICIENT_DIAMONDS', details: { needed: PREMIUM_COST, balance: 0 } })
    // The session's own model, streamed: refused the same way.
    await t.database.db.update(chatSessions).set({ modelId: 'grand-70b' }).where(eq(chatSessions.id, sessionId))
    const streamed = await post(user, '/api/chat/stream', { sessionId, message: 'Light the big lamp?' })
    expect(streamed.statusCode).toBe(402)
    expect(streamed.json().error).toBe('INSUFFICIENT_DIAMONDS')
    expect(await messagesOf(user, sessionId)).toHaveLength(1)
    expect(api.requests.length).toBe(requests)
    expect(await balanceOf(user)).toBe(0)
    expect(await t.database.db.select().from(diamondLedger).where(eq(diamondLedger.userId, user.user.id))).toEqual([])
  })

  it('spends exactly once per reply, also when the same request is repeated', async () => {
    const user = await proUser()
    const { sessionId } = await newChat(user)
    const before = await balanceOf(user)
    expect(before).toBe(3000)
    const payload = { chatModelId: 'grand-70b', requestId: 'req-0001-premium' }
    const first = await send(user, sessionId, 'Worth every diamond?', payload)
    expect(first.statusCode).toBe(200)
    expect(first.json().data).toMatchObject({ diamondsSpent: PREMIUM_COST, balance: before - PREMIUM_COST })
    expect(first.json().data.reply).toMatchObject({ diamondsSpent: PREMIUM_COST, modelId: 'grand-70b' })
    expect(lastStreamed()?.model).toBe('provider/grand-70b')
    const modelCalls = api.requests.length

    // The answer was lost; the client sends the same request again, streamed this time.
    const { events } = await stream(user, '/api/chat/stream', {
      sessionId,
      message: 'Worth every diamond?',
      ...payload,
    })
    expect(eventOf(events, 'start')?.data).toMatchObject({ replayed: true })
    const done = eventOf(events, 'done')?.data
    expect(done).toMatchObject({ replayed: true, diamondsSpent: 0, balance: before - PREMIUM_COST })
    expect(done?.reply.id).toBe(first.json().data.reply.id)
    expect((await send(user, sessionId, 'Worth every diamond?', payload)).json().data.replayed).toBe(true)
    expect(api.requests.length).toBe(modelCalls)
    expect(await balanceOf(user)).toBe(before - PREMIUM_COST)
    expect((await messagesOf(user, sessionId)).filter((m) => m.author === 'user')).toHaveLength(1)
    const ledger = await t.database.db.select().from(diamondLedger).where(eq(diamondLedger.userId, user.user.id))
    const spends = ledger.filter((row) => row.reason === 'chat')
    const [swipe] = await t.database.db.select().from(chatSwipes).where(eq(chatSwipes.requestId, 'req-0001-premium'))
    expect(spends).toEqual([expect.objectContaining({ amount: -PREMIUM_COST, reference: `chat:${swipe?.id}` })])

    // A regeneration is a new reply, paid once more; a failed one is never paid.
    await post(user, '/api/chat/regenerate', { sessionId, chatModelId: 'grand-70b' })
    expect(await balanceOf(user)).toBe(before - 2 * PREMIUM_COST)
    api.fail(500)
    expect((await post(user, '/api/chat/regenerate', { sessionId, chatModelId: 'grand-70b' })).statusCode).toBe(502)
    api.cut(2)
    const cut = await stream(user, '/api/chat/regenerate/stream', { sessionId, chatModelId: 'grand-70b' })
    expect(eventOf(cut.events, 'error')?.data.reply).toMatchObject({ status: 'interrupted', diamondsSpent: 0 })
    expect(await balanceOf(user)).toBe(before - 2 * PREMIUM_COST)
  })

  it('repeats a request whose first attempt failed by generating the reply it never got', async () => {
    const user = await proUser()
    const { sessionId } = await newChat(user)
    const payload = { chatModelId: 'grand-70b', requestId: 'req-0002-retry' }
    api.fail(500)
    expect((await send(user, sessionId, 'Again?', payload)).statusCode).toBe(502)
    const retried = await send(user, sessionId, 'Again?', payload)
    expect(retried.json().data).toMatchObject({ replayed: false, diamondsSpent: PREMIUM_COST, content: REPLY })
    expect((await send(user, sessionId, 'Again?', payload)).json().data).toMatchObject({ replayed: true })
    expect((await messagesOf(user, sessionId)).map((m) => m.author)).toEqual(['assistant', 'user', 'assistant'])
    expect(await balanceOf(user)).toBe(3000 - PREMIUM_COST)
  })

  it('refuses with 402 up front when the balance does not cover the message: nothing stored or spent', async () => {
    const user = await proUser()
    const { sessionId } = await newChat(user)
    await t.app.services.diamonds.spend(user.user.id, 3000 - (PREMIUM_COST - 1), 'test:drain', 'test')
    const requests = api.requests.length
    const res = await send(user, sessionId, 'One more?', { chatModelId: 'grand-70b' })
    expect(res.statusCode).toBe(402)
    expect(res.json()).toMatchObject({
      error: 'INSUFFICIENT_DIAMONDS',
      details: { needed: PREMIUM_COST, balance: PREMIUM_COST - 1 },
    })
    expect(await balanceOf(user)).toBe(PREMIUM_COST - 1)
    expect(api.requests.length).toBe(requests)
    expect(await messagesOf(user, sessionId)).toHaveLength(1)
    // Free models still answer.
    expect((await send(user, sessionId, 'One more?')).statusCode).toBe(200)
  })
})

describe('diamond holds (ADR 024)', () => {
  /** A free-plan user holding exactly `diamonds`. */
  async function userWith(diamonds: number) {
    const user = await t.login()
    await t.app.services.diamonds.grantSignup(user.user.id)
    await t.app.services.diamonds.spend(
      user.user.id,
      SIGNUP_GRANT_DIAMONDS - diamonds,
      `test:drain:${user.user.id}`,
      'test',
    )
    return user
  }
  const ledgerOf = (user: Session) =>
    t.database.db.select().from(diamondLedger).where(eq(diamondLedger.userId, user.user.id)).orderBy(diamondLedger.id)
  const premiumCalls = () => api.requests.filter((r) => r.stream && r.model === 'provider/grand-70b').length
  async function expectBalanceIsLedger(user: Session) {
    const sum = (await ledgerOf(user)).reduce((total, row) => total + row.amount, 0)
    expect(await balanceOf(user)).toBe(sum)
  }

  it('parallel sends with diamonds for one: one premium reply streams, the others get 402 before any model call', async () => {
    const user = await userWith(PREMIUM_COST)
    const sessions = await Promise.all(Array.from({ length: 8 }, () => newChat(user).then((c) => c.sessionId)))
    // Every reply takes a while, so all eight are in flight together.
    api.tokenDelayMs = 20
    const calls = premiumCalls()
    const results = await Promise.all(
      sessions.map((sessionId) =>
        stream(user, '/api/chat/stream', { sessionId, message: 'Tell me everything.', chatModelId: 'grand-70b' }),
      ),
    )
    const streamed = results.filter((r) => r.res.statusCode === 200)
    const refused = results.filter((r) => r.res.statusCode === 402)
    expect(streamed).toHaveLength(1)
    expect(refused).toHaveLength(7)
    for (const r of refused)
      expect(r.res.json()).toMatchObject({ error: 'INSUFFICIENT_DIAMONDS', details: { needed: PREMIUM_COST } })
    expect(eventOf(streamed[0]?.events ?? [], 'done')?.data).toMatchObject({
      content: REPLY,
      diamondsSpent: PREMIUM_COST,
      balance: 0,
    })
    expect(premiumCalls() - calls).toBe(1)
    expect(await balanceOf(user)).toBe(0)
    // Nothing of the refused sends was stored.
    const stored = await Promise.all(sessions.map((id) => messagesOf(user, id)))
    expect(stored.map((m) => m.length).sort()).toEqual([1, 1, 1, 1, 1, 1, 1, 3])
    await expectBalanceIsLedger(user)
    expect((await ledgerOf(user)).filter((row) => row.reason === 'chat')).toHaveLength(1)
  })

  it('parallel regenerations pay each reply: diamonds for three give three replies, the rest 402', async () => {
    const user = await userWith(3 * PREMIUM_COST)
    const sessions: string[] = []
    for (let i = 0; i < 9; i++) {
      const { sessionId } = await newChat(user)
      expect((await send(user, sessionId, 'Hello')).statusCode).toBe(200)
      sessions.push(sessionId)
    }
    api.tokenDelayMs = 20
    const calls = premiumCalls()
    const results = await Promise.all(
      sessions.map((sessionId, i) =>
        i % 2 === 0
          ? stream(user, '/api/chat/regenerate/stream', { sessionId, chatModelId: 'grand-70b' })
          : post(user, '/api/chat/regenerate', { sessionId, chatModelId: 'grand-70b' }).then((res) => ({
              res,
              events: [],
            })),
      ),
    )
    const statuses = results.map((r) => r.res.statusCode)
    expect(statuses.filter((s) => s === 200)).toHaveLength(3)
    expect(statuses.filter((s) => s === 402)).toHaveLength(6)
    expect(premiumCalls() - calls).toBe(3)
    expect(await balanceOf(user)).toBe(0)
    expect((await ledgerOf(user)).filter((row) => row.reason === 'chat')).toHaveLength(3)
    await expectBalanceIsLedger(user)
  })

  it('the price is held while the reply is written; a failure, a stop and a cut refund it, the retry pays once', async () => {
    const user = await userWith(3 * PREMIUM_COST)
    const { sessionId } = await newChat(user)
    // While the reply streams, its price is already off the balance (a process killed now leaves the hold).
    api.tokenDelayMs = 30
    const running = stream(user, '/api/chat/stream', {
      sessionId,
      message: 'Slowly, please.',
      chatModelId: 'grand-70b',
    })
    await expect.poll(() => balanceOf(user)).toBe(2 * PREMIUM_COST)
    expect(eventOf((await running).events, 'done')?.data).toMatchObject({ diamondsSpent: PREMIUM_COST })
    api.tokenDelayMs = 0
    expect(await balanceOf(user)).toBe(2 * PREMIUM_COST)

    // A provider error: 502, the message kept, the hold refunded.
    api.fail(500)
    const payload = { chatModelId: 'grand-70b', requestId: 'req-hold-retry' }
    expect((await send(user, sessionId, 'And then?', payload)).statusCode).toBe(502)
    expect(await balanceOf(user)).toBe(2 * PREMIUM_COST)
    // The failed message, retried with its request id, is answered and paid once.
    const retried = await send(user, sessionId, 'And then?', payload)
    expect(retried.json().data).toMatchObject({ replayed: false, diamondsSpent: PREMIUM_COST, balance: PREMIUM_COST })
    const again = await send(user, sessionId, 'And then?', payload)
    expect(again.json().data).toMatchObject({ replayed: true, diamondsSpent: 0 })
    expect(await balanceOf(user)).toBe(PREMIUM_COST)

    // A cut stream: the partial reply is kept as interrupted, free.
    api.cut(2)
    const cut = await stream(user, '/api/chat/regenerate/stream', { sessionId, chatModelId: 'grand-70b' })
    expect(eventOf(cut.events, 'error')?.data.reply).toMatchObject({ status: 'interrupted', diamondsSpent: 0 })
    expect(await balanceOf(user)).toBe(PREMIUM_COST)
    // Stopped before any text: refunded too.
    api.firstTokenDelayMs = 500
    const stopping = stream(user, '/api/chat/regenerate/stream', { sessionId, chatModelId: 'grand-70b' })
    await expect.poll(() => balanceOf(user)).toBe(0)
    expect((await post(user, '/api/chat/stop', { sessionId })).json().data.stopped).toBe(true)
    expect(eventOf((await stopping).events, 'stopped')?.data).toMatchObject({ partialKept: false })
    api.firstTokenDelayMs = 0
    expect(await balanceOf(user)).toBe(PREMIUM_COST)

    const ledger = await ledgerOf(user)
    expect(ledger.filter((row) => row.reason === 'hold')).toHaveLength(5)
    expect(ledger.filter((row) => row.reason === 'refund').map((row) => row.amount)).toEqual([
      PREMIUM_COST,
      PREMIUM_COST,
      PREMIUM_COST,
    ])
    expect(ledger.filter((row) => row.reason === 'settle')).toHaveLength(2)
    expect(ledger.filter((row) => row.reason === 'chat')).toHaveLength(2)
    // Every hold ended exactly once, and none is open.
    for (const hold of ledger.filter((row) => row.reason === 'hold')) {
      const id = hold.reference.slice('chat-hold:'.length)
      expect(ledger.filter((row) => row.reference === `chat-hold-end:${id}`)).toHaveLength(1)
    }
    expect(await t.database.db.select().from(diamondHolds).where(eq(diamondHolds.userId, user.user.id))).toEqual([])
    await expectBalanceIsLedger(user)
  })
})

describe('memory by plan', () => {
  /** 40 messages of about 150 tokens each (6000 in all), numbered so tests can tell which went in. */
  const history = Array.from({ length: 40 }, (_, i) => ({
    author: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
    content: `Message ${i + 1}. ${'The waves crash on the rocks below the lamp room. '.repeat(14).trim()}`,
  }))

  async function chatWithHistory(user: Session) {
    const { sessionId, created } = await newChat(user)
    const ids = await addMessages(t.database.db, sessionId, history)
    return { sessionId, ids: [created.firstMessage.id as number, ...ids] }
  }

  it('free plan (4K): keeps the newest messages that fit, summarises the rest into the memory note', async () => {
    const user = await t.login()
    const { sessionId, ids } = await chatWithHistory(user)
    const requestsBefore = api.requests.length
    const res = await send(user, sessionId, 'What did I say first?')
    const { context } = res.json().data
    const { budgetTokens } = contextWindow(4, 128_000)
    expect(context).toMatchObject({ memoryK: 4, windowTokens: 4000, budgetTokens, trimmed: true })

    const sent = lastStreamed()?.messages ?? []
    expect(sent.at(-1)).toEqual({ role: 'user', content: 'What did I say first?' })
    const kept = sent.slice(1, -1).map((m) => String(m.content))
    // A contiguous run of the newest history, as much as fits, and not one message more.
    expect(kept.length).toBeGreaterThan(5)
    expect(kept.length).toBeLessThan(history.length)
    expect(kept).toEqual(history.slice(-kept.length).map((m) => m.content))
    const used = countMessageTokens(sent as { role: string; content: string }[])
    expect(used).toBeLessThanOrEqual(budgetTokens)
    const next = history[history.length - kept.length - 1]
    expect(used + countMessageTokens([{ role: next?.author ?? 'user', content: next?.content ?? '' }])).toBeGreaterThan(
      budgetTokens,
    )

    // In the background, the messages that fell out are summarised by the model and stored.
    await expect
      .poll(async () => (await post(user, '/api/session/memory', { sessionId })).json().data, { timeout: 5000 })
      .toMatchObject({ note: SUMMARY })
    // This chat's summary: another test's may still be running in the background on the same
    // model double, so it is told apart by this user's name in its transcript.
    const summaryCall = api.requests
      .slice(requestsBefore)
      .find((r) => !r.stream && String(r.messages.at(-1)?.content).includes(`${user.user.username}: `))
    expect(summaryCall?.model).toBe('tavern-8b')
    const transcript = String(summaryCall?.messages.at(-1)?.content)
    expect(transcript).toContain('Message 1.')
    // Only what fell out of the window is summarised.
    expect(transcript).not.toContain(kept.at(-1))
    const { coversThroughMessageId } = (await post(user, '/api/session/memory', { sessionId })).json().data
    expect(ids).toContain(coversThroughMessageId)

    // The note goes into the next prompt.
    await send(user, sessionId, 'And now?')
    expect(String(lastStreamed()?.messages[0]?.content)).toContain(SUMMARY)
  })

  it('pro plan (32K): the whole conversation fits, nothing is summarised', async () => {
    const user = await proUser()
    const { sessionId } = await chatWithHistory(user)
    const summariesBefore = api.requests.filter((r) => !r.stream).length
    const res = await send(user, sessionId, 'What did I say first?')
    expect(res.json().data.context).toMatchObject({ memoryK: 32, windowTokens: 32_000, trimmed: false })
    const sent = lastStreamed()?.messages ?? []
    // System (the greeting folded in), 40 messages, the new one.
    expect(sent).toHaveLength(1 + history.length + 1)
    expect(String(sent[0]?.content)).toContain('begins with')
    expect(sent[1]?.content).toBe(history[0]?.content)
    await new Promise((r) => setTimeout(r, 100))
    expect(api.requests.filter((r) => !r.stream).length).toBe(summariesBefore)
    const detail = (await post(user, '/api/session', { sessionId })).json().data
    expect(detail.memory).toEqual({ note: '', coversThroughMessageId: null, updatedAt: null, summaryProblem: null })
    expect(detail.plan).toEqual({ planId: 'pro', memoryK: 32, premiumModels: true })
  })

  it("a model's smaller context caps the window below the plan's memory", async () => {
    const user = await proUser()
    const { sessionId } = await chatWithHistory(user)
    const detail = (await post(user, '/api/session', { sessionId, chatModelId: 'small-2k' })).json().data
    // The model's 2048 tokens less the safety margin, in our counts (model-server-info.ts, ADR 030).
    expect(detail.context.modelId).toBe('small-2k')
    expect(detail.context.windowTokens).toBeLessThanOrEqual(Math.floor(2048 * (1 - SAFETY_MARGIN)))
    expect(detail.context.windowTokens).toBeGreaterThan(2048 / 4)
    expect(detail.context.replyReserveTokens).toBe(Math.floor(detail.context.windowTokens / 4))
    expect(detail.context.usedTokens).toBeLessThanOrEqual(detail.context.budgetTokens)
    expect(detail.context.trimmed).toBe(true)
  })

  it("a summary started before the user's edit of the note does not overwrite it", async () => {
    const user = await t.login()
    const { sessionId } = await chatWithHistory(user)
    api.firstTokenDelayMs = 300
    const before = api.requests.length
    await send(user, sessionId, 'Hi')
    await expect.poll(() => api.requests.slice(before).some((r) => !r.stream)).toBe(true)
    await post(user, '/api/session/memory/update', { sessionId, note: 'Mine, not the model’s.' })
    // Requests and timings line up (no faults here): wait for the summary's answer.
    const summary = api.requests.findIndex((r, i) => i >= before && !r.stream)
    await expect.poll(() => api.timings[summary]?.doneAt).toBeDefined()
    await new Promise((r) => setTimeout(r, 100))
    expect((await post(user, '/api/session/memory', { sessionId })).json().data.note).toBe('Mine, not the model’s.')
  })

  it('the user edits the memory note; the next prompt carries the edit', async () => {
    const { user, sessionId } = await newChat()
    const updated = await post(user, '/api/session/memory/update', { sessionId, note: 'The traveller is named Ash.' })
    expect(updated.json().data).toMatchObject({ note: 'The traveller is named Ash.' })
    expect(updated.json().data.updatedAt).not.toBeNull()
    await send(user, sessionId, 'Do you remember my name?')
    expect(String(lastStreamed()?.messages[0]?.content)).toContain('The traveller is named Ash.')
    const tooLong = await post(user, '/api/session/memory/update', { sessionId, note: 'x'.repeat(4001) })
    expect(tooLong.statusCode).toBe(400)
  })
})

describe('nothing the user wrote is lost', () => {
  it('property: whatever the model does, the message is stored as sent and nothing is spent', async () => {
    const fault = fc.oneof(
      fc.constant({ kind: 'none' as const }),
      fc.record({ kind: fc.constant('fail' as const), status: fc.constantFrom(400, 429, 500, 503) }),
      fc.record({ kind: fc.constant('cut' as const), after: fc.nat({ max: 6 }) }),
      fc.record({ kind: fc.constant('end' as const), after: fc.nat({ max: 6 }) }),
      fc.constant({ kind: 'malformed' as const }),
    )
    const text = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 120 }).filter((s) => s.trim().length > 0)
    await fc.assert(
      fc.asyncProperty(text, fault, fc.boolean(), async (message, f, streamed) => {
        const user = await proUser()
        const { sessionId } = await newChat(user)
        if (f.kind === 'fail') api.fail(f.status)
        if (f.kind === 'cut') api.cut(f.after)
        if (f.kind === 'end') api.endEarly(f.after)
        if (f.kind === 'malformed') api.malformed()
        const payload = { sessionId, message, chatModelId: 'grand-70b' }
        const res = await post(user, streamed ? '/api/chat/stream' : '/api/chat', payload)
        expect(res.statusCode).toBeLessThan(600)
        const stored = await messagesOf(user, sessionId)
        const mine = stored.filter((m) => m.author === 'user')
        expect(mine.map((m) => m.content)).toEqual([message])
        const reply = stored[0]?.author === 'assistant' && stored.length === 3 ? stored[0] : undefined
        const paid = 3000 - (await balanceOf(user))
        if (f.kind === 'none') {
          expect(reply?.status).toBe('complete')
          expect(paid).toBe(PREMIUM_COST)
        } else {
          expect(reply?.status ?? 'none').not.toBe('complete')
          expect(paid).toBe(0)
        }
      }),
      { numRuns: 12 },
    )
  })
})

describe('shutdown', () => {
  it('stops replies being written, stores their text, then closes', async () => {
    const own = await buildTestApp({ env: { MODELS_FILE: modelsFile, LLM_TIMEOUT_MS: String(TIMEOUT_MS) } })
    const user = await own.login()
    const roleId = await createRole(own.database.db, { name: 'Brann', firstMessage: 'Hello.' })
    const sessionId = (
      await own.injectWithLogin({ method: 'POST', url: '/api/createSession', payload: { roleId } }, user)
    ).json().data.id
    api.tokenDelayMs = 100
    const n = api.timings.length
    const streaming = own.injectWithLogin(
      { method: 'POST', url: '/api/chat/stream', payload: { sessionId, message: 'Keep talking.' } },
      user,
    )
    await expect.poll(() => api.timings[n]?.firstTokenAt).toBeDefined()
    await new Promise((r) => setTimeout(r, 150))
    const closing = own.app.close()
    const events = parseEvents((await streaming).body)
    await closing
    const error = eventOf(events, 'error')?.data
    expect(error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', kind: 'aborted', partialKept: true })
    expect(error?.reply).toMatchObject({ status: 'interrupted' })
    expect(error?.reply?.id).toBeGreaterThan(0)
  })
})

describe('storage', () => {
  it('keeps the session preview and the message mirror consistent with the selected swipe', async () => {
    const { user, sessionId } = await newChat()
    const sent = (await send(user, sessionId, 'Hi')).json().data
    api.reply = 'Second take.'
    await post(user, '/api/chat/regenerate', { sessionId })
    const [row] = await t.database.db.select().from(chatSessions).where(eq(chatSessions.id, sessionId))
    expect(row?.lastMessagePreview).toBe('Second take.')
    await post(user, '/api/chat/selectSwipe', { sessionId, messageId: sent.reply.id, swipeIndex: 0 })
    const [after] = await t.database.db.select().from(chatSessions).where(eq(chatSessions.id, sessionId))
    expect(after?.lastMessagePreview).toBe(REPLY)
    const swipeRows = await t.database.db
      .select()
      .from(chatSwipes)
      .where(eq(chatSwipes.messageId, sent.reply.id))
      .orderBy(chatSwipes.id)
    expect(swipeRows.map((s) => s.content)).toEqual([REPLY, 'Second take.'])
    const [message] = await t.database.db.select().from(chatMessages).where(eq(chatMessages.id, sent.reply.id))
    expect(message?.swipeId).toBe(swipeRows[0]?.id)
    // Free models spend nothing.
    const ledger = await t.database.db.select().from(diamondLedger).where(eq(diamondLedger.userId, user.user.id))
    expect(ledger.filter((row) => row.reference.startsWith('chat:'))).toEqual([])
  })
})
