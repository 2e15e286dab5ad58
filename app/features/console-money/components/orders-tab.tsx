import { type FormEvent, useId, useState } from 'react'
import { useSearchParams } from 'react-router'
import { LocalizedLink } from '#app/components/localized-link.tsx'
import { ConsoleTable } from '#app/features/console/components/console-table.tsx'
import { fieldClass } from '#app/features/console/components/note-field.tsx'
import { useAdminData } from '#app/features/console/use-admin-data.ts'
import { formatDateTime, formatPrice } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { MONEY_PROVIDERS } from '#contracts/admin-money.ts'
import type { Locale } from '#contracts/locales.ts'
import { ORDER_STATUSES } from '#contracts/payments.ts'
import { listOrders } from '../money-api.ts'
import { FilterSelect, ListState, PAGE_SIZE, Paging, SandboxMark } from './shared.tsx'

type Filter = { provider: string; status: string; sandbox: string; userId: string }
const NO_FILTER: Filter = { provider: '', status: '', sandbox: '', userId: '' }

/**
 * The orders, newest first, filtered and paged; each links to its page (refunds). `?userId=` in the
 * address starts with one person's orders (the people console links here).
 */
export function OrdersTab({ locale }: { locale: Locale }) {
  const { t } = useTranslation('console-money')
  const id = useId()
  const [search] = useSearchParams()
  const [draft, setDraft] = useState<Filter>(() => ({ ...NO_FILTER, userId: search.get('userId') ?? '' }))
  const [filter, setFilter] = useState<Filter>(draft)
  const [page, setPage] = useState(1)
  const { data, problem } = useAdminData(
    (signal) => listOrders({ ...filter, userId: filter.userId.trim(), page, pageSize: PAGE_SIZE }, signal),
    JSON.stringify([filter, page]),
  )
  const providerLabel = (provider: string) => (provider === 'sandbox' ? t('sandbox') : provider)
  const apply = (event: FormEvent) => {
    event.preventDefault()
    setPage(1)
    setFilter(draft)
  }

  return (
    <section aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} className="sr-only">
        {t('tabs.orders')}
      </h2>
      <form onSubmit={apply} aria-label={t('filters.label')} className="mb-4 grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
        <FilterSelect
          id={`${id}-provider`}
          label={t('filters.provider')}
          value={draft.provider}
          options={MONEY_PROVIDERS.map((p) => ({ value: p, label: providerLabel(p) }))}
          onChange={(provider) => setDraft({ ...draft, provider })}
        />
        <FilterSelect
          id={`${id}-status`}
          label={t('filters.status')}
          value={draft.status}
          options={ORDER_STATUSES.map((s) => ({ value: s, label: t(`orderStatus.${s}`) }))}
          onChange={(status) => setDraft({ ...draft, status })}
        />
        <FilterSelect
          id={`${id}-sandbox`}
          label={t('filters.sandbox')}
          value={draft.sandbox}
          options={[
            { value: 'true', label: t('filters.sandboxOnly') },
            { value: 'false', label: t('filters.realOnly') },
          ]}
          onChange={(sandbox) => setDraft({ ...draft, sandbox })}
        />
        <div>
          <label htmlFor={`${id}-user`} className="mb-1 block text-sm font-medium">
            {t('filters.userId')}
          </label>
          <input
            id={`${id}-user`}
            dir="ltr"
            value={draft.userId}
            onChange={(event) => setDraft({ ...draft, userId: event.target.value })}
            className={fieldClass}
          />
        </div>
        <div className="flex gap-2 sm:col-span-2 lg:col-span-4">
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
          caption={t('tabs.orders')}
          testId="money-orders"
          columns={[
            t('columns.created'),
            t('columns.order'),
            t('columns.user'),
            t('columns.plan'),
            t('columns.provider'),
            t('columns.status'),
            t('columns.amount'),
            t('columns.refunded'),
          ]}
        >
          {data.items.map((order) => (
            <tr key={order.id} className="border-t border-zinc-800" data-sandbox={order.sandbox || undefined}>
              <td className="p-3 whitespace-nowrap">{formatDateTime(locale, order.createdAt)}</td>
              <td className="p-3 font-mono break-all">
                <LocalizedLink
                  dir="ltr"
                  to={`/console/money/orders/${encodeURIComponent(order.id)}`}
                  className="text-violet-300 underline hover:text-violet-200"
                >
                  {order.id}
                </LocalizedLink>
              </td>
              <td className="p-3 font-mono text-xs break-all">
                <bdi dir="ltr">{order.userId ?? '—'}</bdi>
              </td>
              <td className="p-3">
                <bdi dir="ltr">{order.planId}</bdi> · {t(`cycle.${order.billingCycle}`)}
              </td>
              <td className="p-3 whitespace-nowrap">
                {order.sandbox ? <SandboxMark /> : providerLabel(order.provider)}
              </td>
              <td className="p-3">{t(`orderStatus.${order.status}`)}</td>
              <td className="p-3 whitespace-nowrap">{formatPrice(locale, order.amount, order.currency)}</td>
              <td className="p-3 whitespace-nowrap">
                {order.refundedAmount > 0 ? formatPrice(locale, order.refundedAmount, order.currency) : '—'}
              </td>
            </tr>
          ))}
        </ConsoleTable>
      ) : null}
      {data ? <Paging locale={locale} page={page} hasMore={data.hasMore} onPage={setPage} /> : null}
    </section>
  )
}
