import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LOCALE_TAGS, LOCALES, localizePath } from '#contracts/locales.ts'
import { createRole, createTags } from '#tests/factories/catalogue.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'
import { SITEMAP_INDEX_SCHEMA, SITEMAP_SCHEMA, schemaProblems } from '#tests/helpers/xml-schema.ts'
import { createSitemapService, PRIVATE_PATHS } from './sitemap.service.ts'
import { encodePathSegment, SITEMAP_MAX_BYTES, urlBytesBound, urlSetXml, urlsPerSitemap } from './sitemap-xml.ts'

const ORIGIN = 'http://localhost:3000'
const locs = (xml: string) => [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1] ?? '')
const urlBlocks = (xml: string) => [...xml.matchAll(/<url>(.*?)<\/url>/g)].map((m) => m[1] ?? '')

describe('sitemap XML', () => {
  it('escapes what XML needs escaped and percent-encodes ids strictly', () => {
    expect(encodePathSegment("it's (a) *test*!")).toBe('it%27s%20%28a%29%20%2Atest%2A%21')
    const xml = urlSetXml([{ loc: `${ORIGIN}/a?b=1&c=2`, lastmod: '2026-01-01', alternates: [] }])
    expect(xml).toContain('<loc>http://localhost:3000/a?b=1&amp;c=2</loc>')
    expect(schemaProblems(xml, SITEMAP_SCHEMA)).toEqual([])
  })

  it('cuts files before 50 MiB when URLs carry many long alternates', () => {
    // Character pages with 22 alternates: about 2.4 kB each, so about 21,000 fit in 50 MiB.
    const typical = urlsPerSitemap(ORIGIN, 30, 22)
    expect(typical).toBeGreaterThan(15_000)
    expect(typical).toBeLessThan(50_000)
    expect(typical * urlBytesBound(ORIGIN, 30, 22)).toBeLessThanOrEqual(SITEMAP_MAX_BYTES)
    const long = urlsPerSitemap('https://a-rather-long-domain-name.example.com', 600, 22)
    expect(long).toBeLessThan(50_000)
    expect(long * urlBytesBound('https://a-rather-long-domain-name.example.com', 600, 22)).toBeLessThanOrEqual(
      SITEMAP_MAX_BYTES,
    )
    expect(urlsPerSitemap(ORIGIN, 10, 0)).toBe(50_000)
  })

  it('never underestimates the size of a URL entry', () => {
    const path = `/characters/${encodePathSegment('Ünïcödé-id-\u4e2d')}`
    const alternates = LOCALES.map((l) => ({ hreflang: LOCALE_TAGS[l], href: ORIGIN + localizePath(l, path) }))
    alternates.push({ hreflang: 'x-default', href: ORIGIN + path })
    const entry = urlSetXml([{ loc: ORIGIN + path, lastmod: new Date().toISOString(), alternates }])
    const frame = urlSetXml([]).length
    expect(Buffer.byteLength(entry) - frame).toBeLessThanOrEqual(urlBytesBound(ORIGIN, Buffer.byteLength(path), 22))
  })
})

describe('sitemaps and robots.txt', () => {
  let t: TestApp
  let publicIds: string[]
  let hidden: string[]
  let japanese: string
  beforeAll(async () => {
    t = await buildTestApp()
    const { db } = t.database
    // Written in Japanese, translated into French by its author; a German machine translation made
    // from older texts (stale) does not count.
    const { user } = await t.login()
    japanese = await createRole(db, {
      name: '茶屋の娘',
      sourceLanguage: 'ja',
      creatorId: user.id,
      introduction: '京都の茶屋で働く娘。',
    })
    const texts = t.app.services.roleTexts
    await texts.saveAuthorTranslation(user.id, japanese, 'fr', {
      name: 'La fille du salon de thé',
      introduction: 'Elle sert le thé à Kyoto.',
      scenario: '',
      firstMessage: '',
      alternateGreetings: [],
    })
    const machine = {
      name: null,
      introduction: 'Sie serviert Tee.',
      scenario: '',
      firstMessage: '',
      alternateGreetings: [],
    }
    await texts.saveMachineTranslation(japanese, 'de', machine, 'hash of older texts')
    await createTags(db, [{ slug: 'fantasy', names: { en: 'Fantasy' } }])
    publicIds = [
      await createRole(db, { name: 'Open Door', tagSlugs: ['fantasy'] }),
      await createRole(db, { name: 'Second Door', publicId: "it's-a-door" }),
      await createRole(db, { name: 'Third Door' }),
    ]
    hidden = [
      await createRole(db, { name: 'Adult Door', isAdult: true }),
      await createRole(db, { name: 'Private Door', visibility: 'private' }),
    ]
  })
  afterAll(() => t?.close())

  const get = (url: string) => t.app.inject({ method: 'GET', url })

  it('keeps crawlers out of the API, chats, login flows and checkout returns, and points to the sitemap', async () => {
    const res = await get('/robots.txt')
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8')
    const lines = res.body.split('\n')
    for (const line of [
      'User-agent: *',
      'Disallow: /api/',
      'Allow: /api/public/images/',
      'Disallow: /chat/',
      'Disallow: /ar/chat/',
      'Disallow: /login',
      'Disallow: /zh-tw/register',
      'Disallow: /subscribe/success',
      'Disallow: /fr/subscribe/sandbox',
      `Sitemap: ${ORIGIN}/sitemap.xml`,
    ]) {
      expect(lines).toContain(line)
    }
    expect(lines.filter((l) => l.startsWith('Disallow: ')).length).toBe(1 + PRIVATE_PATHS.length * LOCALES.length)
  })

  it('serves an index of one sitemap per locale, valid against siteindex.xsd', async () => {
    const res = await get('/sitemap.xml')
    expect(res.statusCode).toBe(200)
    expect(res.headers['content-type']).toBe('application/xml; charset=utf-8')
    expect(schemaProblems(res.body, SITEMAP_INDEX_SCHEMA)).toEqual([])
    expect(locs(res.body)).toEqual(LOCALES.map((l) => `${ORIGIN}/${l}/sitemap.xml`))
    expect(res.body).toMatch(/<lastmod>\d{4}-\d{2}-\d{2}/)
  })

  it('lists static pages, articles and the public characters for everyone that have their own text in the locale, valid against sitemap.xsd', async () => {
    const blogs = (await get('/api/sitemap/blogs')).json().data.items as { path: string; translations: string[] }[]
    for (const locale of LOCALES) {
      const res = await get(`/${locale}/sitemap.xml`)
      expect(res.statusCode, locale).toBe(200)
      expect(schemaProblems(res.body, SITEMAP_SCHEMA), locale).toEqual([])
      const urls = locs(res.body)
      const at = (path: string) => ORIGIN + localizePath(locale, path)
      for (const path of ['/', '/characters', '/blog', '/subscribe', '/links', '/privacy-policy']) {
        expect(urls, `${locale} ${path}`).toContain(at(path))
      }
      // Written in English: listed in English only. Other locales show the English text in a
      // translated template, a duplicate of the English page for a search engine.
      for (const id of publicIds) {
        expect(urls.includes(at(`/characters/${encodePathSegment(id)}`)), `${locale} ${id}`).toBe(locale === 'en')
      }
      // Its source language and its fresh translation; not the stale one, not English.
      expect(urls.includes(at(`/characters/${japanese}`)), locale).toBe(locale === 'ja' || locale === 'fr')
      for (const id of hidden) expect(urls.some((u) => u.includes(id))).toBe(false)
      expect(urls.some((u) => /\/(login|register|chat|verify)\b/.test(u))).toBe(false)
      // An article is listed where it is written; other locales show English, which is not theirs to list.
      for (const blog of blogs)
        expect(urls.includes(at(blog.path)), `${locale} ${blog.path}`).toBe(blog.translations.includes(locale))
      for (const block of urlBlocks(res.body)) {
        expect(block).toMatch(/<lastmod>[^<]+<\/lastmod>/)
        // English stands for every other language, where the page has an English version.
        if (!block.includes(japanese)) expect(block).toContain('hreflang="x-default"')
      }
    }
    for (const locale of ['ja', 'fr']) {
      const block = urlBlocks((await get(`/${locale}/sitemap.xml`)).body).find((b) => b.includes(japanese)) ?? ''
      expect([...block.matchAll(/hreflang="([^"]+)" href="([^"]+)"/g)].map((m) => [m[1], m[2]])).toEqual([
        ['ja', `${ORIGIN}/ja/characters/${japanese}`],
        ['fr', `${ORIGIN}/fr/characters/${japanese}`],
      ])
    }
    const englishRole =
      urlBlocks((await get('/en/sitemap.xml')).body).find((b) => b.includes(publicIds[0] ?? '-')) ?? ''
    expect([...englishRole.matchAll(/hreflang="([^"]+)"/g)].map((m) => m[1])).toEqual(['en', 'x-default'])
    const english = (await get('/en/sitemap.xml')).body
    const home = urlBlocks(english).find((b) => b.startsWith(`<loc>${ORIGIN}/</loc>`)) ?? ''
    expect(home.match(/<xhtml:link /g)).toHaveLength(22)
    expect(home).toContain(`<xhtml:link rel="alternate" hreflang="zh-CN" href="${ORIGIN}/zh-cn"/>`)
    expect(home).toContain(`<xhtml:link rel="alternate" hreflang="x-default" href="${ORIGIN}/"/>`)
  })

  it('answers 404 for a locale that does not exist and a file past the last one', async () => {
    expect((await get('/xx/sitemap.xml')).statusCode).toBe(404)
    expect((await get('/fr/sitemap-2.xml')).statusCode).toBe(404)
    expect((await get('/fr/sitemap-1.xml')).statusCode).toBe(404)
  })

  it('splits a locale into several files when it has more URLs than one file may hold', async () => {
    const { services } = t.app
    const small = createSitemapService({
      publicUrl: ORIGIN,
      catalogue: services.catalogue,
      blog: services.blog,
      files: { plans: 'config/plans.json', links: 'config/links.json' },
      maxUrlsPerSitemap: 4,
    })
    const index = await small.indexXml()
    expect(schemaProblems(index, SITEMAP_INDEX_SCHEMA)).toEqual([])
    const files = locs(index).filter((u) => u.startsWith(`${ORIGIN}/de/`))
    expect(files.slice(0, 2)).toEqual([`${ORIGIN}/de/sitemap.xml`, `${ORIGIN}/de/sitemap-2.xml`])
    const all: string[] = []
    for (let part = 1; part <= files.length; part++) {
      const xml = (await small.localeXml('de', part)) ?? ''
      expect(schemaProblems(xml, SITEMAP_SCHEMA)).toEqual([])
      expect(locs(xml).length).toBeLessThanOrEqual(4)
      all.push(...locs(xml))
    }
    expect(await small.localeXml('de', files.length + 1)).toBeNull()
    const whole = locs((await get('/de/sitemap.xml')).body)
    expect(all).toEqual(whole)
    expect(new Set(all).size).toBe(all.length)
  })

  it('answers the spec calls the sitemaps are built from', async () => {
    const pages = (await get('/api/sitemap/pages?pageSize=5')).json().data
    expect(pages.total).toBe(6 + publicIds.length + 1)
    expect(pages.items.map((p: { path: string }) => p.path)).toEqual([
      '/',
      '/characters',
      '/blog',
      '/subscribe',
      '/links',
    ])
    const second = (await get('/api/sitemap/pages?page=2&pageSize=5')).json().data
    expect(second.items.map((p: { path: string }) => p.path)).toContain(`/characters/${publicIds[0]}`)
    const blogs = (await get('/api/sitemap/blogs')).json().data
    expect(blogs.items.length).toBeGreaterThanOrEqual(3)
    expect(blogs.items[0]).toMatchObject({ path: `/blog/${blogs.items[0].slug}` })
    expect(blogs.items[0].translations).toContain('en')
  })
})
