import { Languages } from 'lucide-react'
import { useLocation } from 'react-router'
import { Redirecting, useFullPageRedirect } from '#app/components/redirecting.tsx'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { getAccessToken } from '#app/lib/session.ts'
import {
  LOCALE_COOKIE,
  LOCALE_COOKIE_MAX_AGE_SECONDS,
  LOCALE_NAMES,
  LOCALE_TAGS,
  LOCALES,
  type Locale,
  localizePath,
  splitLocalePath,
} from '#contracts/locales.ts'
import { sameOriginPath } from '#contracts/redirects.ts'

/**
 * The same page in another language. The path comes from the address bar, so `/fr//evil.example`
 * would otherwise link to `//evil.example` (another site): anything that is not a path of this
 * site links to that language's home page instead.
 */
export function localeSwitchHref(locale: Locale, pathname: string, search = '', hash = ''): string {
  const { rest } = splitLocalePath(pathname)
  const home = localizePath(locale, '/')
  if (sameOriginPath(rest) === null) return home
  return sameOriginPath(localizePath(locale, rest) + search + hash) ?? home
}

/**
 * 'Select Language': every language named in itself. Choosing one stores it in the language cookie
 * (it then wins over the browser's language), for a signed-in person also as the language of their
 * mails, and loads the same page in that language.
 * Plain links, so crawlers find every translation and it works before the JavaScript loads.
 */
export function LanguageSwitcher() {
  const { t } = useTranslation()
  const { pathname, search, hash } = useLocation()
  const { locale: current } = splitLocalePath(pathname)
  const { redirecting, redirect } = useFullPageRedirect()
  // A full page load, so the new language is right from the server's first byte (lang, dir, text).
  const choose = (event: React.MouseEvent<HTMLAnchorElement>, locale: Locale) => {
    // biome-ignore lint/suspicious/noDocumentCookie: a plain preference cookie the server also reads.
    document.cookie = `${LOCALE_COOKIE}=${locale}; Max-Age=${LOCALE_COOKIE_MAX_AGE_SECONDS}; Path=/; SameSite=Lax`
    event.preventDefault()
    // A signed-in person's mails follow the choice: saved before leaving, which would cancel the call.
    // A failure leaves them as they were until the next signed-in page load (/userInfo reads the cookie).
    // The API client is fetched only then: it is not part of the first load (see signed-in-lazy.tsx).
    const saved = getAccessToken()
      ? import('#app/features/accounts/api/accounts.ts').then((accounts) => accounts.saveLocale(locale))
      : undefined
    void redirect(event.currentTarget.href, saved)
  }
  return (
    <details className="language-switcher group relative">
      <summary className="nav-item cursor-pointer list-none" data-testid="language-switcher">
        <Languages aria-hidden="true" className="size-5 shrink-0" />
        <span>{t('language.select')}</span>
        <span className="ms-auto text-xs text-zinc-400" lang={LOCALE_TAGS[current]}>
          {LOCALE_NAMES[current]}
        </span>
      </summary>
      <ul className="absolute bottom-full start-0 mb-2 max-h-80 w-full overflow-y-auto rounded-lg border border-zinc-800 bg-zinc-900 p-1 shadow-xl">
        {LOCALES.map((locale) => (
          <li key={locale}>
            <a
              href={localeSwitchHref(locale, pathname, search, hash)}
              lang={LOCALE_TAGS[locale]}
              hrefLang={LOCALE_TAGS[locale]}
              aria-current={locale === current ? 'true' : undefined}
              className="block rounded px-3 py-1.5 text-sm hover:bg-zinc-800 aria-[current]:text-violet-300"
              onClick={(event) => choose(event, locale)}
            >
              {LOCALE_NAMES[locale]}
            </a>
          </li>
        ))}
      </ul>
      {redirecting ? <Redirecting /> : null}
    </details>
  )
}
