import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { ChatMessage } from '#contracts/chat.ts'
import type { Scene } from '#contracts/chat-scenes.ts'
import { type OpenAiApiDouble, startOpenAiApi } from '#tests/doubles/openai-api.ts'
import { createRole } from '#tests/factories/catalogue.ts'
import { parseEvents, writeModelsFile } from '#tests/helpers/chat.ts'
import { shippedPlans, writePlansFile } from '#tests/helpers/plans.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

// Issue 22 item 5 (ADR 052): group scenes. Members, who speaks, each speaker's own prompt, costs,
// branches and the export.

type Session = Awaited<ReturnType<TestApp['login']>>
const PREMIUM_COST = 5

let api: OpenAiApiDouble
let t: TestApp
let replies = 0

beforeAll(async () => {
  api = await startOpenAiApi({ reply: () => `Line ${++replies}.` })
  const modelsFile = writeModelsFile([
    { id: 'tavern-8b', name: 'Tavern 8B', premium: false, contextTokens: 128_000, baseUrl: api.baseUrl },
    {
      id: 'grand-70b',
      name: 'Grand 70B',
      premium: true,
      diamondsPerMessage: PREMIUM_COST,
      contextTokens: 128_000,
      baseUrl: api.baseUrl,
    },
  ])
  t = await buildTestApp({ env: { MODELS_FILE: modelsFile }, plansFile: writePlansFile(shippedPlans()) })
})
afterEach(() => {
  api.reset()
  api.reply = () => `Line ${++replies}.`
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

const ALDA = {
  name: 'Alda',
  firstMessage: 'Welcome to the forge, {{user}}.',
  description: 'SECRET-ALDA-DESCRIPTION',
  personality: 'SECRET-ALDA-PERSONALITY',
  introduction: 'A smith of the northern hills.',
}
const BRAN = {
  name: 'Bran',
  firstMessage: 'Hm.',
  description: 'SECRET-BRAN-DESCRIPTION',
  personality: 'SECRET-BRAN-PERSONALITY',
  introduction: 'A quiet ferryman.',
  cardExtras: { systemPrompt: 'SECRET-BRAN-SYSTEM {{original}}' },
}

async function scene(user: Session) {
  const alda = await createRole(t.database.db, ALDA)
  const bran = await createRole(t.database.db, BRAN)
  const created = await ok<{ id: string }>(user, '/api/createSession', { roleId: alda })
  const sessionId = created.id
  const added = await ok<Scene>(user, '/api/chat/scene/add', { sessionId, roleId: bran })
  return { alda, bran, sessionId, added }
}

const messagesOf = async (user: Session, sessionId: string) =>
  (await ok<{ items: ChatMessage[] }>(user, '/api/messages', { sessionId, limit: 100 })).items.reverse()
const send = (user: Session, payload: object) => ok<{ reply: ChatMessage }>(user, '/api/chat', payload)
const lastRequestText = () => JSON.stringify(api.requests.at(-1)?.messages ?? [])
const systemOfLast = () => String(api.requests.at(-1)?.messages[0]?.content ?? '')

describe('members', () => {
  it('adds a character, lists both in order, and removes one but never the last', async () => {
    const user = await t.login()
    const { alda, bran, sessionId, added } = await scene(user)
    expect(added.members.map((m) => m.name)).toEqual(['Alda', 'Bran'])
    expect(added.members[0]?.id).toBe(alda)
    expect((await post(user, '/api/chat/scene/add', { sessionId, roleId: bran })).json().error).toBe('ALREADY_IN_SCENE')
    const left = await ok<Scene>(user, '/api/chat/scene/remove', { sessionId, roleId: alda })
    expect(left.members.map((m) => m.name)).toEqual(['Bran'])
    const last = await post(user, '/api/chat/scene/remove', { sessionId, roleId: bran })
    expect(last.statusCode).toBe(409)
    expect(last.json().error).toBe('SCENE_LAST_MEMBER')
    // The chat's character is the first member now: the chat (and My Chats) name it.
    const detail = await ok<{ role: { id: string } | null }>(user, '/api/session', { sessionId })
    expect(detail.role?.id).toBe(bran)
  })

  it("refuses another user's chat (404) and someone else's private character, and stops at five", async () => {
    const owner = await t.login()
    const other = await t.login()
    const { sessionId } = await scene(owner)
    const extra = await createRole(t.database.db, { name: 'Cora' })
    const foreign = await post(other, '/api/chat/scene/add', { sessionId, roleId: extra })
    expect(foreign.statusCode).toBe(404)
    expect(foreign.json().error).toBe('INVALID_SESSION')
    expect((await post(other, '/api/chat/scene', { sessionId })).statusCode).toBe(404)
    expect((await post(other, '/api/chat/speak', { sessionId, speaker: extra })).statusCode).toBe(404)
    const hidden = await createRole(t.database.db, { name: 'Hidden', visibility: 'private', creatorId: other.user.id })
    const refused = await post(owner, '/api/chat/scene/add', { sessionId, roleId: hidden })
    expect(refused.statusCode).toBe(404)
    expect((await ok<Scene>(owner, '/api/chat/scene', { sessionId })).members).toHaveLength(2)
    for (const name of ['Cora2', 'Dell', 'Emer']) {
      await ok(owner, '/api/chat/scene/add', { sessionId, roleId: await createRole(t.database.db, { name }) })
    }
    const full = await post(owner, '/api/chat/scene/add', { sessionId, roleId: extra })
    expect(full.statusCode).toBe(409)
    expect(full.json().error).toBe('SCENE_FULL')
  })
})

describe('who speaks', () => {
  it('natural: the one named, else the one who has not spoken longest', async () => {
    const user = await t.login()
    const { sessionId } = await scene(user)
    expect((await send(user, { sessionId, message: 'Bran, row us across.' })).reply.speaker?.name).toBe('Bran')
    // Alda spoke the greeting, Bran just now: Alda has been quiet longest.
    expect((await send(user, { sessionId, message: 'And then?' })).reply.speaker?.name).toBe('Alda')
    // My Chats names a scene's members; a chat of one character has no such list.
    await send(user, {
      sessionId: (
        await ok<{ id: string }>(user, '/api/createSession', {
          roleId: await createRole(t.database.db, { name: 'Solo' }),
        })
      ).id,
      message: 'Hi.',
    })
    const list = await ok<{ sessions: { id: string; members?: string[] }[] }>(user, '/api/sessions', {})
    expect(list.sessions.find((s) => s.id === sessionId)?.members).toEqual(['Alda', 'Bran'])
    expect(list.sessions.filter((s) => s.id !== sessionId).map((s) => s.members)).toEqual([undefined])
  })

  it('turns: round robin in member order; manual: the user picks, "speak" needs no message', async () => {
    const user = await t.login()
    const { sessionId, bran, alda } = await scene(user)
    await ok(user, '/api/chat/scene/mode', { sessionId, mode: 'turns' })
    // The greeting was Alda's: Bran is next, then Alda.
    expect((await send(user, { sessionId, message: 'Hello both.' })).reply.speaker?.name).toBe('Bran')
    expect((await send(user, { sessionId, message: 'Alda?' })).reply.speaker?.name).toBe('Alda')
    const mode = await ok<Scene>(user, '/api/chat/scene/mode', { sessionId, mode: 'manual' })
    expect(mode.mode).toBe('manual')
    expect((await send(user, { sessionId, message: 'You, Bran.', speaker: bran })).reply.speaker?.id).toBe(bran)
    const before = (await messagesOf(user, sessionId)).length
    const spoke = await ok<{ reply: ChatMessage; userMessage: ChatMessage | null }>(user, '/api/chat/speak', {
      sessionId,
      speaker: alda,
    })
    expect(spoke.userMessage).toBeNull()
    expect(spoke.reply.speaker?.id).toBe(alda)
    const after = await messagesOf(user, sessionId)
    expect(after).toHaveLength(before + 1)
    expect(after.at(-1)?.speaker?.name).toBe('Alda')
    const stranger = await createRole(t.database.db, { name: 'Stranger' })
    expect((await post(user, '/api/chat/speak', { sessionId, speaker: stranger })).statusCode).toBe(404)
    await ok(user, '/api/chat/scene/mode', { sessionId, mode: 'natural' })
  })
})

describe('impersonate in a scene', () => {
  it("drafts the user's line with every character's lines named, and drops the user's own name from the draft", async () => {
    const user = await t.login()
    const { sessionId, bran } = await scene(user)
    await send(user, { sessionId, message: 'Alda, is the blade ready?' })
    api.reply = () => 'Bran: The river is high tonight.'
    await ok(user, '/api/chat/speak', { sessionId, speaker: bran })
    const before = (await messagesOf(user, sessionId)).length
    api.reply = () => `${user.user.username}: Then we wait for morning.`
    const res = await post(user, '/api/chat/impersonate/stream', { sessionId })
    expect(res.statusCode).toBe(200)
    const done = parseEvents(res.body).at(-1)
    expect(done).toMatchObject({ event: 'done', data: { content: 'Then we wait for morning.' } })
    // The one who would answer next (Alda, quiet longest) is the card; Bran's line is named, not hers.
    const asked = api.requests.at(-1)?.messages ?? []
    expect(String(asked[0]?.content)).toContain('SECRET-ALDA-DESCRIPTION')
    expect(JSON.stringify(asked)).not.toContain('SECRET-BRAN')
    const branLine = asked.find((m) => String(m.content).includes('The river is high tonight.'))
    expect(branLine).toMatchObject({ role: 'user' })
    expect(String(branLine?.content)).toContain('Bran: The river is high tonight.')
    expect(await messagesOf(user, sessionId)).toHaveLength(before)
  })
})

describe("the speaker's prompt", () => {
  it('holds its own card and only the public name and introduction of the others', async () => {
    const user = await t.login()
    const { sessionId, bran } = await scene(user)
    await send(user, { sessionId, message: 'Alda, what do you make?' })
    let text = lastRequestText()
    expect(text).toContain('SECRET-ALDA-DESCRIPTION')
    expect(text).toContain('SECRET-ALDA-PERSONALITY')
    expect(text).toContain('Bran: A quiet ferryman.')
    expect(text).not.toContain('SECRET-BRAN')
    const stops = api.requests.at(-1)?.stop
    expect(JSON.stringify(stops)).toContain('\\nBran:')

    api.reply = () => 'Bran: The river is high tonight.'
    const spoke = await ok<{ reply: ChatMessage }>(user, '/api/chat/speak', { sessionId, speaker: bran })
    // Its own name before the reply is taken off.
    expect(spoke.reply.content).toBe('The river is high tonight.')
    text = lastRequestText()
    expect(systemOfLast()).toContain('SECRET-BRAN-SYSTEM')
    expect(text).toContain('SECRET-BRAN-DESCRIPTION')
    expect(text).not.toContain('SECRET-ALDA')
    expect(text).toContain('Alda: A smith of the northern hills.')
    // Alda's reply reaches Bran as a named line of the other side, not as Bran's own turn.
    const messages = api.requests.at(-1)?.messages ?? []
    const aldaLine = messages.find((m) => String(m.content).includes('Alda: Line'))
    expect(aldaLine?.role).toBe('user')
    expect(messages.filter((m) => m.role === 'assistant').every((m) => !String(m.content).includes('Alda:'))).toBe(true)
  })

  it('regenerate keeps the speaker', async () => {
    const user = await t.login()
    const { sessionId, bran } = await scene(user)
    await send(user, { sessionId, message: 'Bran?' })
    const again = await ok<{ reply: ChatMessage }>(user, '/api/chat/regenerate', { sessionId })
    expect(again.reply.speaker?.id).toBe(bran)
    expect(again.reply.swipeCount).toBe(2)
    expect(lastRequestText()).toContain('SECRET-BRAN-DESCRIPTION')
    // Continue goes on as Bran, his reply last as his own turn.
    const alda = (await ok<Scene>(user, '/api/chat/scene', { sessionId })).members[0]?.id
    await ok(user, '/api/chat/speak', { sessionId, speaker: alda })
    await ok(user, '/api/chat/speak', { sessionId, speaker: bran })
    const continued = await ok<{ reply: ChatMessage }>(user, '/api/chat/continue', { sessionId })
    expect(continued.reply.speaker?.id).toBe(bran)
    expect(systemOfLast()).toContain('SECRET-BRAN-SYSTEM')
    expect(lastRequestText()).not.toContain('SECRET-ALDA')
    expect(api.requests.at(-1)?.messages.at(-1)?.role).toBe('assistant')
  })
})

describe('costs', () => {
  it('each reply is one reply under the plan, whoever speaks; a failure refunds', async () => {
    const user = await t.login()
    const { orderId } = (await post(user, '/api/subscription', { planId: 'pro' })).json().data
    expect((await post(user, '/api/payment/sandbox', { orderId, outcome: 'paid' })).statusCode).toBe(200)
    const balance = async () =>
      (await t.injectWithLogin({ method: 'GET', url: '/api/points' }, user)).json().data.totalPoints as number
    const { sessionId, bran } = await scene(user)
    const start = await balance()
    await send(user, { sessionId, message: 'Alda, hello.', chatModelId: 'grand-70b' })
    await ok(user, '/api/chat/speak', { sessionId, speaker: bran, chatModelId: 'grand-70b' })
    expect(await balance()).toBe(start - 2 * PREMIUM_COST)
    api.fail(500)
    const failed = await post(user, '/api/chat/speak', { sessionId, speaker: bran, chatModelId: 'grand-70b' })
    expect(failed.statusCode).toBe(502)
    expect(await balance()).toBe(start - 2 * PREMIUM_COST)
  })
})

describe('branches and export', () => {
  it('a branch copies the members, the mode and the speakers; the export names each speaker', async () => {
    const user = await t.login()
    const { sessionId } = await scene(user)
    await ok(user, '/api/chat/scene/mode', { sessionId, mode: 'turns' })
    await send(user, { sessionId, message: 'Bran, hello.' })
    const messages = await messagesOf(user, sessionId)
    const branch = await ok<{ sessionId: string }>(user, '/api/chat/branch', {
      sessionId,
      messageId: messages.at(-1)?.id,
    })
    const copied = await ok<Scene>(user, '/api/chat/scene', { sessionId: branch.sessionId })
    expect(copied.members.map((m) => m.name)).toEqual(['Alda', 'Bran'])
    expect(copied.mode).toBe('turns')
    expect((await messagesOf(user, branch.sessionId)).map((m) => m.speaker?.name ?? null)).toEqual([
      'Alda',
      null,
      'Bran',
    ])
    const file = await t.injectWithLogin(
      { method: 'GET', url: `/api/chat/sessions/${sessionId}/export?format=sillytavern` },
      user,
    )
    expect(file.statusCode, file.body).toBe(200)
    const names = file.body
      .split('\n')
      .slice(1)
      .map((line) => JSON.parse(line).name)
    expect(names).toEqual(['Alda', user.user.username, 'Bran'])
  })
})
