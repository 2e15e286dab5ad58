import { useTranslation } from 'react-i18next'
import { useLocation, useRouteLoaderData } from 'react-router'
import { LOCALE_TAGS, LOCALES, localizePath, splitLocalePath } from '#contracts/locales.ts'

type RootData = { origin: string }

/**
 * Title, description, canonical URL and the hreflang alternates of a page (React hoists these into
 * `<head>`). Every page renders one.
 */
export function PageMeta({ title, description }: { title: string; description: string }) {
  const { t } = useTranslation()
  const root = useRouteLoaderData('root') as RootData | undefined
  const { pathname } = useLocation()
  const { locale, rest } = splitLocalePath(pathname)
  const origin = root?.origin ?? ''
  const fullTitle = `${title} | ${t('brand')}`
  return (
    <>
      <title>{fullTitle}</title>
      <meta name="description" content={description} />
      <meta property="og:title" content={fullTitle} />
      <meta property="og:description" content={description} />
      <link rel="canonical" href={origin + localizePath(locale, rest)} />
      {LOCALES.map((l) => (
        <link key={l} rel="alternate" hrefLang={LOCALE_TAGS[l]} href={origin + localizePath(l, rest)} />
      ))}
      <link rel="alternate" hrefLang="x-default" href={origin + rest} />
    </>
  )
}
