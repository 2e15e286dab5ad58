import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRole } from '#tests/factories/catalogue.ts'
import { addMessages } from '#tests/factories/chat.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

// Issue 20 / ADR 039: a new chat opens with the character's greeting in the user's language.

describe("a new chat's greeting in the user's language", () => {
  let t: TestApp
  let owner: Awaited<ReturnType<TestApp['login']>>
  let reader: Awaited<ReturnType<TestApp['login']>>
  let translated: string
  let untranslated: string

  beforeAll(async () => {
    t = await buildTestApp()
    owner = await t.login()
    reader = await t.login({ username: 'hanako' })
    const greeting = {
      firstMessage: 'Hold on tight, {{user}}!',
      alternateGreetings: ['Back again, {{user}}?', 'Mind the tail.'],
    }
    translated = await createRole(t.database.db, { name: 'Seraphine', creatorId: owner.user.id, ...greeting })
    untranslated = await createRole(t.database.db, { name: 'Bram', creatorId: owner.user.id, ...greeting })
    await t.app.services.roleTexts.saveAuthorTranslation(owner.user.id, translated, 'ja', {
      name: 'セラフィナ',
      introduction: '',
      scenario: '',
      firstMessage: 'しっかりつかまって、{{user}}！{{char}}より。',
      // The second alternate is left to the source.
      alternateGreetings: ['また来たの、{{user}}？'],
    })
  })
  afterAll(() => t?.close())

  const start = async (roleId: string, options: { locale?: string; cookie?: string } = {}) => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/createSession',
      payload: { roleId, ...(options.locale ? { locale: options.locale } : {}) },
      headers: { authorization: `Bearer ${reader.token}`, ...(options.cookie ? { cookie: options.cookie } : {}) },
    })
    expect(res.statusCode, res.body).toBe(200)
    const data = res.json().data
    const swipes = await t.app.inject({
      method: 'POST',
      url: '/api/chat/swipes',
      payload: { sessionId: data.id, messageId: data.firstMessage.id },
      headers: { authorization: `Bearer ${reader.token}` },
    })
    return {
      first: data.firstMessage.content as string,
      swipes: (swipes.json().data.swipes as { content: string }[]).map((s) => s.content),
    }
  }

  it('greets a Japanese user in Japanese when the character has a Japanese translation', async () => {
    const chat = await start(translated, { locale: 'ja' })
    expect(chat.first).toBe('しっかりつかまって、hanako！セラフィナより。')
    // The second alternate has no Japanese text: left out rather than greeting in two languages.
    expect(chat.swipes).toEqual(['しっかりつかまって、hanako！セラフィナより。', 'また来たの、hanako？'])
    // The interface language may come from the `lang` cookie, as for the reply language (ADR 038).
    expect((await start(translated, { cookie: 'lang=ja' })).first).toBe('しっかりつかまって、hanako！セラフィナより。')
  })

  it("greets with the source greeting when there is no translation in the user's language", async () => {
    expect((await start(untranslated, { locale: 'ja' })).first).toBe('Hold on tight, hanako!')
    expect((await start(translated, { locale: 'fr' })).first).toBe('Hold on tight, hanako!')
    expect((await start(translated)).first).toBe('Hold on tight, hanako!')
  })

  it("names the character in the chat's language in the chat header and the chat list", async () => {
    const started = await t.app.inject({
      method: 'POST',
      url: '/api/createSession',
      payload: { roleId: translated, locale: 'ja' },
      headers: { authorization: `Bearer ${reader.token}` },
    })
    expect(started.json().data.role.name).toBe('セラフィナ')
    const sessionId = started.json().data.id as string
    // A chat holding only the greeting is not listed (ADR 048): the user writes first.
    await addMessages(t.database.db, sessionId, [{ author: 'user', content: 'こんにちは' }])
    const ask = async (url: string, cookie: string) => {
      const res = await t.app.inject({
        method: 'POST',
        url,
        payload: url === '/api/session' ? { sessionId } : {},
        headers: { authorization: `Bearer ${reader.token}`, cookie },
      })
      expect(res.statusCode, res.body).toBe(200)
      return res.json().data
    }
    expect((await ask('/api/session', 'lang=ja')).role.name).toBe('セラフィナ')
    expect((await ask('/api/session', 'lang=en')).role.name).toBe('Seraphine')
    const names = (list: { sessions: { id: string; role: { name: string } | null }[] }) =>
      list.sessions.find((s) => s.id === sessionId)?.role?.name
    expect(names(await ask('/api/sessions', 'lang=ja'))).toBe('セラフィナ')
    expect(names(await ask('/api/sessions', 'lang=fr'))).toBe('Seraphine')
    // The page's language in the body (the client sends it) wins over the cookie.
    const listed = await t.app.inject({
      method: 'POST',
      url: '/api/sessions',
      payload: { locale: 'ja' },
      headers: { authorization: `Bearer ${reader.token}`, cookie: 'lang=fr' },
    })
    expect(names(listed.json().data)).toBe('セラフィナ')
    // A chat with its own language (its settings) names the character in that language.
    const set = await t.app.inject({
      method: 'POST',
      url: '/api/session/settings/update',
      payload: { sessionId, temperature: null, replyTokens: null, language: 'ja' },
      headers: { authorization: `Bearer ${reader.token}` },
    })
    expect(set.statusCode, set.body).toBe(200)
    expect((await ask('/api/session', 'lang=en')).role.name).toBe('セラフィナ')
    expect(names(await ask('/api/sessions', 'lang=fr'))).toBe('セラフィナ')
  })
})
