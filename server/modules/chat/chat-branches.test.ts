import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ChatMessage } from '#contracts/chat.ts'
import type { ChatBranchLinks } from '#contracts/chat-branches.ts'
import { chatMessages, chatSessions, chatSwipes } from '#db/schema/chat.ts'
import { diamondLedger } from '#db/schema/diamonds.ts'
import { roles } from '#db/schema/roles.ts'
import { type OpenAiApiDouble, startOpenAiApi } from '#tests/doubles/openai-api.ts'
import { createRole } from '#tests/factories/catalogue.ts'
import { writeModelsFile } from '#tests/helpers/chat.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

// Issue 22, items 3 and 4 (ADR 050): the greeting is chosen before the user's first message and
// stays after it; "Branch from here" copies a chat up to a message, and leaves the original as it was.

type Session = Awaited<ReturnType<TestApp['login']>>

let api: OpenAiApiDouble
let t: TestApp
let replies = 0

beforeAll(async () => {
  api = await startOpenAiApi({ reply: () => `Reply number ${++replies}.` })
  const modelsFile = writeModelsFile([
    { id: 'tavern-8b', name: 'Tavern 8B', premium: false, contextTokens: 128_000, baseUrl: api.baseUrl },
  ])
  t = await buildTestApp({ env: { MODELS_FILE: modelsFile } })
})
afterAll(async () => {
  await t?.close()
  await api?.close()
})

const post = (session: Session, url: string, payload: object) =>
  t.injectWithLogin({ method: 'POST', url, payload }, session)

async function ok<T = Record<string, unknown>>(session: Session, url: string, payload: object): Promise<T> {
  const res = await post(session, url, payload)
  expect(res.statusCode, `${url}: ${res.body}`).toBe(200)
  return res.json().data as T
}

const GREETINGS = {
  firstMessage: 'The inn is full tonight, {{user}}.',
  alternateGreetings: ['You again? Sit down, {{user}}.', 'Mind the cat on the stairs.'],
}

async function newChat(user: Session) {
  const roleId = await createRole(t.database.db, { name: 'Ostler', ...GREETINGS })
  const created = await ok<{ id: string; firstMessage: ChatMessage }>(user, '/api/createSession', { roleId })
  return { roleId, sessionId: created.id, greeting: created.firstMessage }
}

const messagesOf = async (user: Session, sessionId: string) =>
  (await ok<{ items: ChatMessage[] }>(user, '/api/messages', { sessionId, limit: 100 })).items.reverse()

/** Every row of a chat and of its messages' alternatives, to compare before and after. */
async function rowsOf(sessionId: string) {
  const db = t.database.db
  const [session] = await db.select().from(chatSessions).where(eq(chatSessions.id, sessionId))
  const messages = await db.select().from(chatMessages).where(eq(chatMessages.sessionId, sessionId))
  const swipes = await db
    .select({ swipe: chatSwipes })
    .from(chatSwipes)
    .innerJoin(chatMessages, eq(chatMessages.id, chatSwipes.messageId))
    .where(eq(chatMessages.sessionId, sessionId))
  return { session, messages: messages.sort((a, b) => a.id - b.id), swipes: swipes.map((s) => s.swipe) }
}

describe('choosing the greeting', () => {
  it('swipes among the greetings before the first message, in order, and not past the last', async () => {
    const user = await t.login({ username: 'wren' })
    const { sessionId, greeting } = await newChat(user)
    expect(greeting.swipeCount).toBe(3)
    expect(greeting.content).toBe('The inn is full tonight, wren.')
    const chosen = await ok<{ message: ChatMessage }>(user, '/api/chat/selectSwipe', {
      sessionId,
      messageId: greeting.id,
      swipeIndex: 2,
    })
    expect(chosen.message).toMatchObject({ content: 'Mind the cat on the stairs.', swipeIndex: 2 })
    const back = await ok<{ message: ChatMessage }>(user, '/api/chat/selectSwipe', {
      sessionId,
      messageId: greeting.id,
      swipeIndex: 1,
    })
    expect(back.message.content).toBe('You again? Sit down, wren.')
    const past = await post(user, '/api/chat/selectSwipe', { sessionId, messageId: greeting.id, swipeIndex: 3 })
    expect(past.statusCode).toBe(400)
    // Regenerating a greeting alone is refused: its alternatives are the character's greetings.
    const regenerate = await post(user, '/api/chat/regenerate', { sessionId, chatModelId: 'tavern-8b' })
    expect(regenerate.statusCode).toBe(400)
  })

  it('keeps the chosen greeting once the user wrote: the model sees it, and another is refused', async () => {
    const user = await t.login()
    const { sessionId, greeting } = await newChat(user)
    await ok(user, '/api/chat/selectSwipe', { sessionId, messageId: greeting.id, swipeIndex: 2 })
    await ok(user, '/api/chat', { sessionId, message: 'Is the cat friendly?', chatModelId: 'tavern-8b' })
    const prompt = JSON.stringify(api.requests.at(-1)?.messages)
    expect(prompt).toContain('Mind the cat on the stairs.')
    expect(prompt).not.toContain('The inn is full tonight')
    const refused = await post(user, '/api/chat/selectSwipe', { sessionId, messageId: greeting.id, swipeIndex: 0 })
    expect(refused.statusCode).toBe(409)
    expect(refused.json().error).toBe('CONFLICT')
    const [first] = await messagesOf(user, sessionId)
    expect(first).toMatchObject({ id: greeting.id, content: 'Mind the cat on the stairs.', swipeIndex: 2 })
    // A later reply's alternatives still switch: only the greeting is settled.
    const messages = await messagesOf(user, sessionId)
    await ok(user, '/api/chat/regenerate', { sessionId, chatModelId: 'tavern-8b' })
    const reply = messages.at(-1) as ChatMessage
    const switched = await ok<{ message: ChatMessage }>(user, '/api/chat/selectSwipe', {
      sessionId,
      messageId: reply.id,
      swipeIndex: 0,
    })
    expect(switched.message.content).toBe(reply.content)
  })
})

describe('branching a chat', () => {
  /**
   * A chat of five messages: greeting (its 2nd alternative chosen), user, reply (regenerated, its
   * 1st alternative chosen again), user, reply.
   */
  async function storyOf(user: Session) {
    const chat = await newChat(user)
    const { sessionId } = chat
    await ok(user, '/api/chat/selectSwipe', { sessionId, messageId: chat.greeting.id, swipeIndex: 1 })
    await ok(user, '/api/chat', { sessionId, message: 'A room for the night, please.', chatModelId: 'tavern-8b' })
    await ok(user, '/api/chat/regenerate', { sessionId, chatModelId: 'tavern-8b' })
    const afterRegenerate = await messagesOf(user, sessionId)
    const firstReply = afterRegenerate[2] as ChatMessage
    expect(firstReply.swipeCount).toBe(2)
    await ok(user, '/api/chat/selectSwipe', { sessionId, messageId: firstReply.id, swipeIndex: 0 })
    await ok(user, '/api/chat', { sessionId, message: 'And supper?', chatModelId: 'tavern-8b' })
    const messages = await messagesOf(user, sessionId)
    expect(messages.map((m) => m.author)).toEqual(['assistant', 'user', 'assistant', 'user', 'assistant'])
    return { ...chat, messages }
  }

  it('copies the history exactly up to the message, each message as it reads, and leaves the original as it was', async () => {
    const user = await t.login()
    const { sessionId, messages, roleId } = await storyOf(user)
    await ok(user, '/api/session/settings/update', { sessionId, temperature: 0.4, replyTokens: 300, language: 'fr' })
    const [{ chatCount: chatsBefore } = { chatCount: 0 }] = await t.database.db
      .select({ chatCount: roles.chatCount })
      .from(roles)
      .where(eq(roles.publicId, roleId))
    const before = await rowsOf(sessionId)
    const modelCalls = api.requests.length
    const ledgerBefore = await t.database.db.select().from(diamondLedger)
    const point = messages[2] as ChatMessage

    const branch = await ok<{ sessionId: string; copiedMessages: number }>(user, '/api/chat/branch', {
      sessionId,
      messageId: point.id,
    })
    expect(branch.sessionId).not.toBe(sessionId)
    expect(branch.copiedMessages).toBe(3)
    const copied = await messagesOf(user, branch.sessionId)
    expect(copied.map((m) => [m.author, m.content, m.status, m.modelId, m.createdAt])).toEqual(
      messages.slice(0, 3).map((m) => [m.author, m.content, m.status, m.modelId, m.createdAt]),
    )
    expect(copied[0]?.content).toBe(`You again? Sit down, ${user.user.username}.`)
    // One alternative per reply (the one chosen), none for the user's messages; nothing spent.
    expect(copied.map((m) => [m.swipeIndex, m.swipeCount, m.diamondsSpent])).toEqual([
      [0, 1, 0],
      [0, 0, 0],
      [0, 1, 0],
    ])
    const swipes = await ok<{ swipes: { content: string }[] }>(user, '/api/chat/swipes', {
      sessionId: branch.sessionId,
      messageId: copied[2]?.id,
    })
    expect(swipes.swipes.map((s) => s.content)).toEqual([point.content])

    // The branch keeps the chat's settings and says where it came from.
    const detail = await ok<{ settings: object; role: { id: string }; lastMessage: string }>(user, '/api/session', {
      sessionId: branch.sessionId,
    })
    expect(detail.settings).toEqual({ temperature: 0.4, replyTokens: 300, language: 'fr' })
    expect(detail.role.id).toBe(roleId)
    expect(detail.lastMessage).toBe(point.content)
    const links = await ok<ChatBranchLinks>(user, '/api/chat/branches', { sessionId: branch.sessionId })
    expect(links.parent).toMatchObject({ sessionId, messageId: point.id })
    expect(links.branches).toEqual([])
    const parentLinks = await ok<ChatBranchLinks>(user, '/api/chat/branches', { sessionId })
    expect(parentLinks.parent).toBeNull()
    expect(parentLinks.branches).toEqual([
      expect.objectContaining({ sessionId: branch.sessionId, fromMessageId: point.id, lastMessage: point.content }),
    ])

    // No model was asked, no diamond moved, the character's chat count is unchanged, and the
    // original chat is exactly as it was, row for row.
    expect(api.requests.length).toBe(modelCalls)
    expect(await t.database.db.select().from(diamondLedger)).toEqual(ledgerBefore)
    const [{ chatCount: chatsAfter } = { chatCount: -1 }] = await t.database.db
      .select({ chatCount: roles.chatCount })
      .from(roles)
      .where(eq(roles.publicId, roleId))
    expect(chatsAfter).toBe(chatsBefore)
    expect(await rowsOf(sessionId)).toEqual(before)

    // The branch goes its own way: a reply there leaves the original alone.
    await ok(user, '/api/chat', {
      sessionId: branch.sessionId,
      message: 'Actually, the stable.',
      chatModelId: 'tavern-8b',
    })
    expect((await messagesOf(user, branch.sessionId)).length).toBe(5)
    expect(await rowsOf(sessionId)).toEqual(before)
    // The user's chats list both.
    const list = await ok<{ sessions: { id: string }[] }>(user, '/api/sessions', {})
    expect(list.sessions.map((s) => s.id)).toEqual(expect.arrayContaining([sessionId, branch.sessionId]))
  })

  it('branches from the greeting alone, and from the last message (the whole chat)', async () => {
    const user = await t.login()
    const { sessionId, messages } = await storyOf(user)
    const fromGreeting = await ok<{ sessionId: string }>(user, '/api/chat/branch', {
      sessionId,
      messageId: messages[0]?.id,
    })
    const greetingOnly = await messagesOf(user, fromGreeting.sessionId)
    expect(greetingOnly.map((m) => m.content)).toEqual([messages[0]?.content])
    const whole = await ok<{ sessionId: string }>(user, '/api/chat/branch', { sessionId, messageId: messages[4]?.id })
    expect((await messagesOf(user, whole.sessionId)).map((m) => m.content)).toEqual(messages.map((m) => m.content))
    const links = await ok<ChatBranchLinks>(user, '/api/chat/branches', { sessionId })
    // Newest first.
    expect(links.branches.map((b) => b.sessionId)).toEqual([whole.sessionId, fromGreeting.sessionId])
    // Deleting the parent leaves the branches whole, without the link.
    await ok(user, '/api/deleteSession', { sessionId })
    expect((await messagesOf(user, whole.sessionId)).length).toBe(5)
    expect((await ok<ChatBranchLinks>(user, '/api/chat/branches', { sessionId: whole.sessionId })).parent).toBeNull()
  })

  it('copies the memory note only when it knows nothing after the message; its reach points at the copy', async () => {
    const user = await t.login()
    const { sessionId, messages } = await storyOf(user)
    const db = t.database.db
    const covered = messages[1] as ChatMessage
    await db
      .update(chatSessions)
      .set({ memoryNote: 'Wren asked for a room.', memoryThroughId: covered.id })
      .where(eq(chatSessions.id, sessionId))
    const later = await ok<{ sessionId: string }>(user, '/api/chat/branch', { sessionId, messageId: messages[3]?.id })
    const memory = await ok<{ note: string; coversThroughMessageId: number | null }>(user, '/api/session/memory', {
      sessionId: later.sessionId,
    })
    const copies = await messagesOf(user, later.sessionId)
    expect(memory).toMatchObject({ note: 'Wren asked for a room.', coversThroughMessageId: copies[1]?.id })

    // A note that covers messages after the branch point would tell the branch its own future.
    await db
      .update(chatSessions)
      .set({ memoryNote: 'Wren took the room and ate supper.', memoryThroughId: messages[3]?.id })
      .where(eq(chatSessions.id, sessionId))
    const earlier = await ok<{ sessionId: string }>(user, '/api/chat/branch', { sessionId, messageId: messages[2]?.id })
    expect(
      await ok<{ note: string; coversThroughMessageId: number | null }>(user, '/api/session/memory', {
        sessionId: earlier.sessionId,
      }),
    ).toMatchObject({ note: '', coversThroughMessageId: null })
  })

  it("keeps the chat's persona (ADR 049), not the user's default, and none stays none", async () => {
    const user = await t.login({ username: 'persona_owner' })
    const call = async (method: 'POST' | 'PUT' | 'GET', url: string, payload?: object) => {
      const res = await t.injectWithLogin({ method, url, ...(payload ? { payload } : {}) }, user)
      expect(res.statusCode, `${url}: ${res.body}`).toBe(200)
      return res.json().data
    }
    const personaOf = async (sessionId: string) =>
      ((await call('GET', `/api/chat/persona?sessionId=${sessionId}`)) as { personaId: string | null }).personaId
    const plain = await newChat(user)
    const fallback = (await call('POST', '/api/personas', { name: 'Default Dana', isDefault: true })) as { id: string }
    const mara = (await call('POST', '/api/personas', { name: 'Mara', description: 'A stowaway.' })) as { id: string }
    const { sessionId, greeting } = await newChat(user)
    await call('PUT', '/api/chat/persona', { sessionId, personaId: mara.id })

    const branch = await ok<{ sessionId: string }>(user, '/api/chat/branch', { sessionId, messageId: greeting.id })
    expect(await personaOf(branch.sessionId)).toBe(mara.id)
    // The branch's replies are written for the persona: the model sees its name and description.
    await ok(user, '/api/chat', { sessionId: branch.sessionId, message: 'Who am I?', chatModelId: 'tavern-8b' })
    const system = api.requests.at(-1)?.messages.find((m) => m.role === 'system')?.content
    expect(system).toContain('## Mara\nA stowaway.')
    // Switching the branch's persona leaves the original's alone.
    await call('PUT', '/api/chat/persona', { sessionId: branch.sessionId, personaId: fallback.id })
    expect(await personaOf(sessionId)).toBe(mara.id)

    // A chat on the account name (made before the default) branches on the account name.
    const plainBranch = await ok<{ sessionId: string }>(user, '/api/chat/branch', {
      sessionId: plain.sessionId,
      messageId: plain.greeting.id,
    })
    expect(await personaOf(plainBranch.sessionId)).toBeNull()
  })

  it("is the owner's only, and needs a message of that chat", async () => {
    const owner = await t.login()
    const other = await t.login()
    const { sessionId, greeting } = await newChat(owner)
    const foreign = await post(other, '/api/chat/branch', { sessionId, messageId: greeting.id })
    expect(foreign.statusCode).toBe(404)
    expect(foreign.json().error).toBe('INVALID_SESSION')
    const links = await post(other, '/api/chat/branches', { sessionId })
    expect(links.statusCode).toBe(404)
    // A message of another chat of the same owner is not this chat's.
    const second = await newChat(owner)
    const elsewhere = await post(owner, '/api/chat/branch', { sessionId, messageId: second.greeting.id })
    expect(elsewhere.statusCode).toBe(404)
    expect(elsewhere.json().error).toBe('NOT_FOUND')
    const malformed = await post(owner, '/api/chat/branch', { sessionId: 'not-a-session', messageId: greeting.id })
    expect(malformed.statusCode).toBe(404)
    const anonymous = await t.app.inject({
      method: 'POST',
      url: '/api/chat/branch',
      payload: { sessionId, messageId: greeting.id },
    })
    expect(anonymous.statusCode).toBe(401)
    // The other user's chats gained nothing.
    expect((await ok<{ total: number }>(other, '/api/sessions', {})).total).toBe(0)
  })
})
