import cookie from '@fastify/cookie'
import Fastify, { type FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import localeDetection from '#server/plugins/locale-detection.ts'

// A browser's: inject's own user agent (lightMyRequest) counts as a bot.
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'

describe('locale detection', () => {
  let app: FastifyInstance

  beforeAll(async () => {
    app = Fastify()
    app.decorate('config', { isProduction: false } as FastifyInstance['config'])
    await app.register(cookie)
    await app.register(localeDetection)
    app.get('/*', async () => 'page')
    await app.ready()
  })
  afterAll(async () => {
    await app.close()
  })

  const get = (url: string, headers: Record<string, string>) =>
    app.inject({ method: 'GET', url, headers: { 'user-agent': FIREFOX, ...headers } })

  it('sends a returning visitor whose cookie says ja from unprefixed pages to the Japanese ones', async () => {
    for (const [url, target] of [
      ['/', '/ja'],
      ['/characters', '/ja/characters'],
      ['/characters?tag=x', '/ja/characters?tag=x'],
    ] as const) {
      const res = await get(url, { cookie: 'lang=ja' })
      expect(res.statusCode, url).toBe(302)
      expect(res.headers.location, url).toBe(target)
      expect(res.headers['set-cookie'], url).toBeUndefined()
    }
  })

  it('lets the selector’s choice (the cookie) win over the browser’s language', async () => {
    const toJapanese = await get('/', { cookie: 'lang=ja', 'accept-language': 'de' })
    expect(toJapanese.headers.location).toBe('/ja')
    // English chosen in the selector: a German browser stays on the English page.
    const english = await get('/characters', { cookie: 'lang=en', 'accept-language': 'de' })
    expect(english.statusCode).toBe(200)
  })

  it('detects the language of a first visit and remembers it', async () => {
    const res = await get('/characters', { 'accept-language': 'de-DE,de;q=0.9' })
    expect(res.statusCode).toBe(302)
    expect(res.headers.location).toBe('/de/characters')
    expect(String(res.headers['set-cookie'])).toMatch(/^lang=de;/)
  })

  it('leaves prefixed pages, files, data requests and crawlers alone', async () => {
    expect((await get('/ja/characters', { cookie: 'lang=ja' })).statusCode).toBe(200)
    expect((await get('/fr/characters', { cookie: 'lang=ja' })).statusCode).toBe(200)
    expect((await get('/characters.data', { cookie: 'lang=ja' })).statusCode).toBe(200)
    expect((await get('/api/roles', { cookie: 'lang=ja' })).statusCode).toBe(200)
    // React Router's route discovery, fetched from /ja pages too: a redirect to /ja/__manifest is a 404.
    expect((await get('/__manifest?p=%2Fja%2Fblog%2Fx&version=1', { cookie: 'lang=ja' })).statusCode).toBe(200)
    const bot = await get('/', { cookie: 'lang=ja', 'accept-language': 'ja', 'user-agent': GOOGLEBOT })
    expect(bot.statusCode).toBe(200)
    expect(bot.headers['set-cookie']).toBeUndefined()
  })
})
