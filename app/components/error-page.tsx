import { LocalizedLink } from '#app/components/localized-link.tsx'
import { PageMeta } from '#app/components/page-meta.tsx'
import { useTranslation } from '#app/lib/i18n-react.tsx'

/** The 404 and 500 pages, inside the normal shell so the user can carry on. */
export function ErrorPage({ kind, path }: { kind: 'not-found' | 'server'; path: string }) {
  const { t } = useTranslation()
  const title = kind === 'not-found' ? t('errors.notFoundTitle') : t('errors.serverTitle')
  return (
    <section className="mx-auto max-w-xl py-16 text-center" data-testid={`error-${kind}`}>
      <PageMeta title={title} description={title} />
      <meta name="robots" content="noindex" />
      <p className="text-6xl font-bold text-violet-300">{kind === 'not-found' ? '404' : '500'}</p>
      <h1 className="mt-4 text-2xl font-semibold">{title}</h1>
      <p className="mt-2 break-words text-zinc-400">
        {kind === 'not-found' ? t('errors.notFound', { path }) : t('errors.server')}
      </p>
      <LocalizedLink to="/" className="button-primary mt-8">
        {t('errors.backHome')}
      </LocalizedLink>
    </section>
  )
}
