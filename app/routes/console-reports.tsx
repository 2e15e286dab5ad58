import { useLocation, useSearchParams } from 'react-router'
import { Loading, Pager, ProblemRetry } from '#app/features/console/components/load-state.tsx'
import { useAdminData } from '#app/features/console/use-admin-data.ts'
import { OpenCharacter } from '#app/features/console-moderation/components/open-character.tsx'
import { QueueTable } from '#app/features/console-moderation/components/queue-table.tsx'
import { listQueue } from '#app/features/console-moderation/moderation-api.ts'
import { formatNumber } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { routeLocale } from '#app/lib/route-locale.ts'
import type { Route } from './+types/console-reports.ts'

export const handle = { i18n: ['console-moderation', 'characters-edit'] }

/** Console pages are one person's: never stored by a shared cache. */
export const headers = () => ({ 'Cache-Control': 'private, no-store' })

/**
 * `/console/reports` (moderators and admins, ADR 058): the characters with open reports, the most
 * reported first, a page at a time (`?page=`), and any character opened by its id. A report just
 * handled comes back here with its result (navigation state).
 */
export default function ConsoleReports({ params }: Route.ComponentProps) {
  const { t } = useTranslation('console-moderation')
  const locale = routeLocale(params)
  const [search, setSearch] = useSearchParams()
  const page = Math.max(1, Number.parseInt(search.get('page') ?? '1', 10) || 1)
  const done = (useLocation().state as { done?: string } | null)?.done
  const { data, problem, reload } = useAdminData((signal) => listQueue(page, signal), String(page))
  const goTo = (next: number) => setSearch(next === 1 ? {} : { page: String(next) })

  return (
    <section>
      <h1 className="mb-1 text-2xl font-bold">{t('queue.title')}</h1>
      <p className="mb-5 text-zinc-400">{t('queue.intro')}</p>
      {done ? (
        <p
          role="status"
          className="mb-5 rounded-xl border border-emerald-500/40 bg-emerald-950/40 p-3 text-emerald-200"
          data-testid="moderation-done"
        >
          {done}
        </p>
      ) : null}
      <OpenCharacter />
      <ProblemRetry problem={problem} retryLabel={t('retry')} onRetry={reload} />
      {!data ? (
        problem ? null : (
          <Loading label={t('loading')} />
        )
      ) : data.items.length === 0 && page === 1 ? (
        <p
          className="rounded-2xl border border-dashed border-zinc-700 p-8 text-center text-zinc-300"
          data-testid="queue-empty"
        >
          {t('queue.empty')}
        </p>
      ) : (
        <>
          <p className="mb-3 text-sm text-zinc-400" data-testid="queue-total">
            {t('queue.total', { total: formatNumber(locale, data.total) })}
          </p>
          <QueueTable locale={locale} items={data.items} />
          {page > 1 || data.hasMore ? (
            <Pager
              words={{
                label: t('paging.label'),
                previous: t('paging.previous'),
                next: t('paging.next'),
                current: t('paging.page', { page: formatNumber(locale, page) }),
              }}
              page={page}
              hasMore={data.hasMore}
              onPage={goTo}
            />
          ) : null}
        </>
      )}
    </section>
  )
}
