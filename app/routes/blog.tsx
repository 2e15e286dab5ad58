import { Loader2 } from 'lucide-react'
import { redirect, useNavigation } from 'react-router'
import { ListErrorBoundary } from '#app/components/list-error-boundary.tsx'
import { LocalizedLink } from '#app/components/localized-link.tsx'
import { PageMeta } from '#app/components/page-meta.tsx'
import { ArticleCard } from '#app/features/blog/components/article-card.tsx'
import { Pagination } from '#app/features/catalogue/components/pagination.tsx'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { appLoadContext } from '#app/lib/load-context.ts'
import { routeLocale } from '#app/lib/route-locale.ts'
import { BLOG_PAGE_SIZE_DEFAULT } from '#contracts/blog.ts'
import { blogListQuery } from '#contracts/blog-schemas.ts'
import { localizePath } from '#contracts/locales.ts'
import type { Route } from './+types/blog.ts'

// The pagination control's words live with the catalogue's.
export const handle = { i18n: ['blog', 'catalogue'] }

export function loader({ request, params, context }: Route.LoaderArgs) {
  const { blog } = context.get(appLoadContext)
  const locale = routeLocale(params)
  const listPath = localizePath(locale, '/blog')
  const parsed = blogListQuery.safeParse({ page: new URL(request.url).searchParams.get('page') ?? undefined })
  // A hand-edited URL with nonsense in it lands on the first page rather than an error.
  if (!parsed.success) throw redirect(listPath)
  const list = blog.listArticles({ page: parsed.data.page, pageSize: BLOG_PAGE_SIZE_DEFAULT }, locale)
  if (!list) {
    const last = blog.listArticles({ page: 1, pageSize: BLOG_PAGE_SIZE_DEFAULT }, locale)?.totalPages ?? 1
    throw redirect(last > 1 ? `${listPath}?page=${last}` : listPath)
  }
  return { list }
}

/** `/blog`: the articles, newest first, a page at a time. */
export default function Blog({ loaderData, params }: Route.ComponentProps) {
  const { t } = useTranslation('blog')
  const { list } = loaderData
  const locale = routeLocale(params)
  const listPath = localizePath(locale, '/blog')
  const navigation = useNavigation()
  const loading = navigation.state === 'loading' && navigation.location.pathname === listPath
  const pageHref = (page: number) => (page > 1 ? `${listPath}?page=${page}` : listPath)

  return (
    <>
      <PageMeta title={t('list.metaTitle')} description={t('list.metaDescription')} />
      <header className="max-w-3xl">
        <h1 className="text-3xl font-bold sm:text-4xl">{t('list.title')}</h1>
        <p className="mt-3 text-lg text-zinc-300">{t('list.subtitle')}</p>
        <p className="mt-1 text-sm text-zinc-400">{t('list.count', { count: list.total })}</p>
      </header>
      <section className="relative mt-8" aria-busy={loading}>
        {loading ? (
          <p
            role="status"
            className="absolute inset-x-0 top-4 z-10 mx-auto flex w-fit items-center gap-2 rounded-full bg-zinc-800 px-4 py-2 text-sm shadow-xl"
          >
            <Loader2 aria-hidden="true" className="size-4 animate-spin" />
            {t('list.loading')}
          </p>
        ) : null}
        <div className={loading ? 'opacity-50 transition-opacity' : undefined}>
          {list.items.length === 0 ? (
            <div className="rounded-2xl border border-dashed border-zinc-700 p-10 text-center">
              <p className="text-lg font-semibold">{t('list.empty')}</p>
              <p className="mt-1 text-sm text-zinc-400">{t('list.emptyHint')}</p>
              <LocalizedLink to="/characters" className="button-secondary mt-6">
                {t('list.browseCharacters')}
              </LocalizedLink>
            </div>
          ) : (
            <ul aria-label={t('list.title')} className="grid gap-6 sm:grid-cols-2 xl:grid-cols-3">
              {list.items.map((article, index) => (
                <ArticleCard
                  key={article.slug}
                  article={article}
                  href={localizePath(locale, `/blog/${article.slug}`)}
                  locale={locale}
                  eager={index < 3}
                />
              ))}
            </ul>
          )}
        </div>
      </section>
      <Pagination page={list.page} totalPages={list.totalPages} hrefFor={pageHref} action={listPath} hidden={[]} />
    </>
  )
}

/** A failed load keeps the page and offers Retry (app/components/route-error-boundary.tsx). */
export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return <ListErrorBoundary error={error} retryIn="blog" />
}
