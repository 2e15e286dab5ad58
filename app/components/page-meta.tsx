import { useLocation, useRouteLoaderData } from 'react-router'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { LOCALE_TAGS, LOCALES, type Locale, localizePath, splitLocalePath } from '#contracts/locales.ts'

type RootData = { origin: string }

/** An image for link previews; `url` is a path of this site. */
export type PageImage = { url: string; alt: string; width?: number; height?: number }

/** OpenGraph wants `language_TERRITORY`: each locale's usual territory (Facebook's `ar_AR` for Arabic). */
const OG_LOCALES: Record<Locale, string> = {
  en: 'en_US',
  'zh-cn': 'zh_CN',
  'zh-tw': 'zh_TW',
  es: 'es_ES',
  fr: 'fr_FR',
  de: 'de_DE',
  ja: 'ja_JP',
  ko: 'ko_KR',
  ru: 'ru_RU',
  pt: 'pt_BR',
  ar: 'ar_AR',
  it: 'it_IT',
  hi: 'hi_IN',
  th: 'th_TH',
  vi: 'vi_VN',
  id: 'id_ID',
  ms: 'ms_MY',
  nl: 'nl_NL',
  sv: 'sv_SE',
  pl: 'pl_PL',
  tr: 'tr_TR',
}

/** Shown in link previews of pages without an image of their own. */
const SITE_IMAGE: PageImage = { url: '/icon-512.png', alt: '', width: 512, height: 512 }

/**
 * Title, description, canonical URL, the hreflang alternates of a page, and its OpenGraph and
 * Twitter card (React hoists these into `<head>`). Every page renders one. `locales` narrows the
 * alternates to the languages the page is really written in (an article that is not translated
 * everywhere, a character with texts in a few languages). `canonicalLocale`: the page's main
 * content is that locale's (a character shown in its source language on another locale's page),
 * so that locale's URL is the canonical one.
 */
export function PageMeta({
  title,
  description,
  image,
  type = 'website',
  locales = LOCALES,
  canonicalLocale,
}: {
  title: string
  description: string
  image?: PageImage
  type?: 'website' | 'article' | 'profile'
  locales?: readonly Locale[]
  canonicalLocale?: Locale
}) {
  const { t } = useTranslation()
  const root = useRouteLoaderData('root') as RootData | undefined
  const { pathname } = useLocation()
  const { locale, rest } = splitLocalePath(pathname)
  const origin = root?.origin ?? ''
  const fullTitle = `${title} | ${t('brand')}`
  const canonical = origin + localizePath(canonicalLocale ?? locale, rest)
  const picture = image ?? SITE_IMAGE
  // A large card needs a wide picture (a cover); square ones (avatars, the site icon) make a small one.
  const wide = (picture.width ?? 0) >= 1.5 * (picture.height ?? Number.POSITIVE_INFINITY)
  const card = wide ? 'summary_large_image' : 'summary'
  return (
    <>
      <title>{fullTitle}</title>
      <meta name="description" content={description} />
      <link rel="canonical" href={canonical} />
      {locales.map((l) => (
        <link key={l} rel="alternate" hrefLang={LOCALE_TAGS[l]} href={origin + localizePath(l, rest)} />
      ))}
      {locales.includes('en') ? <link rel="alternate" hrefLang="x-default" href={origin + rest} /> : null}
      <meta property="og:type" content={type} />
      <meta property="og:site_name" content={t('brand')} />
      <meta property="og:title" content={fullTitle} />
      <meta property="og:description" content={description} />
      <meta property="og:url" content={canonical} />
      <meta property="og:locale" content={OG_LOCALES[locale]} />
      <meta property="og:image" content={origin + picture.url} />
      {picture.alt ? <meta property="og:image:alt" content={picture.alt} /> : null}
      {picture.width ? <meta property="og:image:width" content={String(picture.width)} /> : null}
      {picture.height ? <meta property="og:image:height" content={String(picture.height)} /> : null}
      <meta name="twitter:card" content={card} />
      <meta name="twitter:title" content={fullTitle} />
      <meta name="twitter:description" content={description} />
      <meta name="twitter:image" content={origin + picture.url} />
      {picture.alt ? <meta name="twitter:image:alt" content={picture.alt} /> : null}
    </>
  )
}
