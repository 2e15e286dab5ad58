import { Loader2 } from 'lucide-react'
import { Link, redirect, useNavigation } from 'react-router'
import { ListErrorBoundary } from '#app/components/list-error-boundary.tsx'
import { PageMeta } from '#app/components/page-meta.tsx'
import { Pagination } from '#app/features/catalogue/components/pagination.tsx'
import { RoleCard, RoleGrid } from '#app/features/catalogue/components/role-card.tsx'
import { TagFilter } from '#app/features/catalogue/components/tag-filter.tsx'
import { type ListState, listSearch } from '#app/features/catalogue/list-url.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { appLoadContext } from '#app/lib/load-context.ts'
import { routeLocale } from '#app/lib/route-locale.ts'
import { isServiceError } from '#app/lib/service-error.server.ts'
import { ROLE_SORTS } from '#contracts/catalogue.ts'
import { roleListQuery } from '#contracts/catalogue-schemas.ts'
import { localizePath } from '#contracts/locales.ts'
import type { Route } from './+types/characters.ts'

export const handle = { i18n: ['catalogue'] }

export async function loader({ request, params, context }: Route.LoaderArgs) {
  const { catalogue, viewer } = context.get(appLoadContext)
  const locale = routeLocale(params)
  const url = new URL(request.url)
  const listPath = localizePath(locale, '/characters')
  const parsed = roleListQuery.safeParse({
    page: url.searchParams.get('page') ?? undefined,
    sort: url.searchParams.get('sort') ?? undefined,
    tags: url.searchParams.getAll('tags'),
    q: url.searchParams.get('q') ?? undefined,
  })
  // A hand-edited URL with nonsense in it lands on the plain list rather than an error.
  if (!parsed.success) throw redirect(listPath)
  const state: ListState = {
    sort: parsed.data.sort,
    tags: parsed.data.tags,
    q: parsed.data.q ?? '',
    page: parsed.data.page,
  }
  try {
    const [list, tags] = await Promise.all([
      catalogue.listRoles(parsed.data, viewer, locale),
      catalogue.listTags(locale),
    ])
    return { list, tags, state }
  } catch (error) {
    const problem = isServiceError(error, 'VALIDATION_ERROR') ? error.details?.[0] : undefined
    if (problem?.path === 'page') {
      throw redirect(listPath + listSearch({ ...state, page: Math.max(problem.lastPage ?? 1, 1) }))
    }
    if (problem?.path === 'tags') {
      throw redirect(listPath + listSearch({ ...state, tags: [], page: 1 }))
    }
    throw error
  }
}

export default function Characters({ loaderData, params }: Route.ComponentProps) {
  const { t } = useTranslation('catalogue')
  const { list, tags, state } = loaderData
  const locale = routeLocale(params)
  const listPath = localizePath(locale, '/characters')
  const navigation = useNavigation()
  const loading = navigation.state === 'loading' && navigation.location.pathname === listPath
  const href = (change: Partial<ListState>) => listPath + listSearch({ ...state, page: 1, ...change })
  const hiddenExcept = (omit: keyof ListState): [string, string][] => {
    const fields: [string, string][] = []
    if (omit !== 'sort' && state.sort !== 'popularity') fields.push(['sort', state.sort])
    if (omit !== 'q' && state.q) fields.push(['q', state.q])
    if (omit !== 'tags') for (const tag of state.tags) fields.push(['tags', tag])
    return fields
  }

  return (
    <>
      <PageMeta
        title={state.q ? t('list.searchResults', { query: state.q }) : t('list.metaTitle')}
        description={t('list.metaDescription')}
      />
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-2xl font-bold sm:text-3xl">
            {state.q ? t('list.searchResults', { query: state.q }) : t('list.title')}
          </h1>
          <p className="mt-1 text-sm text-zinc-400" aria-live="polite">
            {t('list.count', { count: list.total })}
          </p>
        </div>
        <nav aria-label={t('list.sortLabel')} className="flex gap-1 rounded-full bg-zinc-900 p-1">
          {ROLE_SORTS.map((sort) => (
            <Link
              key={sort}
              to={href({ sort })}
              aria-current={state.sort === sort ? 'page' : undefined}
              className="rounded-full px-3 py-1.5 text-sm text-zinc-300 hover:text-white aria-[current=page]:bg-violet-600 aria-[current=page]:text-white"
            >
              {t(`list.sort.${sort}`)}
            </Link>
          ))}
        </nav>
      </div>
      <div className="mt-4">
        <TagFilter
          tags={tags}
          selected={state.tags}
          action={listPath}
          hidden={hiddenExcept('tags')}
          hrefWithout={(slug) => href({ tags: state.tags.filter((s) => s !== slug) })}
          clearHref={href({ tags: [] })}
        />
      </div>
      <section className="relative mt-6" aria-busy={loading}>
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
            </div>
          ) : (
            <RoleGrid label={t('list.title')}>
              {list.items.map((role, index) => (
                <RoleCard
                  key={role.roleId}
                  role={role}
                  href={localizePath(locale, `/characters/${role.roleId}`)}
                  eager={index < 4}
                  headingLevel={2}
                />
              ))}
            </RoleGrid>
          )}
        </div>
      </section>
      <Pagination
        page={list.page}
        totalPages={list.totalPages}
        hrefFor={(page) => listPath + listSearch({ ...state, page })}
        action={listPath}
        hidden={hiddenExcept('page')}
      />
    </>
  )
}

/** A failed load keeps the page and offers Retry (app/components/route-error-boundary.tsx). */
export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return <ListErrorBoundary error={error} retryIn="catalogue" />
}
