import { type FormEvent, useId, useState } from 'react'
import { ConsoleTable } from '#app/features/console/components/console-table.tsx'
import { useAdminData } from '#app/features/console/use-admin-data.ts'
import { formatDateTime, formatNumber } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { MONEY_PROVIDERS, WEBHOOK_OUTCOMES } from '#contracts/admin-money.ts'
import type { Locale } from '#contracts/locales.ts'
import { listWebhooks } from '../money-api.ts'
import { FilterSelect, ListState, PAGE_SIZE, Paging } from './shared.tsx'

type Filter = { provider: string; outcome: string; replays: boolean }
const NO_FILTER: Filter = { provider: '', outcome: '', replays: false }

/** The provider events received, newest first: what became of each, why one failed, its repeats. */
export function WebhooksTab({ locale }: { locale: Locale }) {
  const { t } = useTranslation('console-money')
  const id = useId()
  const [draft, setDraft] = useState<Filter>(NO_FILTER)
  const [filter, setFilter] = useState<Filter>(NO_FILTER)
  const [page, setPage] = useState(1)
  const { data, problem } = useAdminData(
    (signal) =>
      listWebhooks(
        {
          provider: filter.provider,
          outcome: filter.outcome,
          duplicatesOnly: filter.replays ? 'true' : undefined,
          page,
          pageSize: PAGE_SIZE,
        },
        signal,
      ),
    JSON.stringify([filter, page]),
  )
  const apply = (event: FormEvent) => {
    event.preventDefault()
    setPage(1)
    setFilter(draft)
  }

  return (
    <section aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} className="sr-only">
        {t('tabs.webhooks')}
      </h2>
      <form onSubmit={apply} aria-label={t('filters.label')} className="mb-4 grid gap-3 sm:grid-cols-3">
        <FilterSelect
          id={`${id}-provider`}
          label={t('filters.provider')}
          value={draft.provider}
          options={MONEY_PROVIDERS.map((p) => ({ value: p, label: p === 'sandbox' ? t('sandbox') : p }))}
          onChange={(provider) => setDraft({ ...draft, provider })}
        />
        <FilterSelect
          id={`${id}-outcome`}
          label={t('filters.outcome')}
          value={draft.outcome}
          options={WEBHOOK_OUTCOMES.map((o) => ({ value: o, label: t(`outcome.${o}`) }))}
          onChange={(outcome) => setDraft({ ...draft, outcome })}
        />
        <label className="flex items-center gap-2 self-end pb-2">
          <input
            type="checkbox"
            checked={draft.replays}
            onChange={(event) => setDraft({ ...draft, replays: event.target.checked })}
          />
          {t('filters.replaysOnly')}
        </label>
        <div className="flex gap-2 sm:col-span-3">
          <button type="submit" className="button-primary">
            {t('filters.apply')}
          </button>
          <button
            type="button"
            className="button-secondary"
            onClick={() => {
              setDraft(NO_FILTER)
              setFilter(NO_FILTER)
              setPage(1)
            }}
          >
            {t('filters.clear')}
          </button>
        </div>
      </form>
      <ListState loaded={data !== null} empty={data?.items.length === 0} problem={problem} />
      {data && data.items.length > 0 ? (
        <ConsoleTable
          caption={t('tabs.webhooks')}
          testId="money-webhooks"
          columns={[
            t('columns.received'),
            t('columns.provider'),
            t('columns.event'),
            t('columns.outcome'),
            t('columns.replays'),
          ]}
        >
          {data.items.map((event) => (
            <tr key={`${event.provider}:${event.eventId}`} className="border-t border-zinc-800 align-top">
              <td className="p-3 whitespace-nowrap">{formatDateTime(locale, event.receivedAt)}</td>
              <td className="p-3">{event.provider === 'sandbox' ? t('sandbox') : event.provider}</td>
              <td className="p-3">
                <span className="block font-mono">
                  <bdi dir="ltr">{event.type}</bdi>
                </span>
                <span className="block font-mono text-xs break-all text-zinc-400">
                  <bdi dir="ltr">{event.eventId}</bdi>
                </span>
              </td>
              <td className="p-3">
                <span className={event.outcome === 'failed' ? 'text-rose-300' : undefined}>
                  {t(`outcome.${event.outcome}`)}
                </span>
                {event.failure ? (
                  <span className="block text-xs text-zinc-400">
                    <bdi dir="ltr">{event.failure}</bdi>
                  </span>
                ) : null}
              </td>
              <td className="p-3 whitespace-nowrap">
                {formatNumber(locale, event.duplicates)}
                {event.lastReceivedAt ? (
                  <span className="block text-xs text-zinc-400">{formatDateTime(locale, event.lastReceivedAt)}</span>
                ) : null}
              </td>
            </tr>
          ))}
        </ConsoleTable>
      ) : null}
      {data ? <Paging locale={locale} page={page} hasMore={data.hasMore} onPage={setPage} /> : null}
    </section>
  )
}
