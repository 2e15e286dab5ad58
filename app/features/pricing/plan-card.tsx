import { Check, Gem } from 'lucide-react'
import type { ReactNode } from 'react'
import { formatPrice } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import type { Locale } from '#contracts/locales.ts'
import type { BillingCycle, Plan } from '#contracts/plans.ts'

type Props = {
  plan: Plan
  cycle: BillingCycle
  locale: Locale
  current: boolean
  /** Shown under the "Your current plan" mark: when the plan renews or ends, and its controls. */
  currentDetails?: ReactNode
  /** The ways to buy or change to this plan (`PlanActions`). */
  actions: ReactNode
}

export function PlanCard({ plan, cycle, locale, current, currentDetails, actions }: Props) {
  const { t } = useTranslation('pricing')
  const price = cycle === 'yearly' ? plan.priceYearly : plan.priceMonthly
  const titleId = `plan-${plan.planId}`
  return (
    <article
      aria-labelledby={titleId}
      className={`relative flex flex-col rounded-2xl border p-6 ${
        plan.bestValue ? 'border-violet-400 bg-violet-950/30' : 'border-zinc-800 bg-zinc-900'
      }`}
    >
      {plan.bestValue ? (
        <span className="absolute -top-3 start-6 rounded-full bg-violet-700 px-3 py-0.5 text-xs font-semibold text-white">
          {t('bestValue')}
        </span>
      ) : null}
      <h2 id={titleId} className="text-lg font-semibold text-zinc-100">
        {t(`plans.${plan.planId}`, { defaultValue: plan.planId })}
      </h2>
      <p className="mt-3 text-2xl font-bold text-zinc-50">
        {plan.free
          ? t('free')
          : t(cycle === 'yearly' ? 'perYear' : 'perMonth', {
              price: formatPrice(locale, price, plan.currency),
            })}
      </p>
      <p className="mt-1 h-5 text-sm text-emerald-300">
        {cycle === 'yearly' && plan.yearlySavingsPercent > 0 ? t('save', { percent: plan.yearlySavingsPercent }) : null}
      </p>
      <ul className="mt-4 flex-1 space-y-2 text-sm text-zinc-300">
        {plan.unlimitedFreeModels ? <Feature>{t('features.freeModels')}</Feature> : null}
        {plan.premiumModels ? <Feature>{t('features.premiumModels')}</Feature> : null}
        <Feature icon="gem">{t('features.diamonds', { count: plan.diamondsPerMonth })}</Feature>
        <Feature>{t('features.memory', { count: plan.memoryK * 1000 })}</Feature>
      </ul>
      {current ? (
        <p className="mt-6 rounded-lg border border-emerald-700 px-3 py-2 text-center text-sm text-emerald-300">
          {t('currentPlan')}
        </p>
      ) : null}
      {current && currentDetails ? <div className="mt-3">{currentDetails}</div> : null}
      {actions}
    </article>
  )
}

function Feature({ children, icon }: { children: React.ReactNode; icon?: 'gem' }) {
  const Icon = icon === 'gem' ? Gem : Check
  return (
    <li className="flex items-start gap-2">
      <Icon aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-violet-300" />
      <span>{children}</span>
    </li>
  )
}
