import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LOCALES } from '#contracts/locales.ts'
import { createRole, createTags } from '#tests/factories/catalogue.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'
import { createBlogService } from './blog.service.ts'
import { BLOG_DIR, BlogContentError, loadBlogContent } from './blog-content.ts'
import { readingMinutes, renderArticle, slugifyHeading } from './blog-markdown.ts'

const FIXTURES = path.resolve(import.meta.dirname, '..', '..', '..', 'tests', 'fixtures', 'blog')
const noRelated = { listRelatedRoles: async () => [] }
const quiet = () => {}

function articleDir(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'rp-blog-'))
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true })
    writeFileSync(path.join(dir, name), content)
  }
  return dir
}

const COVER = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="5"></svg>'
const front = (extra = '') =>
  `---\ntitle: T\ndescription: D\ndate: 2026-03-01\nauthor: A\ntags: [x]\ncover: cover.svg\ncoverAlt: Alt${extra}\n---\n`

describe('article markdown', () => {
  const env = () => ({ locale: 'en' as const, assetUrl: () => undefined, problems: [] as string[] })

  it('escapes raw HTML and scripts instead of passing them through', () => {
    const { html } = renderArticle(
      'Hi <script>alert(1)</script> <img src=x onerror="alert(2)">\n\n<div>block</div>',
      env(),
    )
    expect(html).not.toContain('<script')
    expect(html).not.toContain('<img')
    expect(html).not.toContain('<div>')
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;')
    expect(html).toContain('&lt;div&gt;block&lt;/div&gt;')
  })

  it('keeps only http(s), mailto and site links', () => {
    const links = [
      '[a](javascript:alert(1))',
      '[b](JAVASCRIPT:alert(1))',
      '[c](data:text/html;base64,PHNjcmlwdD4=)',
      '[d](vbscript:msgbox)',
      '[e](file:///etc/passwd)',
      '[f](https://example.com/x)',
      '[g](mailto:team@example.com)',
      '[h](/characters)',
      '[i](#part)',
    ].join(' ')
    const { html } = renderArticle(links, { ...env(), locale: 'fr' })
    expect(html).not.toMatch(/href="(javascript|data|vbscript|file):/i)
    expect(html).toContain('<a href="https://example.com/x" rel="noopener noreferrer">f</a>')
    expect(html).toContain('<a href="mailto:team@example.com">g</a>')
    // A path of the site gets the article's language.
    expect(html).toContain('<a href="/fr/characters">h</a>')
    expect(html).toContain('<a href="#part">i</a>')
  })

  it('gives headings unique ids, starts them at h2 and lists h2 and h3 in the table of contents', () => {
    const { html, toc } = renderArticle(
      '# Top\n\n## Same\n\n## Same\n\n### Déjà vu & co\n\n#### Deep\n\n## Main',
      env(),
    )
    expect(html).toContain('<h2 id="top">Top</h2>')
    expect(html).toContain('<h3 id="same">Same</h3>')
    expect(html).toContain('<h3 id="same-2">Same</h3>')
    expect(html).toContain('<h4 id="déjà-vu-co">Déjà vu &amp; co</h4>')
    // `main` is the page's own landmark id.
    expect(html).toContain('<h3 id="main-2">Main</h3>')
    expect(toc).toEqual([
      { id: 'top', text: 'Top', level: 2 },
      { id: 'same', text: 'Same', level: 3 },
      { id: 'same-2', text: 'Same', level: 3 },
      { id: 'main-2', text: 'Main', level: 3 },
    ])
  })

  it('slugs headings in any script', () => {
    expect(slugifyHeading('أحدث الأشياء')).toBe('أحدث-الأشياء')
    expect(slugifyHeading('中文 标题！')).toBe('中文-标题')
    expect(slugifyHeading('?!')).toBe('section')
  })

  it('renders tables, lists, code and images of the folder', () => {
    const assetUrl = (file: string) => (file === 'pic.png' ? '/blog/x/pic.png?v=1' : undefined)
    const e = { ...env(), assetUrl }
    const { html } = renderArticle(
      '| a | b |\n|---|---|\n| 1 | 2 |\n\n- one\n- two\n\n1. first\n\n```ts\nconst x = "<b>"\n```\n\n![A picture](./pic.png)',
      e,
    )
    expect(html).toContain('<div class="table-scroll" tabindex="0"><table>')
    expect(html).toContain('<td>1</td>')
    expect(html).toContain('<ul>\n<li>one</li>')
    expect(html).toContain('<ol>\n<li>first</li>')
    expect(html).toContain('<pre><code class="language-ts">const x = &quot;&lt;b&gt;&quot;\n</code></pre>')
    expect(html).toContain('<img src="/blog/x/pic.png?v=1" alt="A picture" loading="lazy" decoding="async">')
    expect(e.problems).toEqual([])
  })

  it('refuses images from elsewhere', () => {
    const e = env()
    renderArticle('![x](https://tracker.example/pixel.gif) ![y](missing.png)', e)
    expect(e.problems).toHaveLength(2)
  })

  it('counts reading time by words, and by characters for scripts without spaces', () => {
    expect(readingMinutes(10, 0)).toBe(1)
    expect(readingMinutes(690, 0)).toBe(3)
    expect(readingMinutes(0, 1500)).toBe(3)
    const words = Array.from({ length: 920 }, () => 'word').join(' ')
    expect(renderArticle(words, env()).readingMinutes).toBe(4)
  })
})

describe('blog content', () => {
  it('loads every article, newest first, with its translations, cover and assets', () => {
    const { articles } = loadBlogContent(FIXTURES)
    expect(articles.map((a) => a.slug)).toEqual(['newer-post', 'middle-post', 'older-post'])
    const older = articles[2]
    expect([...(older?.texts.keys() ?? [])].sort()).toEqual(['en', 'fr'])
    expect(older?.tags).toEqual(['fantasy', 'writing'])
    const english = older?.texts.get('en')
    expect(english?.cover).toMatchObject({ alt: 'A plain violet rectangle', width: 1200, height: 630 })
    expect(english?.cover.url).toMatch(/^\/blog\/older-post\/cover\.svg\?v=[0-9a-f]{12}$/)
    expect(english?.cover.socialUrl).toMatch(/^\/blog\/older-post\/cover\.social\.png\?v=[0-9a-f]{12}$/)
    expect(english?.html).toMatch(/<img src="\/blog\/older-post\/diagram\.svg\?v=[0-9a-f]{12}" alt="A small diagram"/)
    expect(english?.html).not.toContain('<script')
    expect(english?.html).not.toContain('onclick="')
    // The cover written as a site path (`/blog/<slug>/cover.svg`) is found too.
    expect(articles[1]?.texts.get('en')?.cover).toMatchObject({ width: 600, height: 315 })
    expect(articles[0]).toMatchObject({ date: '2026-02-01', updated: '2026-02-10' })
  })

  it('loads the real articles of content/blog', () => {
    const { articles } = loadBlogContent(BLOG_DIR)
    expect(articles.length).toBeGreaterThanOrEqual(3)
    for (const article of articles) {
      expect(article.texts.has('en'), article.slug).toBe(true)
      for (const text of article.texts.values()) {
        expect(text.toc.length, `${article.slug}/${text.locale}`).toBeGreaterThan(0)
        expect(text.html).not.toContain('<script')
      }
    }
  })

  it('refuses articles it cannot publish, naming every problem', () => {
    const dir = articleDir({
      'no-english/fr.md': front(),
      'no-english/cover.svg': COVER,
      'bad-front/en.md': '---\ntitle: ""\ndate: yesterday\n---\ntext',
      'bad-front/cover.svg': COVER,
      'Bad_Slug/en.md': front(),
      'typo-locale/en.md': front(),
      'typo-locale/zh-CN.md': front(),
      'typo-locale/cover.svg': COVER,
      'no-cover/en.md': front(),
      'outside-image/en.md': `${front()}\n![x](https://example.com/x.png)`,
      'outside-image/cover.svg': COVER,
    })
    let error: unknown
    try {
      loadBlogContent(dir)
    } catch (thrown) {
      error = thrown
    }
    expect(error).toBeInstanceOf(BlogContentError)
    const problems = (error as BlogContentError).problems.join('\n')
    expect(problems).toMatch(/no-english: no en\.md/)
    expect(problems).toMatch(/bad-front\/en\.md: title/)
    expect(problems).toMatch(/bad-front\/en\.md: date/)
    expect(problems).toMatch(/bad-front\/en\.md: author/)
    expect(problems).toMatch(/Bad_Slug: the folder name/)
    expect(problems).toMatch(/typo-locale\/zh-CN\.md: not a locale/)
    expect(problems).toMatch(/no-cover\/en\.md: cover: "cover\.svg" is not a file/)
    expect(problems).toMatch(/outside-image\/en\.md: image "https:\/\/example\.com\/x\.png"/)
  })

  it('is an empty blog without a content folder', () => {
    expect(loadBlogContent(path.join(tmpdir(), 'no-such-blog-folder')).articles).toEqual([])
  })
})

describe('blog service', () => {
  const blog = createBlogService({ content: loadBlogContent(FIXTURES), catalogue: noRelated, log: quiet })

  it('pages the list newest first and says when a page is past the end', () => {
    const first = blog.listArticles({ page: 1, pageSize: 2 }, 'en')
    expect(first).toMatchObject({ page: 1, pageSize: 2, total: 3, totalPages: 2 })
    expect(first?.items.map((a) => a.slug)).toEqual(['newer-post', 'middle-post'])
    expect(blog.listArticles({ page: 2, pageSize: 2 }, 'en')?.items.map((a) => a.slug)).toEqual(['older-post'])
    expect(blog.listArticles({ page: 3, pageSize: 2 }, 'en')).toBeNull()
    const empty = createBlogService({ content: { articles: [] }, catalogue: noRelated, log: quiet })
    expect(empty.listArticles({ page: 1, pageSize: 9 }, 'en')).toEqual({
      items: [],
      page: 1,
      pageSize: 9,
      total: 0,
      totalPages: 0,
    })
  })

  it('shows a translation when there is one and English, flagged, when there is not', async () => {
    const french = await blog.getArticle('older-post', 'fr')
    expect(french).toMatchObject({ title: 'Ancien article', contentLocale: 'fr', fallback: false })
    expect(french?.html).toContain('<a href="/fr/characters">')
    expect(french?.translations).toEqual(['en', 'fr'])
    const german = await blog.getArticle('older-post', 'de')
    expect(german).toMatchObject({ title: 'Older post', contentLocale: 'en', fallback: true })
    const list = blog.listArticles({ page: 1, pageSize: 9 }, 'fr')
    expect(list?.items.map((a) => [a.slug, a.fallback])).toEqual([
      ['newer-post', true],
      ['middle-post', true],
      ['older-post', false],
    ])
  })

  it('links each article to the one before and after it', async () => {
    const middle = await blog.getArticle('middle-post', 'ar')
    expect(middle?.previous).toEqual({ slug: 'older-post', title: 'Older post' })
    expect(middle?.next).toEqual({ slug: 'newer-post', title: 'أحدث مقال' })
    expect((await blog.getArticle('newer-post', 'en'))?.next).toBeNull()
    expect((await blog.getArticle('older-post', 'en'))?.previous).toBeNull()
  })

  it('answers null for an unknown slug', async () => {
    expect(await blog.getArticle('no-such-article', 'en')).toBeNull()
  })

  it('still shows the article when its related characters cannot be loaded', async () => {
    const logged: string[] = []
    const failing = createBlogService({
      content: loadBlogContent(FIXTURES),
      catalogue: {
        listRelatedRoles: async () => {
          throw new Error('database down')
        },
      },
      log: (_info, msg) => logged.push(msg),
    })
    expect((await failing.getArticle('older-post', 'en'))?.related).toEqual([])
    expect(logged).toHaveLength(1)
  })

  it('lists every article for the sitemaps with the locales it is written in', () => {
    expect(blog.sitemapEntries()).toEqual([
      { slug: 'newer-post', path: '/blog/newer-post', lastmod: '2026-02-10', translations: ['en', 'ar'] },
      { slug: 'middle-post', path: '/blog/middle-post', lastmod: '2026-01-20', translations: ['en'] },
      { slug: 'older-post', path: '/blog/older-post', lastmod: '2026-01-05', translations: ['en', 'fr'] },
    ])
    expect(blog.lastModified()).toBe('2026-02-10')
  })
})

describe('blog API', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await buildTestApp()
    await createTags(t.database.db, [
      { slug: 'writing', names: { en: 'Writing' } },
      { slug: 'fantasy', names: { en: 'Fantasy' } },
    ])
    await createRole(t.database.db, { name: 'Quill the Scribe', tagSlugs: ['writing'], popularity: 1 })
    await createRole(t.database.db, { name: 'Secret Muse', tagSlugs: ['writing'], isAdult: true, popularity: 99 })
    await createRole(t.database.db, { name: 'Hidden Draft', tagSlugs: ['writing'], visibility: 'private' })
    await createRole(t.database.db, { name: 'Popular Knight', tagSlugs: ['fantasy'], popularity: 50 })
  })
  afterAll(() => t?.close())

  it('lists the articles, newest first, with cover, date, reading time and total', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/blogs?pageSize=2&locale=en' })
    expect(res.statusCode).toBe(200)
    const { data } = res.json()
    expect(data.total).toBeGreaterThanOrEqual(3)
    expect(data.items).toHaveLength(2)
    const [first, second] = data.items
    expect(first.date >= second.date).toBe(true)
    expect(first.cover.url).toMatch(/^\/blog\/[a-z0-9-]+\/cover\.svg\?v=/)
    expect(first.readingMinutes).toBeGreaterThan(0)
    expect(res.headers['cache-control']).toContain('public')
    const past = await t.app.inject({ method: 'GET', url: '/api/blogs?page=999' })
    expect(past.statusCode).toBe(400)
    expect(past.json().details[0].lastPage).toBeGreaterThanOrEqual(1)
  })

  it('answers an article with html, contents, neighbours and related characters for everyone', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/blog?slug=how-to-write-a-character-people-love' })
    expect(res.statusCode).toBe(200)
    const { data } = res.json()
    expect(data.html).toContain('<h2 id=')
    expect(data.toc.length).toBeGreaterThan(0)
    const names = data.related.map((r: { name: string }) => r.name)
    // Its tag first, then popular ones; never adult or private ones.
    expect(names[0]).toBe('Quill the Scribe')
    expect(names).toContain('Popular Knight')
    expect(names).not.toContain('Secret Muse')
    expect(names).not.toContain('Hidden Draft')
  })

  it('falls back to English for a locale without the article and says so', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/blog?slug=how-memory-and-diamonds-work&locale=xx' })
    expect(res.json().data).toMatchObject({ contentLocale: 'en', fallback: false })
    const translations: string[] = res.json().data.translations
    const missing = LOCALES.find((l) => !translations.includes(l))
    if (missing) {
      const other = await t.app.inject({
        method: 'GET',
        url: `/api/blog?slug=how-memory-and-diamonds-work&locale=${missing}`,
      })
      expect(other.json().data).toMatchObject({ contentLocale: 'en', fallback: true })
    }
  })

  it('answers 404 for an unknown slug and 400 for one that cannot be a slug', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/blog?slug=no-such-article' })
    expect(res.statusCode).toBe(404)
    expect(res.json()).toMatchObject({ success: false, error: 'NOT_FOUND' })
    expect((await t.app.inject({ method: 'GET', url: '/api/blog?slug=../etc/passwd' })).statusCode).toBe(400)
  })

  it('serves covers with their type and a year of cache, and a PNG twin for social cards', async () => {
    const { data } = (await t.app.inject({ method: 'GET', url: '/api/blogs' })).json()
    const cover = await t.app.inject({ method: 'GET', url: data.items[0].cover.url })
    expect(cover.statusCode).toBe(200)
    expect(cover.headers['content-type']).toBe('image/svg+xml')
    expect(cover.headers['cache-control']).toBe('public, max-age=31536000, immutable')
    expect(cover.body).toContain('<svg')
    const social = await t.app.inject({ method: 'GET', url: data.items[0].cover.socialUrl })
    expect(social.statusCode).toBe(200)
    expect(social.headers['content-type']).toBe('image/png')
    expect(social.rawPayload.subarray(1, 4).toString()).toBe('PNG')
    expect(social.rawPayload.readUInt32BE(16)).toBe(1200)
    expect(social.rawPayload.readUInt32BE(20)).toBe(630)
  })
})
