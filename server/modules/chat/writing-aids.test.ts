import { count, eq } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { SIGNUP_GRANT_DIAMONDS } from '#contracts/plans.ts'
import { chatMessages, chatSessions, chatSwipes } from '#db/schema/chat.ts'
import { diamondHolds, diamondLedger } from '#db/schema/diamonds.ts'
import { type ChatMessageBody, type OpenAiApiDouble, startOpenAiApi } from '#tests/doubles/openai-api.ts'
import { createRole } from '#tests/factories/catalogue.ts'
import { addMessages } from '#tests/factories/chat.ts'
import { parseEvents, writeModelsFile } from '#tests/helpers/chat.ts'
import { BASIC_PLAN, shippedPlans, writePlansFile } from '#tests/helpers/plans.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'
import { AUTHOR_NOTE_OPEN } from './message-shaping.ts'

// Issue 22 item 8 (ADR 053): impersonate, the author's note per chat, and "regenerate with".

type Session = Awaited<ReturnType<TestApp['login']>>

const REPLY = 'The keeper nods and lights the lamp.'
const DRAFT = 'I shake the rain from my coat and sit by the fire.'
const PREMIUM_COST = 5

let api: OpenAiApiDouble
let t: TestApp

beforeAll(async () => {
  api = await startOpenAiApi({ reply: REPLY })
  const modelsFile = writeModelsFile([
    { id: 'tavern-8b', name: 'Tavern 8B', premium: false, contextTokens: 128_000, baseUrl: api.baseUrl },
    { id: 'bard-12b', name: 'Bard 12B', premium: false, contextTokens: 128_000, baseUrl: api.baseUrl },
    {
      id: 'grand-70b',
      name: 'Grand 70B',
      premium: true,
      diamondsPerMessage: PREMIUM_COST,
      contextTokens: 128_000,
      baseUrl: api.baseUrl,
    },
    // A small window: the conversation is trimmed.
    { id: 'small-2k', name: 'Small', premium: false, contextTokens: 2048, baseUrl: api.baseUrl },
  ])
  t = await buildTestApp({
    env: { MODELS_FILE: modelsFile, LLM_TIMEOUT_MS: '20000' },
    plansFile: writePlansFile([...shippedPlans(), BASIC_PLAN]),
  })
})
afterEach(() => {
  expect(api.pendingFaults).toEqual([])
  api.reset()
  api.reply = REPLY
})
afterAll(async () => {
  await t.close()
  await api.close()
})

const post = (session: Session, url: string, payload?: object) =>
  t.injectWithLogin({ method: 'POST', url, ...(payload ? { payload } : {}) }, session)

async function newChat(session?: Session) {
  const user = session ?? (await t.login())
  const roleId = await createRole(t.database.db, { name: 'Mara', firstMessage: 'Come in, {{user}}.' })
  const res = await post(user, '/api/createSession', { roleId })
  expect(res.statusCode).toBe(200)
  return { user, roleId, sessionId: res.json().data.id as string }
}

const lastStreamed = () => api.requests.filter((r) => r.stream).at(-1)
const textOf = (messages: ChatMessageBody[] | undefined) => JSON.stringify(messages ?? [])
const messageCount = async (sessionId: string) =>
  (await t.database.db.select({ n: count() }).from(chatMessages).where(eq(chatMessages.sessionId, sessionId)))[0]?.n
const balanceOf = async (session: Session) =>
  (await t.injectWithLogin({ method: 'GET', url: '/api/points' }, session)).json().data.totalPoints as number

async function planUser(planId: string): Promise<Session> {
  const session = await t.login()
  const { orderId } = (await post(session, '/api/subscription', { planId })).json().data
  expect((await post(session, '/api/payment/sandbox', { orderId, outcome: 'paid' })).statusCode).toBe(200)
  return session
}

const impersonate = (user: Session, payload: object) => post(user, '/api/chat/impersonate/stream', payload)
const setNote = (user: Session, payload: object) => post(user, '/api/session/author-note/update', payload)

describe('impersonate', () => {
  it("streams a draft of the user's next line as the chat's persona, in the chat's language; stores nothing, costs nothing on a free model", async () => {
    const user = await t.login()
    const persona = await post(user, '/api/personas', {
      name: 'Wren Ashdown',
      description: 'A tired courier.',
      isDefault: true,
    })
    expect(persona.statusCode).toBe(200)
    const { sessionId } = await newChat(user)
    await post(user, '/api/session/settings/update', {
      sessionId,
      temperature: null,
      replyTokens: null,
      language: 'fr',
    })
    const before = await messageCount(sessionId)
    const balance = await balanceOf(user)
    api.reply = DRAFT
    const res = await impersonate(user, { sessionId })
    expect(res.statusCode).toBe(200)
    const events = parseEvents(res.body)
    expect(events[0]).toMatchObject({ event: 'start', data: { modelId: 'tavern-8b' } })
    const deltas = events.filter((e) => e.event === 'delta').map((e) => (e.data as { text: string }).text)
    expect(deltas.length).toBeGreaterThan(1)
    expect(deltas.join('')).toBe(DRAFT)
    expect(events.at(-1)).toMatchObject({
      event: 'done',
      data: { content: DRAFT, modelId: 'tavern-8b', diamondsSpent: 0, balance },
    })
    // The request: the persona's name and description, the impersonation instruction last, the chat's language.
    const asked = textOf(lastStreamed()?.messages)
    expect(asked).toContain('Wren Ashdown')
    expect(asked).toContain('A tired courier.')
    expect(asked).toContain("you write Wren Ashdown's next message")
    expect(asked).toContain('French')
    expect(String(lastStreamed()?.messages.at(-1)?.content)).toContain("you write Wren Ashdown's next message")
    // Nothing stored, nothing spent.
    expect(await messageCount(sessionId)).toBe(before)
    expect(await balanceOf(user)).toBe(balance)
  })

  it("the card's post-history instructions give way to impersonate's own", async () => {
    const user = await t.login()
    const roleId = await createRole(t.database.db, {
      name: 'Mara',
      firstMessage: 'Come in.',
      cardExtras: { postHistoryInstructions: 'Always answer as Mara only.' },
    })
    const sessionId = (await post(user, '/api/createSession', { roleId })).json().data.id as string
    await post(user, '/api/chat', { sessionId, message: 'Hello' })
    expect(textOf(lastStreamed()?.messages)).toContain('Always answer as Mara only.')
    api.reply = DRAFT
    const res = await impersonate(user, { sessionId })
    expect(parseEvents(res.body).at(-1)?.event).toBe('done')
    const asked = textOf(lastStreamed()?.messages)
    expect(asked).not.toContain('Always answer as Mara only.')
    expect(asked).toContain('next message in the role-play')
  })

  it("refuses another user's chat with 404, asking no model", async () => {
    const { sessionId } = await newChat()
    const stranger = await t.login()
    const res = await impersonate(stranger, { sessionId })
    expect(res.statusCode).toBe(404)
    expect(res.json().error).toBe('INVALID_SESSION')
    expect(api.requests.filter((r) => r.stream)).toHaveLength(0)
  })

  it('a premium model: its price reserved, spent once the draft is complete, given back on a failure', async () => {
    const user = await t.login()
    await t.app.services.diamonds.grantSignup(user.user.id)
    const { sessionId } = await newChat(user)
    api.reply = DRAFT
    const res = await impersonate(user, { sessionId, chatModelId: 'grand-70b' })
    expect(parseEvents(res.body).at(-1)).toMatchObject({
      event: 'done',
      data: { diamondsSpent: PREMIUM_COST, balance: SIGNUP_GRANT_DIAMONDS - PREMIUM_COST },
    })
    expect(await balanceOf(user)).toBe(SIGNUP_GRANT_DIAMONDS - PREMIUM_COST)
    const spends = await t.database.db
      .select({ reference: diamondLedger.reference })
      .from(diamondLedger)
      .where(eq(diamondLedger.userId, user.user.id))
    expect(spends.filter((s) => s.reference.startsWith('chat-impersonate:'))).toHaveLength(1)

    api.fail(500)
    const failed = await impersonate(user, { sessionId, chatModelId: 'grand-70b' })
    expect(parseEvents(failed.body).at(-1)?.event).toBe('error')
    expect(await balanceOf(user)).toBe(SIGNUP_GRANT_DIAMONDS - PREMIUM_COST)
    expect(await t.database.db.select().from(diamondHolds).where(eq(diamondHolds.userId, user.user.id))).toEqual([])
    expect(await messageCount(sessionId)).toBe(1)
  })

  it('a premium model the plan does not include is refused before anything is asked', async () => {
    const user = await planUser(BASIC_PLAN.id)
    const { sessionId } = await newChat(user)
    const res = await impersonate(user, { sessionId, chatModelId: 'grand-70b' })
    expect(res.statusCode).toBe(403)
    expect(res.json().error).toBe('PREMIUM_REQUIRES_PLAN')
    expect(api.requests.filter((r) => r.stream)).toHaveLength(0)
  })
})

describe("the author's note", () => {
  it('is stored on the chat and shown with it', async () => {
    const { user, sessionId } = await newChat()
    const res = await setNote(user, { sessionId, text: '  Keep it  tense.\r\n', depth: 2 })
    expect(res.statusCode).toBe(200)
    expect(res.json().data).toEqual({ text: 'Keep it  tense.', depth: 2 })
    const detail = (await post(user, '/api/session', { sessionId })).json().data
    expect(detail.authorNote).toEqual({ text: 'Keep it  tense.', depth: 2 })
  })

  it('is bounded: a long text or a depth out of range is refused with 400 and changes nothing', async () => {
    const { user, sessionId } = await newChat()
    await setNote(user, { sessionId, text: 'Rain.', depth: 1 })
    const long = await setNote(user, { sessionId, text: 'é'.repeat(2001), depth: 1 })
    expect(long.statusCode).toBe(400)
    expect(long.json()).toMatchObject({
      error: 'VALIDATION_ERROR',
      details: [{ path: 'text', code: 'too_long', limit: 2000 }],
    })
    const deep = await setNote(user, { sessionId, text: 'Snow.', depth: 101 })
    expect(deep.statusCode).toBe(400)
    expect(deep.json().details).toEqual([{ path: 'depth', code: 'out_of_range', limit: 100 }])
    expect((await setNote(user, { sessionId, text: 'Snow.', depth: -1 })).statusCode).toBe(400)
    // 2,000 characters exactly pass.
    expect((await setNote(user, { sessionId, text: 'é'.repeat(2000), depth: 0 })).statusCode).toBe(200)
    await setNote(user, { sessionId, text: 'Rain.', depth: 1 })
    const [row] = await t.database.db
      .select({ text: chatSessions.authorNote, depth: chatSessions.authorNoteDepth })
      .from(chatSessions)
      .where(eq(chatSessions.id, sessionId))
    expect(row).toEqual({ text: 'Rain.', depth: 1 })
    // Another user's chat: 404, untouched.
    const stranger = await t.login()
    expect((await setNote(stranger, { sessionId, text: 'Mine now.', depth: 0 })).statusCode).toBe(404)
  })

  it('goes into the request at its depth, as a system instruction', async () => {
    const { user, sessionId } = await newChat()
    await addMessages(t.database.db, sessionId, [
      { author: 'user', content: 'FIRST-USER' },
      { author: 'assistant', content: 'FIRST-REPLY' },
      { author: 'user', content: 'SECOND-USER' },
      { author: 'assistant', content: 'SECOND-REPLY' },
    ])
    await setNote(user, { sessionId, text: 'NOTE: the storm grows.', depth: 2 })
    const res = await post(user, '/api/chat', { sessionId, message: 'THIRD-USER' })
    expect(res.statusCode).toBe(200)
    // Strict shaping (the default): a block in the user turn at its place, two messages before the end:
    // before SECOND-REPLY (the turns: … SECOND-USER, SECOND-REPLY, THIRD-USER).
    const turns = (lastStreamed()?.messages ?? []).map((m) => ({ role: m.role, content: String(m.content) }))
    const withNote = turns.filter((m) => m.content.includes('NOTE: the storm grows.'))
    expect(withNote).toHaveLength(1)
    expect(withNote[0]?.role).toBe('user')
    expect(withNote[0]?.content).toContain('SECOND-USER')
    expect(withNote[0]?.content).toContain(AUTHOR_NOTE_OPEN)
    expect(withNote[0]?.content.indexOf('SECOND-USER')).toBeLessThan(
      withNote[0]?.content.indexOf('NOTE: the storm grows.') ?? -1,
    )
    // Depth 0: after the last message.
    await setNote(user, { sessionId, text: 'NOTE: now.', depth: 0 })
    await post(user, '/api/chat', { sessionId, message: 'FOURTH-USER' })
    const last = String(lastStreamed()?.messages.at(-1)?.content)
    expect(last.indexOf('FOURTH-USER')).toBeLessThan(last.indexOf('NOTE: now.'))
    expect(last.indexOf('FOURTH-USER')).toBeGreaterThanOrEqual(0)
  })

  it('survives a trimmed context', async () => {
    const { user, sessionId } = await newChat()
    const long = 'word '.repeat(300)
    await addMessages(
      t.database.db,
      sessionId,
      Array.from({ length: 12 }, (_, i) => ({
        author: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
        content: `M${i} ${long}`,
      })),
    )
    await setNote(user, { sessionId, text: 'NOTE-KEPT', depth: 4 })
    const res = await post(user, '/api/chat', { sessionId, message: 'LAST', chatModelId: 'small-2k' })
    expect(res.statusCode).toBe(200)
    expect(res.json().data.context.trimmed).toBe(true)
    const asked = textOf(lastStreamed()?.messages)
    expect(asked).toContain('NOTE-KEPT')
    expect(asked).not.toContain('M0 ')
  })

  it("travels in SillyTavern's chat_metadata, out and back in; branches copy it; the data export holds it", async () => {
    const { user, roleId, sessionId } = await newChat()
    await addMessages(t.database.db, sessionId, [
      { author: 'user', content: 'Hello' },
      { author: 'assistant', content: 'Hi' },
    ])
    await setNote(user, { sessionId, text: 'Keep {{char}} wary.', depth: 3 })
    const exported = await t.injectWithLogin(
      { method: 'GET', url: `/api/chat/sessions/${sessionId}/export?format=sillytavern` },
      user,
    )
    expect(exported.statusCode).toBe(200)
    const header = JSON.parse(exported.body.split('\n')[0] ?? '{}')
    expect(header.chat_metadata).toEqual({
      note_prompt: 'Keep {{char}} wary.',
      note_interval: 1,
      note_depth: 3,
      note_position: 1,
      note_role: 0,
    })
    const form = new FormData()
    form.append('file', new Blob([exported.body]), 'chat.jsonl')
    const response = new Response(form)
    const imported = await t.injectWithLogin(
      {
        method: 'POST',
        url: `/api/chat/import?roleId=${roleId}`,
        payload: Buffer.from(await response.arrayBuffer()),
        headers: { 'content-type': response.headers.get('content-type') ?? '' },
      },
      user,
    )
    expect(imported.statusCode).toBe(200)
    const copy = imported.json().data.sessionId as string
    expect((await post(user, '/api/session', { sessionId: copy })).json().data.authorNote).toEqual({
      text: 'Keep {{char}} wary.',
      depth: 3,
    })

    const [first] = await t.database.db
      .select({ id: chatMessages.id })
      .from(chatMessages)
      .where(eq(chatMessages.sessionId, sessionId))
      .orderBy(chatMessages.id)
      .limit(1)
    const branch = await post(user, '/api/chat/branch', { sessionId, messageId: first?.id })
    expect(branch.statusCode).toBe(200)
    const branchId = branch.json().data.sessionId as string
    expect((await post(user, '/api/session', { sessionId: branchId })).json().data.authorNote).toEqual({
      text: 'Keep {{char}} wary.',
      depth: 3,
    })

    const data = (await t.injectWithLogin({ method: 'GET', url: '/api/account/export' }, user)).json()
    const chat = (data.data ?? data).chats.find((c: { id: string }) => c.id === sessionId)
    expect(chat).toMatchObject({ authorNote: 'Keep {{char}} wary.', authorNoteDepth: 3 })
  })
})

describe('regenerate with another model', () => {
  it('adds an alternative written by the chosen model, which the message and the chat then carry', async () => {
    const { user, sessionId } = await newChat()
    const first = await post(user, '/api/chat', { sessionId, message: 'Hello there' })
    expect(first.json().data.reply.modelId).toBe('tavern-8b')
    const replyId = first.json().data.reply.id as number
    api.reply = 'A second voice answers.'
    const again = await post(user, '/api/chat/regenerate', { sessionId, chatModelId: 'bard-12b' })
    expect(again.statusCode).toBe(200)
    expect(again.json().data.reply).toMatchObject({ id: replyId, modelId: 'bard-12b', swipeCount: 2, swipeIndex: 1 })
    expect(lastStreamed()?.model).toBe('bard-12b')
    const swipes = await t.database.db
      .select({ modelId: chatSwipes.modelId })
      .from(chatSwipes)
      .where(eq(chatSwipes.messageId, replyId))
      .orderBy(chatSwipes.id)
    expect(swipes.map((s) => s.modelId)).toEqual(['tavern-8b', 'bard-12b'])
    expect((await post(user, '/api/session', { sessionId })).json().data.modelId).toBe('bard-12b')
  })

  it('a model the plan may not use is refused; nothing changes', async () => {
    const user = await planUser(BASIC_PLAN.id)
    const { sessionId } = await newChat(user)
    const first = await post(user, '/api/chat', { sessionId, message: 'Hello there' })
    const replyId = first.json().data.reply.id as number
    const asked = api.requests.length
    const res = await post(user, '/api/chat/regenerate', { sessionId, chatModelId: 'grand-70b' })
    expect(res.statusCode).toBe(403)
    expect(res.json().error).toBe('PREMIUM_REQUIRES_PLAN')
    expect(api.requests.length).toBe(asked)
    const swipes = await t.database.db.select().from(chatSwipes).where(eq(chatSwipes.messageId, replyId))
    expect(swipes).toHaveLength(1)
    expect((await post(user, '/api/session', { sessionId })).json().data.modelId).toBe('tavern-8b')
  })
})
