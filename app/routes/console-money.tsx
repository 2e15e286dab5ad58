import { useSearchParams } from 'react-router'
import { LocalizedLink } from '#app/components/localized-link.tsx'
import { InvoicesTab } from '#app/features/console-money/components/invoices-tab.tsx'
import { OrdersTab } from '#app/features/console-money/components/orders-tab.tsx'
import { SubscriptionsTab } from '#app/features/console-money/components/subscriptions-tab.tsx'
import { WebhooksTab } from '#app/features/console-money/components/webhooks-tab.tsx'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { routeLocale } from '#app/lib/route-locale.ts'
import type { Route } from './+types/console-money.ts'

export const handle = { i18n: ['console-money'] }

/** Console pages are one person's: never stored by a shared cache. */
export const headers = () => ({ 'Cache-Control': 'private, no-store' })

const TABS = ['orders', 'subscriptions', 'webhooks', 'btcpay'] as const
type Tab = (typeof TABS)[number]

/**
 * `/console/money` (admin, ADR 056): orders (filters, the sandbox's marked, amounts in their
 * currency), subscriptions (cancel), webhooks received and BTCPay invoices, one section at a time
 * (`?tab=`). Rendered inside the console's layout, which checks the role and the second factor.
 */
export default function ConsoleMoney({ params }: Route.ComponentProps) {
  const { t } = useTranslation('console-money')
  const locale = routeLocale(params)
  const [search] = useSearchParams()
  const asked = search.get('tab')
  const tab: Tab = TABS.find((name) => name === asked) ?? 'orders'
  const label: Record<Tab, string> = {
    orders: t('tabs.orders'),
    subscriptions: t('tabs.subscriptions'),
    webhooks: t('tabs.webhooks'),
    btcpay: t('tabs.btcpay'),
  }
  return (
    <section>
      <h1 className="mb-4 text-2xl font-bold">{t('meta.title')}</h1>
      <nav aria-label={t('tabs.label')} className="mb-5 border-b border-zinc-800">
        <ul className="flex flex-wrap gap-1">
          {TABS.map((name) => (
            <li key={name}>
              <LocalizedLink
                to={name === 'orders' ? '/console/money' : `/console/money?tab=${name}`}
                aria-current={tab === name ? 'page' : undefined}
                className="-mb-px inline-block border-b-2 border-transparent px-3 py-2 text-sm font-medium text-zinc-300 hover:text-white aria-[current=page]:border-violet-400 aria-[current=page]:text-white"
              >
                {label[name]}
              </LocalizedLink>
            </li>
          ))}
        </ul>
      </nav>
      {tab === 'orders' ? (
        <OrdersTab locale={locale} />
      ) : tab === 'subscriptions' ? (
        <SubscriptionsTab locale={locale} />
      ) : tab === 'webhooks' ? (
        <WebhooksTab locale={locale} />
      ) : (
        <InvoicesTab locale={locale} />
      )}
    </section>
  )
}
