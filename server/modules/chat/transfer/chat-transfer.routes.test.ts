import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { and, count, eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chatMessages, chatSessions, chatSwipes } from '#db/schema/chat.ts'
import { diamondLedger } from '#db/schema/diamonds.ts'
import { countTokens } from '#server/modules/models/tokens.ts'
import { createRole } from '#tests/factories/catalogue.ts'
import { addMessages } from '#tests/factories/chat.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

// Issue 22 item 6 (ADR 051): a chat downloads as SillyTavern's JSONL and as Markdown, and a
// SillyTavern chat file comes in as a new chat, every swipe kept.

/** SillyTavern's own chat files (../shared/chats, read-only); their test is skipped where absent. */
const REAL_CHATS = path.resolve(import.meta.dirname, '../../../../../shared/chats')
const realChats = existsSync(REAL_CHATS) ? readdirSync(REAL_CHATS).filter((f) => f.endsWith('.jsonl')) : []

async function multipart(text: string | Uint8Array, name = 'chat.jsonl') {
  const form = new FormData()
  form.append('file', new Blob([typeof text === 'string' ? text : new Uint8Array(text)]), name)
  const response = new Response(form)
  return {
    payload: Buffer.from(await response.arrayBuffer()),
    headers: { 'content-type': response.headers.get('content-type') ?? '' },
  }
}

/**
 * The test's own reader of a SillyTavern chat file (not the product's): the header and, per
 * message, what a round trip must keep.
 */
function readJsonl(text: string) {
  const [header, ...messages] = text.split('\n').map((line) => JSON.parse(line) as Record<string, unknown>)
  return {
    header,
    messages: messages.map((m) => ({
      is_user: m.is_user,
      mes: m.mes,
      send_date: m.send_date,
      swipes: m.swipes,
      swipe_id: m.swipe_id,
      swipe_dates: Array.isArray(m.swipe_info) ? m.swipe_info.map((i: { send_date: unknown }) => i.send_date) : null,
    })),
  }
}

describe('chat history in and out', () => {
  let t: TestApp
  let user: Awaited<ReturnType<TestApp['login']>>
  let other: Awaited<ReturnType<TestApp['login']>>
  let roleId: string
  let sessionId: string

  const as = (who: { token: string }) => ({ authorization: `Bearer ${who.token}` })
  const importFile = async (text: string | Uint8Array, who = user, role = roleId) => {
    const body = await multipart(text)
    return t.app.inject({
      method: 'POST',
      url: `/api/chat/import?roleId=${role}`,
      payload: body.payload,
      headers: { ...body.headers, ...as(who) },
    })
  }
  const exportChat = (id: string, format: string, who = user) =>
    t.app.inject({ method: 'GET', url: `/api/chat/sessions/${id}/export?format=${format}`, headers: as(who) })
  const sessionCount = async (who = user) =>
    (await t.database.db.select({ n: count() }).from(chatSessions).where(eq(chatSessions.userId, who.user.id)))[0]?.n ??
    0
  const swipesOf = async (sid: string, messageId: number) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/chat/swipes',
      payload: { sessionId: sid, messageId },
      headers: as(user),
    })
    return res.json().data as { messageId: number; selectedIndex: number; swipes: { content: string }[] }
  }
  const messagesOf = async (sid: string) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/messages',
      payload: { sessionId: sid, limit: 100 },
      headers: as(user),
    })
    expect(res.statusCode, res.body).toBe(200)
    return (
      res.json().data.items as {
        id: number
        author: string
        content: string
        swipeCount: number
        imported: boolean
        diamondsSpent: number
      }[]
    ).reverse()
  }

  beforeAll(async () => {
    t = await buildTestApp()
    user = await t.login({ username: 'hanako' })
    other = await t.login({ username: 'taro' })
    roleId = await createRole(t.database.db, {
      name: 'セラフィナ',
      firstMessage: 'Hold on tight, {{user}}!',
      alternateGreetings: ['Back again, {{user}}?', 'Mind the tail.'],
    })
    // A chat made in the product: a greeting with two alternates, the second shown; a reply with
    // three alternatives, the third shown.
    const started = await t.app.inject({
      method: 'POST',
      url: '/api/createSession',
      payload: { roleId },
      headers: as(user),
    })
    sessionId = started.json().data.id
    const greetingId = started.json().data.firstMessage.id as number
    await t.app.inject({
      method: 'POST',
      url: '/api/chat/selectSwipe',
      payload: { sessionId, messageId: greetingId, swipeIndex: 1 },
      headers: as(user),
    })
    const [, replyId] = await addMessages(t.database.db, sessionId, [
      { author: 'user', content: 'Where are we going?\n*looks around*' },
      { author: 'assistant', content: 'To the harbour of Sel.' },
    ])
    for (const content of ['To the mountains, of course.', '«Nowhere», she says — 😀 and 港へ。']) {
      await t.database.db
        .insert(chatSwipes)
        .values({ messageId: replyId as number, content, tokens: countTokens(content), status: 'complete' })
    }
    await t.database.db
      .update(chatMessages)
      .set({ swipeCount: 3 })
      .where(eq(chatMessages.id, replyId as number))
    await t.app.inject({
      method: 'POST',
      url: '/api/chat/selectSwipe',
      payload: { sessionId, messageId: replyId, swipeIndex: 2 },
      headers: as(user),
    })
  })
  afterAll(() => t?.close())

  it("downloads a chat as SillyTavern's JSONL, every swipe in it, named in UTF-8", async () => {
    const res = await exportChat(sessionId, 'sillytavern')
    expect(res.statusCode, res.body).toBe(200)
    expect(res.headers['content-type']).toBe('application/jsonl; charset=utf-8')
    expect(res.headers['cache-control']).toBe('private, no-store')
    const disposition = String(res.headers['content-disposition'])
    expect(disposition).toMatch(/^attachment; filename="[^"]*\.jsonl"; filename\*=UTF-8''/)
    const fileName = decodeURIComponent(disposition.split("filename*=UTF-8''")[1] ?? '')
    expect(fileName).toMatch(/^セラフィナ - \d{4}-\d{2}-\d{2}@\d{2}h\d{2}m\d{2}s\.jsonl$/)
    const file = readJsonl(res.body)
    expect(file.header).toEqual({
      user_name: 'hanako',
      character_name: 'セラフィナ',
      create_date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}@\d{2}h\d{2}m\d{2}s$/),
      chat_metadata: {},
    })
    expect(file.messages.map((m) => [m.is_user, m.mes, m.swipes ?? null, m.swipe_id ?? null])).toEqual([
      [false, 'Back again, hanako?', ['Hold on tight, hanako!', 'Back again, hanako?', 'Mind the tail.'], 1],
      [true, 'Where are we going?\n*looks around*', null, null],
      [
        false,
        '«Nowhere», she says — 😀 and 港へ。',
        ['To the harbour of Sel.', 'To the mountains, of course.', '«Nowhere», she says — 😀 and 港へ。'],
        2,
      ],
    ])
    for (const m of file.messages) expect(new Date(String(m.send_date)).toISOString()).toBe(m.send_date)
  })

  it('imports its own download again as a new chat equal to the first, every swipe and text kept', async () => {
    const first = (await exportChat(sessionId, 'sillytavern')).body
    const imported = await importFile(first)
    expect(imported.statusCode, imported.body).toBe(200)
    expect(imported.json().data).toEqual({ sessionId: expect.any(String), messages: 3, swipes: 6, leftOut: 0 })
    const copy = imported.json().data.sessionId as string
    expect(copy).not.toBe(sessionId)

    // Equal as files, read by the test's own reader...
    const second = (await exportChat(copy, 'sillytavern')).body
    expect(readJsonl(second)).toEqual(readJsonl(first))
    // ...and as the chat page shows them: every message, and every swipe with the same one selected.
    const before = await messagesOf(sessionId)
    const after = await messagesOf(copy)
    expect(after.map((m) => [m.author, m.content, m.swipeCount])).toEqual(
      before.map((m) => [m.author, m.content, m.swipeCount]),
    )
    for (const [i, m] of after.entries()) {
      if (m.author !== 'assistant') continue
      const original = before[i] as { id: number }
      const { messageId: _copied, ...copied } = await swipesOf(copy, m.id)
      const { messageId: _original, ...kept } = await swipesOf(sessionId, original.id)
      expect(copied).toEqual(kept)
    }
    // Imported messages are marked so, and cost nothing.
    expect(after.every((m) => m.imported && m.diamondsSpent === 0)).toBe(true)
    expect(before.some((m) => m.imported)).toBe(false)
    const ledger = await t.database.db.select().from(diamondLedger).where(eq(diamondLedger.userId, user.user.id))
    expect(ledger).toEqual([])
  })

  it.runIf(realChats.length > 0)("imports SillyTavern's own chat files (both date styles)", async () => {
    expect(realChats.length).toBeGreaterThanOrEqual(2)
    for (const name of realChats) {
      const text = readFileSync(path.join(REAL_CHATS, name), 'utf8')
      const res = await importFile(text)
      expect(res.statusCode, `${name}: ${res.body}`).toBe(200)
      const lines = text
        .trim()
        .split('\n')
        .slice(1)
        .map((l) => JSON.parse(l))
      expect(res.json().data.messages).toBe(lines.length)
      const stored = await messagesOf(res.json().data.sessionId)
      expect(stored.map((m) => m.content)).toEqual(lines.map((l) => l.mes))
      expect(stored.map((m) => m.author)).toEqual(lines.map((l) => (l.is_user ? 'user' : 'assistant')))
      // Each message keeps the file's date, whichever style it was written in.
      const rows = await t.database.db
        .select({ createdAt: chatMessages.createdAt })
        .from(chatMessages)
        .where(eq(chatMessages.sessionId, res.json().data.sessionId))
        .orderBy(chatMessages.id)
      expect(rows.map((r) => r.createdAt.getUTCFullYear())).toEqual(lines.map(() => 2023))
    }
  })

  it('puts an imported chat at the top of My Chats with its last message', async () => {
    const res = await importFile(
      [
        JSON.stringify({ user_name: 'You', character_name: 'Aqua', create_date: '2024-7-12@01h31m37s' }),
        JSON.stringify({ name: 'Aqua', is_user: false, send_date: 'June 19, 2023 2:20pm', mes: 'Hello there.' }),
        JSON.stringify({ name: 'You', is_user: true, send_date: 'June 19, 2023 2:21pm', mes: 'The last words.' }),
      ].join('\n'),
    )
    const list = await t.app.inject({ method: 'POST', url: '/api/sessions', payload: {}, headers: as(user) })
    expect(list.json().data.sessions[0]).toMatchObject({
      id: res.json().data.sessionId,
      lastMessage: 'The last words.',
    })
  })

  it('downloads Markdown to read', async () => {
    const res = await exportChat(sessionId, 'markdown')
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('text/markdown; charset=utf-8')
    expect(decodeURIComponent(String(res.headers['content-disposition']).split("UTF-8''")[1] ?? '')).toMatch(
      /^セラフィナ - .*\.md$/,
    )
    expect(res.body).toContain('# セラフィナ\n')
    expect(res.body).toContain('**hanako** · ')
    expect(res.body).toContain('Where are we going?\n*looks around*')
    expect(res.body).toMatch(/\*\*セラフィナ\*\* ‹3\/3› · .*\n\n«Nowhere», she says — 😀 and 港へ。/)
  })

  it("refuses another user's chat and a stranger's call", async () => {
    expect((await exportChat(sessionId, 'sillytavern', other)).json().error).toBe('INVALID_SESSION')
    expect((await exportChat('not-a-uuid', 'markdown')).json().error).toBe('INVALID_SESSION')
    expect((await exportChat(sessionId, 'pdf')).statusCode).toBe(400)
    const anonymous = await t.app.inject({ method: 'GET', url: `/api/chat/sessions/${sessionId}/export` })
    expect(anonymous.statusCode).toBe(401)
  })

  it("imports only onto a character the user may chat with: not someone else's private one, not an unknown one", async () => {
    const text = (await exportChat(sessionId, 'sillytavern')).body
    const owner = await t.login()
    const secret = await createRole(t.database.db, { name: 'Hidden', creatorId: owner.user.id, visibility: 'private' })
    const before = await sessionCount()
    expect((await importFile(text, user, secret)).statusCode).toBe(404)
    expect((await importFile(text, user, 'r-no-such')).statusCode).toBe(404)
    const adult = await createRole(t.database.db, { name: 'Night', isAdult: true })
    const refused = await importFile(text, user, adult)
    expect([refused.statusCode, refused.json().details]).toEqual([403, { reason: 'ADULT_CONTENT' }])
    expect(await sessionCount()).toBe(before)
    // Its own creator may.
    expect((await importFile(text, owner, secret)).statusCode).toBe(200)
  })

  it('refuses hostile and broken files with a reason, and stores nothing', async () => {
    // A user of their own: 14 refusals here are within the hourly import limit.
    const sender = await t.login()
    const before = await sessionCount(sender)
    const messagesBefore = (await t.database.db.select({ n: count() }).from(chatMessages))[0]?.n
    const header = JSON.stringify({ user_name: 'You', character_name: 'Aqua' })
    const cases: [string | Uint8Array, number, Record<string, unknown>][] = [
      ['', 400, { reason: 'empty_file' }],
      ['not json at all', 400, { reason: 'bad_line', line: 1 }],
      [`${header}\n{"mes": "ok"}\n{"mes": `, 400, { reason: 'bad_line', line: 3 }],
      ['{"spec":"chara_card_v2","data":{"name":"x"}}', 400, { reason: 'no_header', line: 1 }],
      [`${header}\n{"mes": {"nested": true}}`, 400, { reason: 'bad_message', line: 2, field: 'mes' }],
      [`${header}\n{"mes": "a\\u0000b"}`, 400, { reason: 'invalid_text', line: 2, field: 'mes' }],
      [`${header}\n{"mes": "\\udc00"}`, 400, { reason: 'invalid_text', line: 2, field: 'mes' }],
      [new Uint8Array([0xff, 0xfe, 0x00, 0x41]), 400, { reason: 'invalid_text' }],
      [`${header}\n{"is_system": true, "mes": "hidden"}`, 400, { reason: 'no_messages' }],
      [
        `${header}\n${JSON.stringify({ mes: 'x'.repeat(100_001) })}`,
        413,
        { reason: 'too_large', line: 2, field: 'mes', limit: 100_000 },
      ],
      [
        `${header}\n${JSON.stringify({ mes: 'a', swipes: Array(300).fill('a'), swipe_id: 0 })}`,
        413,
        { reason: 'too_large', line: 2, field: 'swipes', limit: 256 },
      ],
      // A valid first half does not get stored when a later line is broken.
      [`${header}\n{"mes": "fine"}\n{"mes": "fine too"}\n[]`, 400, { reason: 'bad_line', line: 4 }],
    ]
    for (const [text, status, details] of cases) {
      const res = await importFile(text, sender)
      expect([res.statusCode, res.json().details], JSON.stringify(text).slice(0, 80)).toEqual([status, details])
      expect(res.json().error).toBe(status === 413 ? 'PAYLOAD_TOO_LARGE' : 'INVALID_CHAT_FILE')
    }
    // Over the file size: refused before it is read.
    const huge = await importFile(`${header}\n${JSON.stringify({ mes: 'x' })}\n${' '.repeat(10 * 1024 * 1024)}`, sender)
    expect(huge.statusCode).toBe(413)
    // No file part at all.
    const form = new FormData()
    form.append('other', 'x')
    const response = new Response(form)
    const noFile = await t.app.inject({
      method: 'POST',
      url: `/api/chat/import?roleId=${roleId}`,
      payload: Buffer.from(await response.arrayBuffer()),
      headers: { 'content-type': response.headers.get('content-type') ?? '', ...as(sender) },
    })
    expect([noFile.statusCode, noFile.json().details]).toEqual([400, { reason: 'empty_file' }])
    expect(await sessionCount(sender)).toBe(before)
    expect((await t.database.db.select({ n: count() }).from(chatMessages))[0]?.n).toBe(messagesBefore)
  })

  it("keeps the swipes in the account's data export, imported chats marked", async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/account/export', headers: as(user) })
    const chats = res.json().chats as {
      id: string
      messages: { author: string; content: string; imported: boolean; swipes: { content: string }[] }[]
    }[]
    const original = chats.find((c) => c.id === sessionId)
    expect(original?.messages.map((m) => m.swipes.map((s) => s.content))).toEqual([
      ['Hold on tight, hanako!', 'Back again, hanako?', 'Mind the tail.'],
      [],
      ['To the harbour of Sel.', 'To the mountains, of course.', '«Nowhere», she says — 😀 and 港へ。'],
    ])
    expect(original?.messages.every((m) => !m.imported)).toBe(true)
    const imports = chats.filter((c) => c.messages.some((m) => m.imported))
    expect(imports.length).toBeGreaterThanOrEqual(2)
    const [copy] = await t.database.db
      .select({ id: chatSessions.id })
      .from(chatSessions)
      .innerJoin(chatMessages, and(eq(chatMessages.sessionId, chatSessions.id), eq(chatMessages.imported, true)))
      .where(eq(chatSessions.userId, user.user.id))
      .limit(1)
    expect(chats.find((c) => c.id === copy?.id)?.messages.every((m) => m.imported)).toBe(true)
  })
})
