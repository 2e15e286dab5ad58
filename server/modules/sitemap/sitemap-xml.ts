// XML of the sitemaps protocol (https://www.sitemaps.org/protocol.html) with Google's hreflang
// alternates (`xhtml:link`). Validated in tests against the published schemas
// (tests/fixtures/sitemaps/*.xsd).

/** Limits of one sitemap file: 50,000 URLs and 50 MiB uncompressed. */
export const SITEMAP_MAX_URLS = 50_000
export const SITEMAP_MAX_BYTES = 52_428_800

export type SitemapAlternate = { hreflang: string; href: string }
export type SitemapUrl = { loc: string; lastmod: string | null; alternates: SitemapAlternate[] }
export type SitemapRef = { loc: string; lastmod: string | null }

const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' }

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => XML_ESCAPES[c] ?? c)
}

/**
 * A path segment percent-encoded by RFC 3986's unreserved set: `encodeURIComponent` also leaves
 * `!'()*` alone, and `'` would need escaping in XML. At most three bytes per byte of the input.
 */
export function encodePathSegment(segment: string): string {
  return encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
}

const HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n'
const URLSET_OPEN =
  '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">\n'
const URLSET_CLOSE = '</urlset>\n'

function urlXml(url: SitemapUrl): string {
  const parts = [`<url><loc>${escapeXml(url.loc)}</loc>`]
  if (url.lastmod) parts.push(`<lastmod>${escapeXml(url.lastmod)}</lastmod>`)
  for (const alternate of url.alternates) {
    parts.push(
      `<xhtml:link rel="alternate" hreflang="${escapeXml(alternate.hreflang)}" href="${escapeXml(alternate.href)}"/>`,
    )
  }
  parts.push('</url>\n')
  return parts.join('')
}

export function urlSetXml(urls: SitemapUrl[]): string {
  return HEAD + URLSET_OPEN + urls.map(urlXml).join('') + URLSET_CLOSE
}

export function sitemapIndexXml(sitemaps: SitemapRef[]): string {
  const entries = sitemaps.map(
    (s) =>
      `<sitemap><loc>${escapeXml(s.loc)}</loc>${s.lastmod ? `<lastmod>${escapeXml(s.lastmod)}</lastmod>` : ''}</sitemap>\n`,
  )
  return `${HEAD}<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${entries.join('')}</sitemapindex>\n`
}

/**
 * The most bytes one `<url>` can take when its path (after percent-encoding) is at most
 * `pathBytes` long, with `alternates` links: used to cut sitemaps before 50 MiB without building
 * them first.
 */
export function urlBytesBound(origin: string, pathBytes: number, alternates: number): number {
  const href = Buffer.byteLength(escapeXml(origin)) + '/zh-cn'.length + pathBytes
  const lastmod = '2000-01-01T00:00:00.000Z'.length
  const url = '<url><loc></loc><lastmod></lastmod></url>\n'.length + href + lastmod
  const link = '<xhtml:link rel="alternate" hreflang="x-default" href=""/>'.length + href
  return url + alternates * link
}

/** How many URLs go in one sitemap file: 50,000, or fewer when they could pass 50 MiB. */
export function urlsPerSitemap(origin: string, longestPathBytes: number, alternates: number): number {
  const room = SITEMAP_MAX_BYTES - (HEAD + URLSET_OPEN + URLSET_CLOSE).length
  return Math.max(1, Math.min(SITEMAP_MAX_URLS, Math.floor(room / urlBytesBound(origin, longestPathBytes, alternates))))
}
