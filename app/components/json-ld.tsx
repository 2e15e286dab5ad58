import { useLocation, useRouteLoaderData } from 'react-router'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { useNonce } from '#app/lib/nonce.tsx'
import { LOCALE_TAGS, localizePath, splitLocalePath } from '#contracts/locales.ts'

/**
 * Structured data for search engines (schema.org as JSON-LD). The script carries the page's CSP
 * nonce like every other, and `<` is escaped so no text in the data can close it.
 */
export function JsonLd({ data }: { data: Record<string, unknown> }) {
  const nonce = useNonce()
  return (
    <script
      type="application/ld+json"
      nonce={nonce}
      suppressHydrationWarning
      // biome-ignore lint/security/noDangerouslySetInnerHtml: JSON with `<` escaped, nonce'd.
      dangerouslySetInnerHTML={{
        __html: JSON.stringify({ '@context': 'https://schema.org', ...data }).replace(/</g, '\\u003c'),
      }}
    />
  )
}

/**
 * The site itself for the home page: the organization behind it, and the site with its character
 * search (a search box in results, `/characters?q=...`).
 */
export function SiteJsonLd() {
  const { t } = useTranslation()
  const root = useRouteLoaderData('root') as { origin: string } | undefined
  const { pathname } = useLocation()
  const { locale } = splitLocalePath(pathname)
  const origin = root?.origin ?? ''
  const organization = `${origin}/#organization`
  return (
    <JsonLd
      data={{
        '@graph': [
          {
            '@type': 'Organization',
            '@id': organization,
            name: t('brand'),
            url: `${origin}/`,
            logo: `${origin}/icon-512.png`,
          },
          {
            '@type': 'WebSite',
            '@id': `${origin}/#website`,
            name: t('brand'),
            url: origin + localizePath(locale, '/'),
            inLanguage: LOCALE_TAGS[locale],
            publisher: { '@id': organization },
            potentialAction: {
              '@type': 'SearchAction',
              target: {
                '@type': 'EntryPoint',
                urlTemplate: `${origin}${localizePath(locale, '/characters')}?q={search_term_string}`,
              },
              'query-input': 'required name=search_term_string',
            },
          },
        ],
      }}
    />
  )
}
