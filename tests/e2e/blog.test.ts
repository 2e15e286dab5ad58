import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import matter from 'gray-matter'
import lighthouse from 'lighthouse'
import { type Browser, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type SmtpDouble, startSmtpServer } from '#tests/doubles/smtp.ts'
import {
  chromiumPath,
  HYDRATED,
  launchBrowser,
  PERSON_USER_AGENT,
  type RunningServer,
  screenshotDir,
  seriousA11yViolations,
  startServer,
} from './browser.ts'

const root = path.resolve(import.meta.dirname, '..', '..')
const OPERATOR = 'operator@example.test'
const strings = (locale: string, ns: string) =>
  JSON.parse(readFileSync(path.join(root, 'locales', locale, `${ns}.json`), 'utf8'))

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo
      probe.close(() => resolve(port))
    })
  })
}

/** The title of an article in a locale, from its markdown file. */
const titleOf = (blogDir: string, slug: string, locale: string) =>
  String(matter(readFileSync(path.join(blogDir, slug, `${locale}.md`), 'utf8'), {}).data.title)

describe.skipIf(!chromiumPath)('blog, links and privacy policy in a browser', () => {
  let server: RunningServer
  let browser: Browser
  let smtp: SmtpDouble
  let blogDir: string
  // The real articles, with one Arabic translation taken away so the English fallback shows.
  const translated = 'how-memory-and-diamonds-work'
  const untranslated = 'how-to-write-a-character-people-love'

  beforeAll(async () => {
    blogDir = path.join(mkdtempSync(path.join(tmpdir(), 'rp-blog-e2e-')), 'blog')
    cpSync(path.join(root, 'content', 'blog'), blogDir, { recursive: true })
    rmSync(path.join(blogDir, untranslated, 'ar.md'), { force: true })
    smtp = await startSmtpServer()
    server = await startServer({ BLOG_DIR: blogDir, SMTP_URL: `${smtp.url}?pool=false`, CONTACT_EMAIL: OPERATOR })
    browser = await launchBrowser()
  })
  afterAll(async () => {
    await browser?.close()
    await server?.stop()
    await smtp?.close()
  })

  async function open(locale: string, width = 1280, height = 900): Promise<Page & { errors: string[] }> {
    const context = await browser.newContext({ userAgent: PERSON_USER_AGENT, viewport: { width, height } })
    await context.addCookies([{ name: 'lang', value: locale, url: server.url }])
    const page = (await context.newPage()) as Page & { errors: string[] }
    page.errors = []
    page.on('pageerror', (e) => page.errors.push(e.message))
    return page
  }

  /** No element pushes the page wider than the window (the usual sign of a broken layout). */
  const overflow = (page: Page) =>
    page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)

  it('lists the articles newest first with cover, date and reading time, and opens one in full', async () => {
    const page = await open('en')
    const response = await page.goto(`${server.url}/blog`)
    expect(response?.status()).toBe(200)
    await page.waitForFunction(HYDRATED)
    await page.getByRole('heading', { level: 1, name: 'Blog' }).waitFor()
    const cards = page.getByRole('list', { name: 'Blog' }).getByRole('listitem')
    expect(await cards.count()).toBeGreaterThanOrEqual(3)
    const dates = await page
      .locator('[aria-label="Blog"] time')
      .evaluateAll((times) => times.map((t) => t.getAttribute('datetime') ?? ''))
    expect(dates).toEqual([...dates].sort().reverse())
    expect(
      await cards
        .first()
        .getByText(/\d+ min read/)
        .count(),
    ).toBe(1)
    expect(
      await cards
        .first()
        .getByText(/^Published on [A-Z][a-z]+ \d+, \d{4}$/)
        .count(),
    ).toBe(1)
    // Every cover is really there.
    await page.waitForLoadState('networkidle')
    const covers = await page
      .locator('[aria-label="Blog"] img')
      .evaluateAll((images) => images.map((i) => (i as HTMLImageElement).naturalWidth))
    expect(covers.every((w) => w > 0)).toBe(true)
    expect(await seriousA11yViolations(page)).toEqual([])
    expect(await overflow(page)).toBeLessThanOrEqual(0)
    await page.screenshot({ path: path.join(screenshotDir, 'blog-list.png'), fullPage: true })

    await page.getByRole('link', { name: titleOf(blogDir, translated, 'en') }).click()
    await page.waitForURL(`${server.url}/blog/${translated}`)
    await page.getByRole('heading', { level: 1, name: titleOf(blogDir, translated, 'en') }).waitFor()
    // Contents: every entry leads to a heading of the text.
    const toc = page.getByRole('navigation', { name: 'Contents' }).getByRole('link')
    expect(await toc.count()).toBeGreaterThan(2)
    for (const href of await toc.evaluateAll((links) => links.map((a) => a.getAttribute('href') ?? ''))) {
      expect(await page.locator(`[data-testid="blog-body"] [id="${href.slice(1)}"]`).count(), href).toBe(1)
    }
    // Tables and lists of the markdown come through.
    expect(await page.locator('[data-testid="blog-body"] table').count()).toBeGreaterThan(0)
    const neighbours = page.getByRole('navigation', { name: 'More articles' })
    expect(await neighbours.getByRole('link').count()).toBeGreaterThan(0)
    const related = page.getByRole('heading', { name: 'Characters to meet' })
    await related.waitFor()
    expect(await page.locator('section[aria-labelledby="blog-related-title"] li').count()).toBeGreaterThan(0)
    expect(await page.getByTestId('blog-fallback').count()).toBe(0)
    expect(await seriousA11yViolations(page)).toEqual([])
    expect(await overflow(page)).toBeLessThanOrEqual(0)
    await page.screenshot({ path: path.join(screenshotDir, 'blog-article.png'), fullPage: true })
    // A contents entry scrolls its heading into view, below the top bar.
    await toc.nth(1).click()
    await expect.poll(() => page.evaluate(() => window.location.hash)).not.toBe('')
    const heading = await page.evaluate(
      () => document.getElementById(window.location.hash.slice(1))?.getBoundingClientRect().top,
    )
    expect(heading).toBeGreaterThanOrEqual(56)
    expect(heading).toBeLessThan(200)
    await page.screenshot({ path: path.join(screenshotDir, 'blog-article-toc.png') })
    expect(page.errors).toEqual([])
    await page.context().close()
  })

  it('renders the article on the server in full, with its social card and structured data', async () => {
    const html = await (await fetch(`${server.url}/blog/${translated}`, { headers: { cookie: 'lang=en' } })).text()
    expect(html).toContain(
      `<h1 class="text-3xl font-bold leading-tight sm:text-4xl">${titleOf(blogDir, translated, 'en')}`,
    )
    expect(html).toMatch(/<h2 id="[^"]+">/)
    expect(html).toContain('<meta property="og:type" content="article"/>')
    expect(html).toContain('<meta name="twitter:card" content="summary_large_image"/>')
    const image = /<meta property="og:image" content="([^"]+)"/.exec(html)?.[1] ?? ''
    const png = await fetch(image)
    expect(png.headers.get('content-type')).toBe('image/png')
    const ld = /<script type="application\/ld\+json" nonce="[^"]*">(.*?)<\/script>/.exec(html)?.[1] ?? '{}'
    expect(JSON.parse(ld)).toMatchObject({
      '@context': 'https://schema.org',
      '@type': 'BlogPosting',
      headline: titleOf(blogDir, translated, 'en'),
      inLanguage: 'en',
    })
    expect((await fetch(`${server.url}/blog/no-such-article`, { headers: { cookie: 'lang=en' } })).status).toBe(404)
  })

  it('follows the rules of the SEO audit on an article: title, description, canonical, hreflang, links, alt texts', async () => {
    const page = await open('en')
    const response = await page.goto(`${server.url}/blog/${translated}`)
    expect(response?.status()).toBe(200)
    const audit = await page.evaluate(() => {
      const meta = (name: string) => document.querySelector(`meta[name="${name}"]`)?.getAttribute('content') ?? null
      const anchors = [...document.querySelectorAll('a')]
      return {
        title: document.title,
        description: meta('description'),
        robots: meta('robots'),
        viewport: meta('viewport'),
        lang: document.documentElement.lang,
        canonical: document.querySelector('link[rel="canonical"]')?.getAttribute('href'),
        hreflangs: [...document.querySelectorAll('link[rel="alternate"][hreflang]')].map((l) => [
          l.getAttribute('hreflang') ?? '',
          l.getAttribute('href') ?? '',
        ]),
        // crawlable-anchors: a real href; link-text: words that say where the link goes.
        uncrawlable: anchors.filter(
          (a) => !a.getAttribute('href') || /^javascript:/i.test(a.getAttribute('href') ?? ''),
        ).length,
        vague: anchors
          .map((a) => (a.textContent ?? '').trim().toLowerCase())
          .filter((text) =>
            ['click here', 'here', 'more', 'read more', 'learn more', 'link', 'start', 'go'].includes(text),
          ),
        imagesWithoutAlt: [...document.querySelectorAll('img')].filter((i) => !i.hasAttribute('alt')).length,
      }
    })
    expect(audit.title.length).toBeGreaterThan(10)
    expect(audit.description?.length ?? 0).toBeGreaterThan(50)
    expect(audit.robots).toBeNull()
    expect(audit.viewport).toContain('width=device-width')
    expect(audit.lang).toBe('en')
    expect(audit.canonical).toBe(`${server.url}/blog/${translated}`)
    expect(audit.hreflangs.length).toBeGreaterThan(1)
    for (const [lang, href] of audit.hreflangs) {
      expect(lang === 'x-default' || Intl.getCanonicalLocales(lang).length === 1, lang).toBe(true)
      expect(href, lang).toMatch(new RegExp(`^${server.url}/`))
    }
    expect(audit.uncrawlable).toBe(0)
    expect(audit.vague).toEqual([])
    expect(audit.imagesWithoutAlt).toBe(0)
    // is-crawlable: robots.txt does not keep crawlers from the article.
    const robots = await (await fetch(`${server.url}/robots.txt`)).text()
    for (const rule of robots.matchAll(/^Disallow: (\S+)$/gm)) {
      expect(`/blog/${translated}`.startsWith(rule[1] ?? ''), rule[0]).toBe(false)
    }
    await page.context().close()
  })

  it('scores 1.0 in the Lighthouse SEO audit on an article, in English and Arabic', async () => {
    const port = await freePort()
    const chrome = await chromium.launch({
      executablePath: chromiumPath ?? undefined,
      args: ['--headless', '--no-sandbox', '--disable-gpu', `--remote-debugging-port=${port}`],
    })
    try {
      for (const path of [`/blog/${translated}`, `/ar/blog/${translated}`]) {
        const result = await lighthouse(`${server.url}${path}`, { port, onlyCategories: ['seo'], logLevel: 'error' })
        const lhr = result?.lhr
        const failed = (lhr?.categories.seo?.auditRefs ?? [])
          .map((ref) => lhr?.audits[ref.id])
          .filter((audit) => audit && audit.score !== null && audit.score < 1)
          .map((audit) => audit?.id)
        expect(failed, path).toEqual([])
        expect(lhr?.categories.seo?.score, path).toBe(1)
      }
    } finally {
      await chrome.close()
    }
  })

  it('shows the blog in Arabic, right to left, and English with a note where an article is not translated', async () => {
    const page = await open('ar')
    await page.goto(`${server.url}/ar/blog`)
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl')
    expect(await page.locator('html').getAttribute('lang')).toBe('ar')
    await page.waitForFunction(HYDRATED)
    await page.getByRole('link', { name: titleOf(blogDir, translated, 'ar') }).waitFor()
    // The untranslated one is listed in English, marked as such.
    const english = page.getByRole('heading', { level: 2, name: titleOf(blogDir, untranslated, 'en') })
    expect(await english.getAttribute('lang')).toBe('en')
    expect(await overflow(page)).toBeLessThanOrEqual(0)
    await page.screenshot({ path: path.join(screenshotDir, 'blog-list-ar.png'), fullPage: true })

    await page.getByRole('link', { name: titleOf(blogDir, translated, 'ar') }).click()
    await page.waitForURL(`${server.url}/ar/blog/${translated}`)
    await page.getByRole('heading', { level: 1, name: titleOf(blogDir, translated, 'ar') }).waitFor()
    const body = page.getByTestId('blog-body')
    expect(await body.getAttribute('lang')).toBeNull()
    expect(await body.evaluate((e) => getComputedStyle(e).direction)).toBe('rtl')
    expect(await page.getByTestId('blog-fallback').count()).toBe(0)
    expect(await overflow(page)).toBeLessThanOrEqual(0)
    await page.screenshot({ path: path.join(screenshotDir, 'blog-article-ar.png'), fullPage: true })

    const response = await page.goto(`${server.url}/ar/blog/${untranslated}`)
    expect(response?.status()).toBe(200)
    await page.getByTestId('blog-fallback').waitFor()
    expect(await body.getAttribute('lang')).toBe('en')
    expect(await body.evaluate((e) => getComputedStyle(e).direction)).toBe('ltr')
    expect(await page.locator('html').getAttribute('dir')).toBe('rtl')
    await page.getByRole('heading', { level: 1, name: titleOf(blogDir, untranslated, 'en') }).waitFor()
    // English under an Arabic address is not Arabic's page: kept out of the index, alternates only real ones.
    expect(await page.locator('meta[name="robots"]').getAttribute('content')).toContain('noindex')
    expect(await page.locator('link[rel="alternate"][hreflang="ar"]').count()).toBe(0)
    expect(await overflow(page)).toBeLessThanOrEqual(0)
    await page.screenshot({ path: path.join(screenshotDir, 'blog-article-ar-fallback.png'), fullPage: true })
    expect(page.errors).toEqual([])
    await page.context().close()
  })

  it('says in Arabic that an article is shown in English', async () => {
    const file = path.join(root, 'locales', 'ar', 'blog.json')
    expect(existsSync(file), 'locales/ar/blog.json (the Arabic translation of the blog strings)').toBe(true)
    const page = await open('ar')
    await page.goto(`${server.url}/ar/blog/${untranslated}`)
    expect((await page.getByTestId('blog-fallback').innerText()).trim()).toBe(strings('ar', 'blog').article.fallback)
    await page.context().close()
  })

  it('lists the friendship links and sends the contact form, with a confirmation', async () => {
    const page = await open('en')
    await page.goto(`${server.url}/links`)
    await page.waitForFunction(HYDRATED)
    await page.getByRole('heading', { level: 1, name: 'Friendship links' }).waitFor()
    const links = JSON.parse(readFileSync(path.join(root, 'config', 'links.json'), 'utf8')) as { url: string }[]
    const list = page.getByRole('list', { name: 'Friendship links' }).getByRole('listitem')
    expect(await list.count()).toBe(links.length)
    expect(await list.first().getByRole('link').getAttribute('href')).toBe(links[0]?.url)
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.screenshot({ path: path.join(screenshotDir, 'links.png'), fullPage: true })

    await page.getByRole('button', { name: 'Contact us' }).click()
    const dialog = page.getByRole('dialog', { name: 'Contact us' })
    await dialog.waitFor()
    // Focus moves into the dialog.
    expect(await dialog.evaluate((d) => d.contains(document.activeElement))).toBe(true)
    await dialog.getByRole('button', { name: 'Send message' }).click()
    await dialog.getByText('Please fill all fields.').waitFor()
    await dialog.getByLabel('Your name').fill('Ada Reader')
    await dialog.getByLabel('Your e-mail').fill('ada@example.test')
    await dialog.getByLabel('Message').fill('Hello from the browser test: please list my site.')
    await dialog.getByRole('button', { name: 'Send message' }).click()
    await dialog.getByText('Please complete verification.').waitFor()
    expect(await seriousA11yViolations(page)).toEqual([])
    await dialog.getByText('I am not a robot').click()
    await dialog.getByText('Verified').waitFor({ timeout: 30_000 })
    await page.screenshot({ path: path.join(screenshotDir, 'links-contact.png') })
    await dialog.getByRole('button', { name: 'Send message' }).click()
    await page.getByText('Thank you! Your message has been sent. We will answer by e-mail.').waitFor()
    await dialog.waitFor({ state: 'hidden' })
    await page.screenshot({ path: path.join(screenshotDir, 'links-contact-sent.png') })

    const mail = await smtp.waitForMail(OPERATOR)
    expect(mail.subject).toBe('Contact form: Ada Reader')
    expect(mail.text).toContain('Hello from the browser test: please list my site.')
    expect(mail.raw).toMatch(/^Reply-To: .*ada@example\.test/m)

    // The footer's "Contact Us" opens the form at once; Escape closes it.
    await page.goto(`${server.url}/links#contact`)
    await page.waitForFunction(HYDRATED)
    await dialog.waitFor()
    await page.keyboard.press('Escape')
    await dialog.waitFor({ state: 'hidden' })
    expect(page.errors).toEqual([])
    await page.context().close()
  })

  it('shows the privacy policy with every section reachable from its contents', async () => {
    const page = await open('en')
    const response = await page.goto(`${server.url}/privacy-policy`)
    expect(response?.status()).toBe(200)
    await page.waitForFunction(HYDRATED)
    await page.getByRole('heading', { level: 1, name: 'Privacy Policy' }).waitFor()
    await page.getByText('Last updated: November 21, 2026').waitFor()
    const toc = page.getByRole('navigation', { name: 'On this page' }).getByRole('link')
    expect(await toc.count()).toBeGreaterThanOrEqual(15)
    for (const href of await toc.evaluateAll((links) => links.map((a) => a.getAttribute('href') ?? ''))) {
      expect(await page.locator(`h2[id="${href.slice(1)}"]`).count(), href).toBe(1)
    }
    for (const fact of ['argon2id', 'Stripe', 'BTCPay Server', '365 days', 'local storage', 'IP address']) {
      expect(await page.getByText(fact).count(), fact).toBeGreaterThan(0)
    }
    expect(await seriousA11yViolations(page)).toEqual([])
    await page.screenshot({ path: path.join(screenshotDir, 'privacy-policy.png'), fullPage: true })

    const phone = await open('en', 360, 740)
    await phone.goto(`${server.url}/privacy-policy`)
    expect(await overflow(phone)).toBeLessThanOrEqual(0)
    await phone.screenshot({ path: path.join(screenshotDir, 'privacy-policy-360.png') })
    expect(page.errors).toEqual([])
    await page.context().close()
    await phone.context().close()
  })

  it('keeps the blog and the article readable on a phone', async () => {
    const page = await open('en', 360, 740)
    await page.goto(`${server.url}/blog/${translated}`)
    await page.waitForFunction(HYDRATED)
    expect(await overflow(page)).toBeLessThanOrEqual(0)
    await page.screenshot({ path: path.join(screenshotDir, 'blog-article-360.png') })
    await page.goto(`${server.url}/blog`)
    expect(await overflow(page)).toBeLessThanOrEqual(0)
    await page.screenshot({ path: path.join(screenshotDir, 'blog-list-360.png') })
    await page.context().close()
  })
})
