import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LOCALES } from '#contracts/locales.ts'
import { SITEMAP_INDEX_SCHEMA, SITEMAP_SCHEMA, schemaProblems } from '#tests/helpers/xml-schema.ts'
import { type RunningServer, startServer } from './browser.ts'

// What a search engine does with the real server: robots.txt, the sitemap index, every sitemap
// (validated against the sitemaps.org schemas) and every URL listed in them.
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'
const locs = (xml: string) => [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => (m[1] ?? '').replace(/&amp;/g, '&'))
const hrefs = (xml: string) =>
  [...xml.matchAll(/<xhtml:link rel="alternate" hreflang="[^"]+" href="([^"]+)"\/>/g)].map((m) =>
    (m[1] ?? '').replace(/&amp;/g, '&'),
  )

describe('sitemaps of the running server', () => {
  let server: RunningServer
  beforeAll(async () => {
    server = await startServer()
  })
  afterAll(() => server?.stop())

  const crawl = (url: string) => fetch(url, { headers: { 'user-agent': GOOGLEBOT } })

  it('validates every sitemap against the published schemas, and every URL in them answers 200', async () => {
    const robots = await (await crawl(`${server.url}/robots.txt`)).text()
    const index = /^Sitemap: (\S+)$/m.exec(robots)?.[1]
    expect(index).toBe(`${server.url}/sitemap.xml`)
    const disallowed = [...robots.matchAll(/^Disallow: (\S+)$/gm)].map((m) => m[1] ?? '')

    const indexResponse = await crawl(index ?? '')
    expect(indexResponse.status).toBe(200)
    expect(indexResponse.headers.get('content-type')).toBe('application/xml; charset=utf-8')
    const indexXml = await indexResponse.text()
    expect(schemaProblems(indexXml, SITEMAP_INDEX_SCHEMA)).toEqual([])
    const files = locs(indexXml)
    expect(files).toEqual(LOCALES.map((l) => `${server.url}/${l}/sitemap.xml`))

    const pages = new Set<string>()
    for (const file of files) {
      const response = await crawl(file)
      expect(response.status, file).toBe(200)
      const xml = await response.text()
      expect(schemaProblems(xml, SITEMAP_SCHEMA), file).toEqual([])
      const listed = locs(xml)
      expect(listed.length, file).toBeGreaterThan(6)
      for (const url of [...listed, ...hrefs(xml)]) pages.add(url)
    }

    // Nothing listed is something robots.txt asks crawlers to leave alone.
    for (const url of pages) {
      const { pathname } = new URL(url)
      expect(
        disallowed.filter((rule) => pathname.startsWith(rule)),
        url,
      ).toEqual([])
    }

    // Every URL and every alternate answers 200, four at a time.
    const queue = [...pages]
    const failures: string[] = []
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let url = queue.shift(); url; url = queue.shift()) {
          const response = await crawl(url)
          await response.arrayBuffer()
          if (response.status !== 200) failures.push(`${response.status} ${url}`)
        }
      }),
    )
    expect(failures).toEqual([])
    console.info(`sitemaps: ${files.length} files, ${pages.size} URLs, all 200`)
  }, 300_000)
})
