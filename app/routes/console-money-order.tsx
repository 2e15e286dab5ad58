import { useState } from 'react'
import { LocalizedLink } from '#app/components/localized-link.tsx'
import { ConsoleTable } from '#app/features/console/components/console-table.tsx'
import { Loading, ProblemRetry } from '#app/features/console/components/load-state.tsx'
import { useAdminData } from '#app/features/console/use-admin-data.ts'
import { RefundForm } from '#app/features/console-money/components/refund-form.tsx'
import { SandboxMark } from '#app/features/console-money/components/shared.tsx'
import { getOrder } from '#app/features/console-money/money-api.ts'
import { formatDateTime, formatNumber, formatPrice } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { routeLocale } from '#app/lib/route-locale.ts'
import type { Route } from './+types/console-money-order.ts'

export const handle = { i18n: ['console-money'] }

/** Console pages are one person's: never stored by a shared cache. */
export const headers = () => ({ 'Cache-Control': 'private, no-store' })

/** `/console/money/orders/:id` (admin, ADR 056): the order, its refunds and the refund form. */
export default function ConsoleMoneyOrder({ params }: Route.ComponentProps) {
  const { t } = useTranslation('console-money')
  const locale = routeLocale(params)
  const orderId = params.id
  const { data: detail, problem, reload } = useAdminData((signal) => getOrder(orderId, signal), orderId)
  const [done, setDone] = useState<string | null>(null)

  const order = detail?.order
  const money = (minor: number) => (order ? formatPrice(locale, minor, order.currency) : '')
  return (
    <section>
      <LocalizedLink to="/console/money" className="text-sm text-violet-300 underline hover:text-violet-200">
        {t('order.back')}
      </LocalizedLink>
      <h1 className="mt-2 mb-4 text-2xl font-bold break-all">
        {t('order.title', { id: orderId })}
        {order?.sandbox ? <SandboxMark /> : null}
      </h1>
      <ProblemRetry problem={problem} retryLabel={t('retry')} onRetry={reload} />
      {done ? (
        <p role="status" className="mb-4 text-emerald-300" data-testid="refund-done">
          {done}
        </p>
      ) : null}
      {!order ? (
        problem ? null : (
          <Loading label={t('loading')} />
        )
      ) : (
        <div className="space-y-6">
          <dl className="grid gap-x-6 gap-y-2 rounded-2xl border border-zinc-800 p-5 sm:grid-cols-[max-content_1fr]">
            <dt className="text-zinc-400">{t('columns.status')}</dt>
            <dd data-testid="order-status">{t(`orderStatus.${order.status}`)}</dd>
            <dt className="text-zinc-400">{t('columns.amount')}</dt>
            <dd>{money(order.amount)}</dd>
            <dt className="text-zinc-400">{t('columns.refunded')}</dt>
            <dd>{money(order.refundedAmount)}</dd>
            <dt className="text-zinc-400">{t('columns.plan')}</dt>
            <dd>
              <bdi dir="ltr">{order.planId}</bdi>
            </dd>
            <dt className="text-zinc-400">{t('order.cycle')}</dt>
            <dd>{t(`cycle.${order.billingCycle}`)}</dd>
            <dt className="text-zinc-400">{t('columns.provider')}</dt>
            <dd>{order.sandbox ? t('sandbox') : order.provider}</dd>
            <dt className="text-zinc-400">{t('order.providerRef')}</dt>
            <dd className="font-mono text-sm break-all">
              <bdi dir="ltr">{order.providerRef ?? '—'}</bdi>
            </dd>
            <dt className="text-zinc-400">{t('columns.user')}</dt>
            <dd className="font-mono text-sm break-all">
              <bdi dir="ltr">{order.userId ?? '—'}</bdi>
            </dd>
            <dt className="text-zinc-400">{t('columns.created')}</dt>
            <dd>{formatDateTime(locale, order.createdAt)}</dd>
            <dt className="text-zinc-400">{t('order.paidAt')}</dt>
            <dd>{order.paidAt ? formatDateTime(locale, order.paidAt) : '—'}</dd>
          </dl>

          <section aria-labelledby="refunds-title">
            <h2 id="refunds-title" className="mb-3 text-lg font-semibold">
              {t('order.refunds')}
            </h2>
            {order.refunds.length === 0 ? (
              <p className="text-zinc-400">{t('order.noRefunds')}</p>
            ) : (
              <ConsoleTable
                caption={t('order.refunds')}
                testId="order-refunds"
                columns={[
                  t('columns.created'),
                  t('columns.amount'),
                  t('columns.status'),
                  t('columns.diamonds'),
                  t('columns.note'),
                ]}
              >
                {order.refunds.map((refund) => (
                  <tr key={refund.id} className="border-t border-zinc-800 align-top">
                    <td className="p-3 whitespace-nowrap">{formatDateTime(locale, refund.createdAt)}</td>
                    <td className="p-3 whitespace-nowrap">{money(refund.amount)}</td>
                    <td className="p-3">
                      {t(`refundStatus.${refund.status}`)}
                      {refund.failure ? (
                        <span className="block text-xs text-zinc-400" dir="ltr">
                          {refund.failure}
                        </span>
                      ) : null}
                    </td>
                    <td className="p-3 whitespace-nowrap">
                      {formatNumber(locale, refund.diamondsTaken ?? 0)} / {formatNumber(locale, refund.diamondsDue)}
                    </td>
                    <td className="p-3" dir="auto">
                      {refund.note}
                    </td>
                  </tr>
                ))}
              </ConsoleTable>
            )}
          </section>

          {detail.preview ? (
            <RefundForm
              key={`${order.id}:${order.refunds.length}`}
              locale={locale}
              order={order}
              full={detail.preview}
              onDone={(result) => {
                const message =
                  result.refund.status === 'succeeded'
                    ? t('refund.done', {
                        amount: money(result.refund.amount),
                        diamonds: formatNumber(locale, result.refund.diamondsTaken ?? 0),
                      })
                    : t('refund.pending')
                void reload().then(() => setDone(message))
              }}
            />
          ) : (
            <p className="text-zinc-400">{t('order.notRefundable')}</p>
          )}
        </div>
      )}
    </section>
  )
}
