import { type FormEvent, useId, useState } from 'react'
import { LocalizedLink } from '#app/components/localized-link.tsx'
import { ConsoleTable } from '#app/features/console/components/console-table.tsx'
import { useAdminData } from '#app/features/console/use-admin-data.ts'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { formatDateTime, formatPrice } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import type { MoneyInvoiceState } from '#contracts/admin-money.ts'
import type { Locale } from '#contracts/locales.ts'
import { ORDER_STATUSES } from '#contracts/payments.ts'
import { listInvoices, refreshInvoice } from '../money-api.ts'
import { FilterSelect, ListState, PAGE_SIZE, Paging } from './shared.tsx'

/** BTCPay's invoices (its orders), and each one's state asked of BTCPay on demand. */
export function InvoicesTab({ locale }: { locale: Locale }) {
  const { t } = useTranslation('console-money')
  const { t: tc } = useTranslation()
  const id = useId()
  const [draft, setDraft] = useState('')
  const [status, setStatus] = useState('')
  const [page, setPage] = useState(1)
  const [states, setStates] = useState<Record<string, MoneyInvoiceState | { problem: string }>>({})
  const { data, problem } = useAdminData(
    (signal) => listInvoices({ status, page, pageSize: PAGE_SIZE }, signal),
    JSON.stringify([status, page]),
  )
  const apply = (event: FormEvent) => {
    event.preventDefault()
    setPage(1)
    setStatus(draft)
  }
  const ask = async (orderId: string) => {
    try {
      const state = await refreshInvoice(orderId)
      setStates((all) => ({ ...all, [orderId]: state }))
    } catch (error) {
      setStates((all) => ({ ...all, [orderId]: { problem: apiErrorMessage(tc, error) } }))
    }
  }

  return (
    <section aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`} className="sr-only">
        {t('tabs.btcpay')}
      </h2>
      <form onSubmit={apply} aria-label={t('filters.label')} className="mb-4 flex flex-wrap items-end gap-3">
        <FilterSelect
          id={`${id}-status`}
          label={t('filters.status')}
          value={draft}
          options={ORDER_STATUSES.map((s) => ({ value: s, label: t(`orderStatus.${s}`) }))}
          onChange={setDraft}
        />
        <button type="submit" className="button-primary">
          {t('filters.apply')}
        </button>
      </form>
      <ListState loaded={data !== null} empty={data?.items.length === 0} problem={problem} />
      {data && data.items.length > 0 ? (
        <ConsoleTable
          caption={t('tabs.btcpay')}
          testId="money-invoices"
          columns={[
            t('columns.created'),
            t('columns.order'),
            t('columns.invoice'),
            t('columns.status'),
            t('columns.amount'),
            t('columns.actions'),
          ]}
        >
          {data.items.map((order) => {
            const state = states[order.id]
            return (
              <tr key={order.id} className="border-t border-zinc-800 align-top">
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
                  <bdi dir="ltr">{order.providerRef ?? '—'}</bdi>
                </td>
                <td className="p-3">{t(`orderStatus.${order.status}`)}</td>
                <td className="p-3 whitespace-nowrap">{formatPrice(locale, order.amount, order.currency)}</td>
                <td className="p-3">
                  <button
                    type="button"
                    className="button-secondary px-3 py-1.5 text-sm"
                    onClick={() => void ask(order.id)}
                  >
                    {t('btcpay.refresh')}
                  </button>
                  <p aria-live="polite" className="mt-1 text-xs text-zinc-300">
                    {!state
                      ? null
                      : 'problem' in state
                        ? state.problem
                        : t('btcpay.state', {
                            status: state.invoice.status,
                            amount: formatPrice(locale, state.invoice.amount, state.invoice.currency),
                          })}
                  </p>
                </td>
              </tr>
            )
          })}
        </ConsoleTable>
      ) : null}
      {data ? <Paging locale={locale} page={page} hasMore={data.hasMore} onPage={setPage} /> : null}
    </section>
  )
}
