import { Link, type LinkProps, useLocation } from 'react-router'
import { localizePath, splitLocalePath } from '#contracts/locales.ts'

/** Returns a function that prefixes an app path with the current page's locale. */
export function useLocalizePath() {
  const { pathname } = useLocation()
  const { locale } = splitLocalePath(pathname)
  return (path: string) => localizePath(locale, path)
}

/** A link to an app path (`/characters`) in the language of the current page. */
export function LocalizedLink({ to, ...props }: Omit<LinkProps, 'to'> & { to: string }) {
  const localize = useLocalizePath()
  return <Link to={localize(to)} {...props} />
}
