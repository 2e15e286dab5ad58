import { eq, sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CHAT_TITLE_MAX_LENGTH, CHAT_UNDO_WINDOW_MS } from '#contracts/chat-tidy.ts'
import { chatMessages, chatSessions } from '#db/schema/chat.ts'
import { chatMessageSearch } from '#db/schema/chat-search.ts'
import { jobs } from '#db/schema/jobs.ts'
import { createRole } from '#tests/factories/catalogue.ts'
import { addMessages } from '#tests/factories/chat.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'
import { snippetOf } from './chat-tidy.ts'

// Find and tidy (issue 22 items 1 and 7, ADR 048) through the API: a character's chats and
// "Continue", empty chats, search in several scripts, rename, pin, delete with undo and the purge.

type Session = Awaited<ReturnType<TestApp['login']>>

let t: TestApp
beforeAll(async () => {
  // Jobs run when a test drains them.
  t = await buildTestApp({ jobQueue: { worker: false } })
})
afterAll(async () => {
  await t.close()
})

const post = (session: Session, url: string, payload?: object) =>
  t.injectWithLogin({ method: 'POST', url, ...(payload ? { payload } : {}) }, session)
const data = async (session: Session, url: string, payload?: object) => {
  const res = await post(session, url, payload)
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data
}
const newRole = (name: string) =>
  createRole(t.database.db, { name, firstMessage: `Welcome, {{user}}. I am ${name}.`, alternateGreetings: [] })
const startChat = async (session: Session, roleId: string) =>
  (await data(session, '/api/createSession', { roleId })).id as string
/** A chat with a message of the user (history), active `minutesAgo`. */
async function chatWith(session: Session, roleId: string, user: string, reply: string, minutesAgo = 0) {
  const sessionId = await startChat(session, roleId)
  await addMessages(t.database.db, sessionId, [
    { author: 'user', content: user },
    { author: 'assistant', content: reply },
  ])
  await t.database.db
    .update(chatSessions)
    .set({ updatedAt: new Date(Date.now() - minutesAgo * 60_000), lastMessagePreview: reply })
    .where(eq(chatSessions.id, sessionId))
  return sessionId
}
const listed = async (session: Session) =>
  ((await data(session, '/api/sessions')).sessions as { id: string; title: string | null; pinned: boolean }[]).map(
    (s) => s.id,
  )
const search = (session: Session, q: string, locale = 'en') => data(session, '/api/chat/search', { q, locale })

describe("a character's chats: continue or start over", () => {
  it('keeps an empty chat out of the history and reuses it for "New chat"', async () => {
    const user = await t.login()
    const roleId = await newRole('Ilse')
    const first = await startChat(user, roleId)
    // Only the greeting: not in My Chats, not on the character page, and started again it is the same chat.
    expect(await listed(user)).toEqual([])
    expect((await data(user, '/api/sessions')).total).toBe(0)
    expect((await data(user, '/api/chat/sessions/character', { roleId })).sessions).toEqual([])
    const again = await data(user, '/api/createSession', { roleId })
    expect(again.id).toBe(first)
    expect(again.firstMessage.content).toBe(`Welcome, ${user.user.username}. I am Ilse.`)
    const rows = await t.database.db.select().from(chatSessions).where(eq(chatSessions.userId, user.user.id))
    expect(rows).toHaveLength(1)

    // Once the user wrote in it, it is history, and "New chat" starts another one.
    await addMessages(t.database.db, first, [{ author: 'user', content: 'Hello, Ilse.' }])
    expect(await listed(user)).toEqual([first])
    const second = await startChat(user, roleId)
    expect(second).not.toBe(first)
    expect(await listed(user)).toEqual([first])
  })

  it('lists only the owner\'s chats with that character, latest activity first ("Continue" is the first)', async () => {
    const user = await t.login()
    const roleId = await newRole('Oren')
    const otherRole = await newRole('Vale')
    const older = await chatWith(user, roleId, 'The tide is out.', 'So it is.', 30)
    const latest = await chatWith(user, roleId, 'Where is the boat?', 'Beyond the reef.', 5)
    await chatWith(user, otherRole, 'Hi Vale', 'Hello.', 1)
    await startChat(user, roleId) // empty: not listed

    const page = await data(user, '/api/chat/sessions/character', { roleId })
    expect(page.total).toBe(2)
    expect(page.sessions.map((s: { id: string }) => s.id)).toEqual([latest, older])
    expect(page.sessions[0]).toMatchObject({
      role: { id: roleId, name: 'Oren' },
      lastMessage: 'Beyond the reef.',
      title: null,
      pinned: false,
    })

    // Activity moves the older one up.
    await t.database.db.update(chatSessions).set({ updatedAt: new Date() }).where(eq(chatSessions.id, older))
    expect((await data(user, '/api/chat/sessions/character', { roleId })).sessions[0].id).toBe(older)

    const stranger = await t.login()
    expect((await data(stranger, '/api/chat/sessions/character', { roleId })).total).toBe(0)
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/chat/sessions/character', payload: { roleId } })).statusCode,
    ).toBe(401)
  })
})

describe("search across one's chats", () => {
  it('finds messages in English, Japanese, Thai and Chinese by their words, with a snippet and a link target', async () => {
    const user = await t.login()
    const roleId = await newRole('Mara')
    const english = await chatWith(
      user,
      roleId,
      'Light the lantern, please.',
      'The lantern glows over the harbour.',
      40,
    )
    const japanese = await chatWith(user, roleId, '東京の夜は静かだった。', '私は猫を探している。', 30)
    const thai = await chatWith(user, roleId, 'ฉันกำลังมองหาแมวของฉันในตลาดน้ำ', 'ไปดูที่ท่าเรือสิ', 20)
    const chinese = await chatWith(user, roleId, '我在找我的猫，它在市场里。', '去码头看看吧。', 10)

    const lantern = await search(user, 'LANT')
    expect(lantern.total).toBe(2)
    expect(lantern.hits.map((h: { sessionId: string }) => h.sessionId)).toEqual([english, english])
    const reply = lantern.hits[0]
    expect(reply).toMatchObject({ author: 'assistant', role: { id: roleId, name: 'Mara' }, title: null })
    expect(reply.snippet).toBe('The lantern glows over the harbour.')
    expect(reply.highlights).toEqual([[4, 8]])
    const [message] = await t.database.db.select().from(chatMessages).where(eq(chatMessages.id, reply.messageId))
    expect(message?.sessionId).toBe(english)

    const cat = await search(user, '猫', 'ja')
    expect(new Set(cat.hits.map((h: { sessionId: string }) => h.sessionId))).toEqual(new Set([japanese, chinese]))
    const tokyo = await search(user, '東京', 'ja')
    expect(tokyo.hits).toHaveLength(1)
    expect(tokyo.hits[0]).toMatchObject({ sessionId: japanese, author: 'user', snippet: '東京の夜は静かだった。' })
    // A word inside a sentence written without spaces, not only its start.
    expect((await search(user, '静か', 'ja')).hits.map((h: { sessionId: string }) => h.sessionId)).toEqual([japanese])

    const market = await search(user, 'ตลาด', 'th')
    expect(market.hits.map((h: { sessionId: string }) => h.sessionId)).toEqual([thai])
    expect(market.hits[0].highlights).toHaveLength(1)
    expect((await search(user, 'แมว', 'th')).hits.map((h: { sessionId: string }) => h.sessionId)).toEqual([thai])

    const zh = await search(user, '市场', 'zh-cn')
    expect(zh.hits.map((h: { sessionId: string }) => h.sessionId)).toEqual([chinese])
    // Every word must be there.
    expect((await search(user, 'lantern tokyo')).total).toBe(0)
    expect((await search(user, 'lantern harbour')).total).toBe(1)
    // Nothing to search for.
    expect((await search(user, '  … ')).total).toBe(0)

    // Another user finds nothing of this user's.
    const other = await t.login()
    expect((await search(other, 'lantern')).total).toBe(0)
    expect((await search(other, '猫', 'ja')).total).toBe(0)
  })

  it('finds a Chinese or Japanese word inside a longer word the segmenter made (ADR 048, amended)', async () => {
    const user = await t.login()
    const roleId = await newRole('Lin')
    // Intl.Segmenter splits these as 我们|学校|的|图书|馆|…|共和国 and 図書館|で|勉強|… and コンピューター|を|…
    const chinese = await chatWith(user, roleId, '我们学校的图书馆很大，里面有共和国的历史书。', '我明天去看看。')
    const japanese = await chatWith(user, roleId, '図書館で勉強しています。', '新しいコンピューターを使っています。')
    const ids = async (q: string, locale: string) =>
      (await search(user, q, locale)).hits.map((h: { sessionId: string }) => h.sessionId)

    expect(await ids('书馆', 'zh-cn')).toEqual([chinese])
    expect(await ids('和国', 'zh-cn')).toEqual([chinese])
    expect(await ids('書館', 'ja')).toEqual([japanese])
    expect(await ids('ピュータ', 'ja')).toEqual([japanese])
    // The snippet marks the word where it sits inside the longer one.
    const inside = (await search(user, '書館', 'ja')).hits[0]
    expect(inside.highlights).toEqual([[1, 3]])
    // Each pair must be there: 书 is in the chat, 书店 is not.
    expect(await ids('书店', 'zh-cn')).toEqual([])
    // Words and runs together: every one must be there.
    expect(await ids('图书 历史', 'zh-cn')).toEqual([chinese])
    expect(await ids('书馆 コンピューター', 'ja')).toEqual([])
    // Other scripts keep the word-start search: a Latin word inside another is not found.
    await chatWith(user, roleId, 'The lighthouse keeper waves.', 'Hello.')
    expect((await search(user, 'house')).total).toBe(0)
    expect((await search(user, 'lighth')).total).toBe(1)
  })

  it('follows edits and leaves out deleted and empty chats', async () => {
    const user = await t.login()
    const roleId = await newRole('Sable')
    const sessionId = await chatWith(user, roleId, 'The compass points north.', 'Follow it.')
    expect((await search(user, 'compass')).total).toBe(1)
    const [mine] = await t.database.db
      .select({ id: chatMessages.id })
      .from(chatMessages)
      .where(sql`${chatMessages.sessionId} = ${sessionId} and ${chatMessages.author} = 'user'`)
    await data(user, '/api/chat/editMessage', { sessionId, messageId: mine?.id, content: 'The sextant points north.' })
    expect((await search(user, 'compass')).total).toBe(0)
    expect((await search(user, 'sextant')).hits[0]).toMatchObject({ sessionId, messageId: mine?.id })

    // The greeting of an empty chat is not history.
    await startChat(user, roleId)
    expect((await search(user, 'welcome')).hits.map((h: { sessionId: string }) => h.sessionId)).toEqual([sessionId])

    await data(user, '/api/deleteSession', { sessionId })
    expect((await search(user, 'sextant')).total).toBe(0)
    await data(user, '/api/chat/session/restore', { sessionId })
    expect((await search(user, 'sextant')).total).toBe(1)
  })

  it('marks every place a word starts in the snippet, and cuts long messages around the first', () => {
    const long = `${'a '.repeat(200)}the lantern ${'b '.repeat(200)}`
    const { snippet, highlights } = snippetOf(long, ['lantern'])
    expect(snippet.startsWith('…')).toBe(true)
    expect(snippet.endsWith('…')).toBe(true)
    expect(highlights).toHaveLength(1)
    const [start, end] = highlights[0] ?? [0, 0]
    expect(snippet.slice(start, end)).toBe('lantern')
    expect(snippetOf('Line one\nline two', ['line']).snippet).toBe('Line one line two')
    expect(snippetOf('Line one\nline two', ['line']).highlights).toEqual([
      [0, 4],
      [9, 13],
    ])
  })
})

describe('rename, pin, delete with undo', () => {
  it("renames and pins only the owner's chats; pinned ones come first", async () => {
    const user = await t.login()
    const roleId = await newRole('Wren')
    const a = await chatWith(user, roleId, 'one', 'uno', 30)
    const b = await chatWith(user, roleId, 'two', 'dos', 20)
    const c = await chatWith(user, roleId, 'three', 'tres', 10)
    expect(await listed(user)).toEqual([c, b, a])

    expect(await data(user, '/api/chat/session/pin', { sessionId: a, pinned: true })).toEqual({
      id: a,
      title: null,
      pinned: true,
    })
    expect(await listed(user)).toEqual([a, c, b])
    expect(await data(user, '/api/chat/session/rename', { sessionId: b, title: '  The   harbour  plot ' })).toEqual({
      id: b,
      title: 'The harbour plot',
      pinned: false,
    })
    const sessions = (await data(user, '/api/sessions')).sessions
    expect(sessions.find((s: { id: string }) => s.id === b)).toMatchObject({ title: 'The harbour plot', pinned: false })
    expect(sessions[0]).toMatchObject({ id: a, pinned: true, role: { name: 'Wren' } })
    expect((await data(user, '/api/session', { sessionId: b })).title).toBe('The harbour plot')
    // Blank: the character's name again.
    expect((await data(user, '/api/chat/session/rename', { sessionId: b, title: '   ' })).title).toBeNull()
    const tooLong = await post(user, '/api/chat/session/rename', {
      sessionId: b,
      title: 'x'.repeat(CHAT_TITLE_MAX_LENGTH + 1),
    })
    expect(tooLong.statusCode).toBe(400)
    await data(user, '/api/chat/session/pin', { sessionId: a, pinned: false })
    expect(await listed(user)).toEqual([c, b, a])

    const other = await t.login()
    for (const [url, body] of [
      ['/api/chat/session/rename', { sessionId: c, title: 'Mine now' }],
      ['/api/chat/session/pin', { sessionId: c, pinned: true }],
      ['/api/deleteSession', { sessionId: c }],
      ['/api/chat/session/restore', { sessionId: c }],
    ] as const) {
      const res = await post(other, url, body)
      expect(res.statusCode, url).toBeGreaterThanOrEqual(400)
    }
    expect((await post(other, '/api/chat/session/rename', { sessionId: c, title: 'x' })).json().error).toBe(
      'INVALID_SESSION',
    )
    expect((await data(user, '/api/session', { sessionId: c })).title).toBeNull()
    expect(await listed(user)).toEqual([c, b, a])
  })

  it('hides a deleted chat at once, brings it back within the window, and removes it for good after', async () => {
    const user = await t.login()
    const roleId = await newRole('Juno')
    const sessionId = await chatWith(user, roleId, 'Remember the key.', 'I will.')
    const deleted = await data(user, '/api/deleteSession', { sessionId })
    expect(deleted.deleted).toBe(true)
    expect(Date.parse(deleted.restorableUntil) - Date.now()).toBeLessThanOrEqual(CHAT_UNDO_WINDOW_MS)
    expect(await listed(user)).toEqual([])
    expect((await post(user, '/api/session', { sessionId })).json().error).toBe('INVALID_SESSION')
    expect((await post(user, '/api/messages', { sessionId })).json().error).toBe('INVALID_SESSION')
    expect((await post(user, '/api/chat', { sessionId, message: 'Still there?' })).json().error).toBe('INVALID_SESSION')
    expect((await post(user, '/api/deleteSession', { sessionId })).json().error).toBe('INVALID_SESSION')
    const exported = await t.injectWithLogin({ method: 'GET', url: '/api/account/export' }, user)
    expect(exported.json().chats.map((c: { id: string }) => c.id)).not.toContain(sessionId)

    // Undo.
    expect(await data(user, '/api/chat/session/restore', { sessionId })).toEqual({ restored: true })
    expect(await listed(user)).toEqual([sessionId])
    expect((await data(user, '/api/messages', { sessionId })).total).toBe(3)
    // The purge queued by the deletion finds it restored and leaves it.
    await t.database.db
      .update(jobs)
      .set({ runAt: new Date() })
      .where(eq(jobs.key, `chat-purge:${sessionId}`))
    await t.app.services.jobs.drain()
    expect(await listed(user)).toEqual([sessionId])

    // Deleted again; once the window has passed, undo is refused and the purge removes everything.
    await data(user, '/api/deleteSession', { sessionId })
    const past = new Date(Date.now() - CHAT_UNDO_WINDOW_MS - 1000)
    await t.database.db.update(chatSessions).set({ deletedAt: past }).where(eq(chatSessions.id, sessionId))
    const late = await post(user, '/api/chat/session/restore', { sessionId })
    expect(late.statusCode).toBe(410)
    expect(late.json().error).toBe('CHAT_NOT_RESTORABLE')
    await t.database.db
      .update(jobs)
      .set({ runAt: new Date() })
      .where(eq(jobs.key, `chat-purge:${sessionId}`))
    expect(await t.app.services.jobs.drain()).toBeGreaterThanOrEqual(1)
    expect(await t.database.db.select().from(chatSessions).where(eq(chatSessions.id, sessionId))).toEqual([])
    expect(await t.database.db.select().from(chatMessages).where(eq(chatMessages.sessionId, sessionId))).toEqual([])
    expect(
      await t.database.db.select().from(chatMessageSearch).where(eq(chatMessageSearch.sessionId, sessionId)),
    ).toEqual([])
  })

  it('a purge due before a second deletion waits for its window', async () => {
    const user = await t.login()
    const sessionId = await chatWith(user, await newRole('Pell'), 'Hold the line.', 'Holding.')
    await data(user, '/api/deleteSession', { sessionId })
    await data(user, '/api/chat/session/restore', { sessionId })
    await data(user, '/api/deleteSession', { sessionId })
    // The first purge comes due while the second deletion is still restorable.
    await t.database.db
      .update(jobs)
      .set({ runAt: new Date() })
      .where(eq(jobs.key, `chat-purge:${sessionId}`))
    await t.app.services.jobs.drain()
    expect(await t.database.db.select().from(chatSessions).where(eq(chatSessions.id, sessionId))).toHaveLength(1)
    expect(await data(user, '/api/chat/session/restore', { sessionId })).toEqual({ restored: true })
  })
})
