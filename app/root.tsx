import { type ReactNode, useEffect } from 'react'
import { Links, Meta, Outlet, ScrollRestoration, type ShouldRevalidateFunctionArgs, useLocation } from 'react-router'
import { DeferredScripts } from '#app/components/deferred-scripts.tsx'
import { AppShell } from '#app/components/layout/app-shell.tsx'
import { Notifications } from '#app/components/notifications.tsx'
import { RouteErrorBoundary } from '#app/components/route-error-boundary.tsx'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { appLoadContext } from '#app/lib/load-context.ts'
import { useNonce } from '#app/lib/nonce.tsx'
import { useFullReloadOnNewBuild } from '#app/lib/use-full-reload-on-new-build.ts'
import { useUserInfoAfterNavigation } from '#app/lib/user-info.ts'
import { directionOf, LOCALE_TAGS, splitLocalePath } from '#contracts/locales.ts'
import type { Route } from './+types/root.ts'
import stylesheet from './app.css?url'

export const links: Route.LinksFunction = () => [
  { rel: 'stylesheet', href: stylesheet },
  // The .ico for browsers without SVG icons; the others take the SVG.
  { rel: 'icon', href: '/favicon.ico', sizes: '48x48' },
  { rel: 'icon', href: '/favicon.svg', type: 'image/svg+xml' },
  { rel: 'apple-touch-icon', href: '/apple-touch-icon.png' },
  { rel: 'manifest', href: '/manifest.webmanifest' },
]

export function loader({ request, context }: Route.LoaderArgs) {
  // The request URL is built from PUBLIC_URL by the server, so this is the public origin.
  const { viewer, features } = context.get(appLoadContext)
  return { origin: new URL(request.url).origin, adultConfirmed: viewer.adultConfirmed, features }
}

/**
 * The root's data (origin, age confirmation) only changes through an explicit revalidation of the
 * same URL (after confirming or hiding adult content); plain navigations leave it alone, so a page's
 * failed load stays that page's error.
 */
export function shouldRevalidate({ currentUrl, nextUrl, defaultShouldRevalidate }: ShouldRevalidateFunctionArgs) {
  return currentUrl.href === nextUrl.href ? defaultShouldRevalidate : false
}

export function Layout({ children }: { children: ReactNode }) {
  const { pathname } = useLocation()
  const { locale } = splitLocalePath(pathname)
  const nonce = useNonce()
  const { i18n } = useTranslation()
  const handoff = handoffScript(locale, i18n.store.data[locale] ?? {})
  useFullReloadOnNewBuild()
  useUserInfoAfterNavigation()
  // Set once React has committed the hydrated page (effects run only then): from here on a click
  // reaches React's handlers. Browser tests wait for it; `hydrateRoot` alone marks too early.
  useEffect(() => {
    document.documentElement.dataset.hydrated = 'true'
  }, [])
  return (
    <html lang={LOCALE_TAGS[locale]} dir={directionOf(locale)} className="dark">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="dark" />
        <meta name="theme-color" content="#09090b" />
        <Meta />
        {/* No nonce: style-src allows 'self', and the browser hides a nonce from the DOM, so a
            nonce'd link would not match on hydration (React logged an error on every page). */}
        <Links />
        <script
          nonce={nonce}
          suppressHydrationWarning
          // biome-ignore lint/security/noDangerouslySetInnerHtml: JSON with `<` escaped, nonce'd.
          dangerouslySetInnerHTML={{ __html: handoff }}
        />
      </head>
      <body>
        {children}
        <Notifications />
        <ScrollRestoration nonce={nonce} />
        <DeferredScripts nonce={nonce} />
      </body>
    </html>
  )
}

/**
 * The `window.__I18N__` script: the page's locale and namespaces. On the server each i18next
 * instance is shared by every render of its locale and namespaces and never changes, so its text
 * is built once per instance; in the browser the store grows as pages load namespaces.
 */
const handoffs = new WeakMap<object, string>()
function handoffScript(locale: string, resources: object): string {
  const server = typeof document === 'undefined'
  const known = server ? handoffs.get(resources) : undefined
  if (known !== undefined) return known
  const script = `window.__I18N__=${safeJson({ locale, resources })}`
  if (server) handoffs.set(resources, script)
  return script
}

function safeJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')
}

export default function App() {
  return (
    <AppShell>
      <Outlet />
    </AppShell>
  )
}

/** Every route's errors end here unless the route words them itself (list pages, with Retry). */
export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return (
    <AppShell>
      <RouteErrorBoundary error={error} />
    </AppShell>
  )
}
