import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { hashPassword } from '#server/modules/auth/passwords.ts'
import {
  buyerOf,
  chatWith,
  creatorOf,
  fillAccount,
  ledgerEntries,
  makePlanRenew,
  ratingOf,
  userExists,
} from '#tests/factories/account.ts'
import { createRole } from '#tests/factories/catalogue.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

const PASSWORD = 'correct horse battery staple'

describe('account export and deletion', () => {
  let t: TestApp
  let passwordHash: string

  beforeAll(async () => {
    t = await buildTestApp()
    passwordHash = await hashPassword(PASSWORD)
  })
  afterAll(async () => {
    await t.close()
  })

  async function userWithData(marker: string, otherRoleId?: string) {
    const session = await t.login({ passwordHash })
    const filled = await fillAccount(t.database.db, session.user.id, marker, otherRoleId)
    return { ...session, ...filled }
  }
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
  const exportOf = (token: string) =>
    t.app.inject({ method: 'GET', url: '/api/account/export', headers: bearer(token) })
  const deleteWith = (token: string, payload: Record<string, string>) =>
    t.app.inject({ method: 'POST', url: '/api/account/delete', headers: bearer(token), payload })

  it('exports the whole account as a JSON attachment, with nothing of another user and no secrets', async () => {
    const bob = await userWithData('BOBONLY')
    const alice = await userWithData('ALICEONLY', bob.roleId)

    const response = await exportOf(alice.token)
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-disposition']).toMatch(
      /^attachment; filename="taleweave-data-\d{4}-\d{2}-\d{2}\.json"$/,
    )
    expect(response.headers['cache-control']).toBe('no-store')
    const data = response.json()
    expect(data.profile).toMatchObject({ id: alice.user.id, email: alice.user.email, username: alice.user.username })
    expect(data.characters).toHaveLength(1)
    expect(data.characters[0]).toMatchObject({
      id: alice.roleId,
      name: 'Character ALICEONLY',
      scenario: 'Scenario ALICEONLY',
    })
    expect(data.characters[0].tags[0].names.en).toBe('Tag ALICEONLY')
    expect(data.characters[0].translations).toMatchObject([{ locale: 'ja', scenario: 'Scenario ja ALICEONLY' }])
    expect(data.characters[0].lorebookIds).toEqual([alice.lorebookId])
    expect(data.characters[0].cardFiles).toMatchObject([{ type: 'emotion', name: 'joy-ALICEONLY', byteSize: 14 }])
    expect(data.lorebooks).toMatchObject([{ id: alice.lorebookId, name: 'Book ALICEONLY', book: { entries: [] } }])
    expect(data.chats).toHaveLength(1)
    expect(data.chats[0]).toMatchObject({ id: alice.sessionId, memoryNote: 'Memory ALICEONLY' })
    expect(data.chats[0].messages.map((m: { content: string }) => m.content)).toEqual([
      'Greeting ALICEONLY',
      'Question ALICEONLY',
      'Answer ALICEONLY',
    ])
    expect(data.chats[0].messages[2].swipes).toHaveLength(1)
    expect(data.diamonds).toMatchObject({ balance: 50, ledger: [{ amount: 50, reason: 'signup' }] })
    expect(data.orders).toMatchObject([{ id: alice.orderId, planId: 'plus', status: 'paid', amount: 999 }])
    expect(data.subscriptions).toMatchObject([{ planId: 'plus', status: 'active' }])
    expect(data.reports).toMatchObject([{ characterId: bob.roleId, reason: 'spam', text: 'Report ALICEONLY' }])
    expect(data.ratings).toMatchObject([{ characterId: bob.roleId, score: 2 }])

    const text = response.body
    expect(text).not.toContain('BOBONLY')
    expect(text).not.toContain(bob.user.id)
    expect(text).not.toContain(passwordHash)
    expect(text).not.toMatch(/passwordHash|tokenHash|providerRef|secret-ref/)
  })

  it('names the chat and message each branch was branched from (ADR 050), by the ids the export uses', async () => {
    const user = await t.login({ passwordHash })
    const call = async (url: string, payload: object) => {
      const res = await t.injectWithLogin({ method: 'POST', url, payload }, user)
      expect(res.statusCode, `${url}: ${res.body}`).toBe(200)
      return res.json().data
    }
    const roleId = await createRole(t.database.db, { name: 'Brancher', firstMessage: 'Hello, {{user}}.' })
    const original = await call('/api/createSession', { roleId })
    const greetingId: number = original.firstMessage.id
    const branch = await call('/api/chat/branch', { sessionId: original.id, messageId: greetingId })
    const [copiedGreeting] = (await call('/api/messages', { sessionId: branch.sessionId, limit: 10 })).items
    const branchGreeting: number = copiedGreeting.id
    const twig = await call('/api/chat/branch', { sessionId: branch.sessionId, messageId: branchGreeting })

    type ExportedChat = { id: string; branchedFrom: unknown; messages: { id: number }[] }
    const chatsOf = async () => (await exportOf(user.token)).json().chats as ExportedChat[]
    const byId = new Map((await chatsOf()).map((chat) => [chat.id, chat]))
    expect(byId.get(original.id)?.branchedFrom).toBeNull()
    expect(byId.get(branch.sessionId)?.branchedFrom).toEqual({ chatId: original.id, messageId: greetingId })
    // The message named is one the export lists under that chat.
    expect(byId.get(original.id)?.messages.map((m) => m.id)).toContain(greetingId)
    expect(byId.get(branch.sessionId)?.messages.map((m) => m.id)).toEqual([branchGreeting])
    expect(byId.get(twig.sessionId)?.branchedFrom).toEqual({ chatId: branch.sessionId, messageId: branchGreeting })

    // A parent deleted (here still in its undo window, ADR 048) is no chat of the export: no link to it.
    await call('/api/deleteSession', { sessionId: original.id })
    const after = new Map((await chatsOf()).map((chat) => [chat.id, chat]))
    expect(after.has(original.id)).toBe(false)
    expect(after.get(branch.sessionId)?.branchedFrom).toBeNull()
    expect(after.get(twig.sessionId)?.branchedFrom).toEqual({ chatId: branch.sessionId, messageId: branchGreeting })
  })

  it('describes the account for its page: a Google-only account has no password', async () => {
    const alice = await t.login({ passwordHash })
    const google = await t.login({ passwordHash: null })
    const summary = (token: string) => t.app.inject({ method: 'GET', url: '/api/account', headers: bearer(token) })
    expect((await summary(alice.token)).json().data).toMatchObject({
      username: alice.user.username,
      email: alice.user.email,
      hasPassword: true,
    })
    expect((await summary(google.token)).json().data.hasPassword).toBe(false)
  })

  it('needs a signed-in user', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/account' })).statusCode).toBe(401)
    expect((await t.app.inject({ method: 'GET', url: '/api/account/export' })).statusCode).toBe(401)
    expect((await t.app.inject({ method: 'POST', url: '/api/account/delete', payload: {} })).statusCode).toBe(401)
  })

  it('refuses a wrong password with 403 and deletes nothing', async () => {
    const alice = await userWithData('WRONGPW')
    const response = await deleteWith(alice.token, { password: 'not the password' })
    expect(response.statusCode).toBe(403)
    expect(response.json()).toMatchObject({ success: false, error: 'INVALID_CREDENTIALS' })
    expect(await userExists(t.database.db, alice.user.id)).toBe(true)
    expect((await exportOf(alice.token)).json().chats).toHaveLength(1)
  })

  it('deletes everything personal in one go; the old token, the login and a second delete all fail', async () => {
    const bob = await userWithData('BOBKEEPS')
    const alice = await userWithData('ALICEGOES', bob.roleId)
    const privateRoleId = await createRole(t.database.db, {
      name: 'Private ALICEGOES',
      creatorId: alice.user.id,
      visibility: 'private',
    })
    // Bob chats with Alice's character; his chat stays, without it.
    await chatWith(t.database.db, bob.user.id, alice.roleId, 'BOBSECOND')

    const response = await deleteWith(alice.token, { password: PASSWORD })
    expect(response.statusCode).toBe(200)
    expect(response.json()).toMatchObject({ success: true, data: { message: 'deleted' } })
    expect(await userExists(t.database.db, alice.user.id)).toBe(false)

    // The access token was valid for 15 more minutes; the account's deletion ends it now.
    expect((await exportOf(alice.token)).statusCode).toBe(401)
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/userInfo', headers: bearer(alice.token) })).statusCode,
    ).toBe(401)
    expect((await deleteWith(alice.token, { password: PASSWORD })).statusCode).toBe(401)
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/login',
      payload: { email: alice.user.email, password: PASSWORD, rememberMe: false },
    })
    expect(login.statusCode).toBe(401)

    // Her private character is gone; her public one stays without her name (the privacy policy).
    expect(await creatorOf(t.database.db, privateRoleId)).toBeUndefined()
    expect(await creatorOf(t.database.db, alice.roleId)).toBeNull()
    expect((await t.app.inject({ method: 'GET', url: `/api/role?roleId=${alice.roleId}` })).statusCode).toBe(200)
    // Her order and ledger entries stay for accounting, without her.
    expect(await buyerOf(t.database.db, alice.orderId)).toBeNull()
    expect(await ledgerEntries(t.database.db, `signup:${alice.user.id}`)).toEqual([{ userId: null, amount: 50 }])

    // Bob's data is whole, his chat with her character too.
    const bobs = (await exportOf(bob.token)).json()
    expect(bobs.characters).toHaveLength(1)
    expect(bobs.chats).toHaveLength(2)
    expect(bobs.chats.every((c: { messages: unknown[] }) => c.messages.length === 3)).toBe(true)
    expect(bobs.chats.find((c: { memoryNote: string }) => c.memoryNote === 'Memory BOBSECOND')?.characterId).toBe(
      alice.roleId,
    )
    expect(bobs.diamonds.balance).toBe(50)
    expect(await buyerOf(t.database.db, bob.orderId)).toBe(bob.user.id)
    // Her rating of Bob's character no longer counts.
    expect(await ratingOf(t.database.db, bob.roleId)).toEqual({ ratingCount: 0, ratingSum: 0 })
  })

  it('confirms an account without a password with its e-mail address', async () => {
    const google = await t.login({ passwordHash: null })
    expect((await deleteWith(google.token, { email: 'someone@else.test' })).statusCode).toBe(403)
    expect(await userExists(t.database.db, google.user.id)).toBe(true)
    expect((await deleteWith(google.token, { email: ` ${google.user.email.toUpperCase()} ` })).statusCode).toBe(200)
    expect(await userExists(t.database.db, google.user.id)).toBe(false)
  })

  it('refuses while a plan renews by itself at the provider', async () => {
    const alice = await userWithData('RENEWS')
    await makePlanRenew(t.database.db, alice.user.id)
    const response = await deleteWith(alice.token, { password: PASSWORD })
    expect(response.statusCode).toBe(409)
    expect(response.json().details).toEqual({ reason: 'subscription-renews' })
    expect(await userExists(t.database.db, alice.user.id)).toBe(true)
  })

  it('rate limits deletion attempts', async () => {
    const alice = await t.login({ passwordHash })
    const codes: number[] = []
    for (let i = 0; i < 6; i++) codes.push((await deleteWith(alice.token, { password: 'wrong' })).statusCode)
    expect(codes).toEqual([403, 403, 403, 403, 403, 429])
  })

  it('rate limits exports', async () => {
    const alice = await t.login()
    await createRole(t.database.db, { name: 'Unrelated' })
    const codes: number[] = []
    for (let i = 0; i < 11; i++) codes.push((await exportOf(alice.token)).statusCode)
    expect(codes.at(-1)).toBe(429)
    expect(codes.slice(0, 10).every((c) => c === 200)).toBe(true)
  })
})
