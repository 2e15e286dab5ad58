import { statSync } from 'node:fs'
import { DEFAULT_LOCALE, LOCALE_TAGS, LOCALES, type Locale, localizePath } from '#contracts/locales.ts'
import { PRIVACY_POLICY_UPDATED } from '#contracts/site.ts'
import {
  encodePathSegment,
  type SitemapRef,
  type SitemapUrl,
  sitemapIndexXml,
  urlSetXml,
  urlsPerSitemap,
} from './sitemap-xml.ts'

/** What the sitemaps need from the catalogue and the blog. */
export type SitemapSources = {
  catalogue: {
    /** With `locale`: only the roles that have their own text in it. `locales`: those that have. */
    listSitemapRoles(
      offset: number,
      limit: number,
      locale?: Locale,
    ): Promise<{ publicId: string; updatedAt: Date; locales: Locale[] }[]>
    sitemapRoleStats(): Promise<{
      count: number
      perLocale: Record<string, number>
      longestId: number
      lastModified: Date | null
    }>
  }
  blog: {
    sitemapEntries(): { slug: string; path: string; lastmod: string; translations: Locale[] }[]
    lastModified(): string | null
  }
}

export type SitemapDeps = SitemapSources & {
  publicUrl: string
  /** Files whose content a page shows: their last change is the page's. */
  files: { plans: string; links: string }
  /** Tests lower it to see the split; the protocol's limit is 50,000. */
  maxUrlsPerSitemap?: number
}

/** A page of the site in every locale it exists in (`path` is the English one). */
export type SitemapPage = { path: string; lastmod: string | null; locales: readonly Locale[] }

/** Pages that exist for everyone and are worth finding; private and login pages are left out. */
const STATIC_PATHS = ['/', '/characters', '/blog', '/subscribe', '/links', '/privacy-policy'] as const

/** Paths crawlers are asked to leave alone (robots.txt), in every locale. */
export const PRIVATE_PATHS = [
  '/chat/',
  '/characters/edit/',
  '/characters/mine',
  '/characters/lorebooks',
  '/login',
  '/register',
  '/verify',
  '/forgot-password',
  '/reset-password',
  '/auth/',
  '/subscribe/success',
  '/subscribe/sandbox',
] as const

/** Role counts are cached briefly: crawlers fetch the index and then every file of it. */
const STATS_TTL_MS = 5 * 60_000

const latest = (...dates: (string | null | undefined)[]) =>
  dates
    .filter((d): d is string => Boolean(d))
    .sort()
    .at(-1) ?? null

function modifiedAt(file: string): string | null {
  try {
    return statSync(file).mtime.toISOString()
  } catch {
    return null
  }
}

/** `/fr/sitemap.xml` for the first file of a locale, `/fr/sitemap-2.xml` for the next ones. */
export function sitemapPath(locale: Locale, part: number): string {
  return part === 1 ? `/${locale}/sitemap.xml` : `/${locale}/sitemap-${part}.xml`
}

/**
 * The sitemaps: an index at `/sitemap.xml` pointing to one sitemap per locale (`/en/sitemap.xml`,
 * `/fr/sitemap.xml`, ...; split into `sitemap-2.xml`, ... past 50,000 URLs or 50 MiB). Each lists
 * the locale's URLs of the static pages, the articles written in it and the public characters for
 * everyone that have their own text in it (their source language, or a translation that is not
 * stale: ADR 039), each with its hreflang alternates (the same rule) and last change. A character
 * page in any other locale shows the source text inside a translated template: for Google a
 * duplicate of the source-language page, so it is not listed (docs/blog-and-seo.md).
 */
export function createSitemapService(deps: SitemapDeps) {
  const origin = new URL(deps.publicUrl).origin
  let stats: { at: number; value: Awaited<ReturnType<SitemapSources['catalogue']['sitemapRoleStats']>> } | null = null

  async function roleStats() {
    if (!stats || Date.now() - stats.at > STATS_TTL_MS) {
      stats = { at: Date.now(), value: await deps.catalogue.sitemapRoleStats() }
    }
    return stats.value
  }

  async function staticPages(): Promise<SitemapPage[]> {
    const roles = (await roleStats()).lastModified?.toISOString() ?? null
    const blog = deps.blog.lastModified()
    const lastmod: Record<(typeof STATIC_PATHS)[number], string | null> = {
      '/': latest(roles, blog),
      '/characters': roles,
      '/blog': blog,
      '/subscribe': modifiedAt(deps.files.plans),
      '/links': modifiedAt(deps.files.links),
      '/privacy-policy': PRIVACY_POLICY_UPDATED,
    }
    return STATIC_PATHS.map((path) => ({ path, lastmod: lastmod[path], locales: LOCALES }))
  }

  /** Articles are listed only in the locales they are written in; elsewhere they show English. */
  function blogPages(): SitemapPage[] {
    return deps.blog.sitemapEntries().map((entry) => ({
      path: entry.path,
      lastmod: entry.lastmod,
      locales: entry.translations,
    }))
  }

  const rolePath = (publicId: string) => `/characters/${encodePathSegment(publicId)}`

  async function layoutOf(locale: Locale) {
    const head = [...(await staticPages()), ...blogPages().filter((page) => page.locales.includes(locale))]
    const { perLocale, longestId, lastModified } = await roleStats()
    const count = perLocale[locale] ?? 0
    const longestPath = Math.max(...head.map((p) => Buffer.byteLength(p.path)), rolePath('').length + 3 * longestId)
    const perFile = Math.min(
      deps.maxUrlsPerSitemap ?? Number.POSITIVE_INFINITY,
      urlsPerSitemap(origin, longestPath, LOCALES.length + 1),
    )
    const total = head.length + count
    const files = Math.max(1, Math.ceil(total / perFile))
    const lastmod = latest(...head.map((p) => p.lastmod), lastModified?.toISOString())
    return { head, perFile, total, files, lastmod }
  }

  function urlOf(locale: Locale, page: SitemapPage): SitemapUrl {
    const alternates = page.locales.map((l) => ({
      hreflang: LOCALE_TAGS[l],
      href: origin + localizePath(l, page.path),
    }))
    // English has no prefix and stands for every other language.
    if (page.locales.includes(DEFAULT_LOCALE)) alternates.push({ hreflang: 'x-default', href: origin + page.path })
    return { loc: origin + localizePath(locale, page.path), lastmod: page.lastmod, alternates }
  }

  return {
    /** `/sitemap.xml`: every locale's sitemap files. */
    async indexXml(): Promise<string> {
      const refs: SitemapRef[] = []
      for (const locale of LOCALES) {
        const { files, lastmod } = await layoutOf(locale)
        for (let part = 1; part <= files; part++) refs.push({ loc: origin + sitemapPath(locale, part), lastmod })
      }
      return sitemapIndexXml(refs)
    },

    /** One sitemap file of a locale, or null past its last file. */
    async localeXml(locale: Locale, part: number): Promise<string | null> {
      const { head, perFile, total, files } = await layoutOf(locale)
      if (part < 1 || part > files) return null
      const start = (part - 1) * perFile
      const end = Math.min(total, part * perFile)
      const pages = head.slice(start, end)
      const roleStart = Math.max(0, start - head.length)
      const roleEnd = end - head.length
      if (roleEnd > roleStart) {
        for (const role of await deps.catalogue.listSitemapRoles(roleStart, roleEnd - roleStart, locale)) {
          pages.push({ path: rolePath(role.publicId), lastmod: role.updatedAt.toISOString(), locales: role.locales })
        }
      }
      return urlSetXml(pages.map((page) => urlOf(locale, page)))
    },

    /** `GET /api/sitemap/pages`: the static pages, then every public character for everyone. */
    async pages(page: number, pageSize: number) {
      const head = await staticPages()
      const { count } = await roleStats()
      const total = head.length + count
      const start = (page - 1) * pageSize
      const end = Math.min(total, start + pageSize)
      const items = head.slice(start, end).map(({ path, lastmod }) => ({ path, lastmod }))
      const roleStart = Math.max(0, start - head.length)
      if (end - head.length > roleStart) {
        for (const role of await deps.catalogue.listSitemapRoles(roleStart, end - head.length - roleStart)) {
          items.push({ path: rolePath(role.publicId), lastmod: role.updatedAt.toISOString() })
        }
      }
      return { items, page, pageSize, total, totalPages: Math.ceil(total / pageSize) }
    },

    /** `GET /api/sitemap/blogs`: every article with the locales it is written in. */
    blogs() {
      return { items: deps.blog.sitemapEntries() }
    },

    /** robots.txt: private paths in every locale, the API apart from images, and the sitemap index. */
    robotsTxt(): string {
      const lines = ['User-agent: *', 'Allow: /', 'Disallow: /api/', 'Allow: /api/public/images/']
      for (const locale of LOCALES) {
        for (const path of PRIVATE_PATHS) lines.push(`Disallow: ${localizePath(locale, path)}`)
      }
      return `${lines.join('\n')}\n\nSitemap: ${origin}/sitemap.xml\n`
    },
  }
}

export type SitemapService = ReturnType<typeof createSitemapService>
