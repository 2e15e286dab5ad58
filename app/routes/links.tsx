import { ExternalLink, Mail } from 'lucide-react'
import { useEffect, useState } from 'react'
import { useLocation, useNavigate } from 'react-router'
import { PageMeta } from '#app/components/page-meta.tsx'
import { HumanCheck } from '#app/features/accounts/components/human-check.tsx'
import { ContactDialog } from '#app/features/contact/components/contact-dialog.tsx'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { appLoadContext } from '#app/lib/load-context.ts'
import { routeLocale } from '#app/lib/route-locale.ts'
import { isLocale, LOCALE_TAGS } from '#contracts/locales.ts'
import type { Route } from './+types/links.ts'

// The human check's own words (label, verifying, verified) are the register form's.
export const handle = { i18n: ['legal', 'auth'] }

export function loader({ params, context }: Route.LoaderArgs) {
  return { links: context.get(appLoadContext).friendshipLinks.list(routeLocale(params)) }
}

/** `/links`: the friendship links of config/links.json and the contact form (`#contact` opens it). */
export default function Links({ loaderData, params }: Route.ComponentProps) {
  const { t } = useTranslation('legal')
  const locale = routeLocale(params)
  const { hash, pathname, search } = useLocation()
  const navigate = useNavigate()
  const [contactOpen, setContactOpen] = useState(false)

  // The footer's "Contact Us" links here with #contact: open the form straight away.
  useEffect(() => {
    if (hash === '#contact') setContactOpen(true)
  }, [hash])

  const closeContact = () => {
    setContactOpen(false)
    if (hash === '#contact') navigate(pathname + search, { replace: true, preventScrollReset: true })
  }

  return (
    <div className="mx-auto max-w-4xl">
      <PageMeta title={t('links.title')} description={t('links.metaDescription')} />
      <h1 className="text-3xl font-bold sm:text-4xl">{t('links.title')}</h1>
      <p className="mt-3 max-w-2xl text-lg text-zinc-300">{t('links.intro')}</p>

      {loaderData.links.length === 0 ? (
        <p className="mt-8 rounded-2xl border border-dashed border-zinc-700 p-8 text-center text-zinc-400">
          {t('links.empty')}
        </p>
      ) : (
        <ul aria-label={t('links.listLabel')} className="mt-8 grid gap-4 sm:grid-cols-2">
          {loaderData.links.map((link) => {
            const lang =
              link.descriptionLocale !== locale && isLocale(link.descriptionLocale)
                ? LOCALE_TAGS[link.descriptionLocale]
                : undefined
            return (
              <li
                key={link.url}
                className="relative rounded-2xl border border-zinc-800 bg-zinc-900 p-5 transition hover:border-violet-500/60"
              >
                <h2 className="font-semibold">
                  <a
                    href={link.url}
                    target="_blank"
                    rel="noopener"
                    className="inline-flex items-center gap-1.5 text-violet-300 after:absolute after:inset-0 hover:text-violet-200"
                  >
                    <bdi>{link.name}</bdi>
                    <ExternalLink aria-hidden="true" className="size-4" />
                    <span className="sr-only">{t('links.opensInNewTab')}</span>
                  </a>
                </h2>
                <p className="mt-2 text-sm text-zinc-300" lang={lang} dir={lang ? 'auto' : undefined}>
                  {link.description}
                </p>
                <p className="mt-2 truncate text-xs text-zinc-400" dir="ltr">
                  {link.url.replace(/^https?:\/\//, '').replace(/\/$/, '')}
                </p>
              </li>
            )
          })}
        </ul>
      )}

      <section
        id="contact"
        aria-labelledby="contact-title"
        className="mt-12 flex flex-col items-start gap-4 rounded-2xl bg-zinc-900 p-6 sm:flex-row sm:items-center sm:justify-between"
      >
        <div>
          <h2 id="contact-title" className="text-xl font-semibold">
            {t('links.contactTitle')}
          </h2>
          <p className="mt-1 max-w-xl text-zinc-300">{t('links.contactText')}</p>
        </div>
        <button
          type="button"
          className="button-primary shrink-0"
          onClick={() => setContactOpen(true)}
          aria-haspopup="dialog"
          data-testid="contact-open"
        >
          <Mail aria-hidden="true" className="size-5" />
          {t('links.contactButton')}
        </button>
      </section>

      <ContactDialog
        open={contactOpen}
        onClose={closeContact}
        locale={locale}
        humanCheck={(props) => <HumanCheck {...props} />}
      />
    </div>
  )
}
