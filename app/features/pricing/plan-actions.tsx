import { useState } from 'react'
import { ConfirmDialog } from '#app/components/confirm-dialog.tsx'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { formatDate, formatPrice } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { notify } from '#app/lib/notify.tsx'
import type { Locale } from '#contracts/locales.ts'
import type { PaymentType } from '#contracts/payments.ts'
import type { SubscriptionView } from '#contracts/payments-schemas.ts'
import { type BillingCycle, compareChange, type Plan } from '#contracts/plans.ts'
import { changePlan } from './api.ts'

type Props = {
  plan: Plan
  cycle: BillingCycle
  locale: Locale
  /** The paid plan held and its terms; undefined when logged out or on the free plan. */
  held: { subscription: SubscriptionView; plan: Plan } | undefined
  busy: PaymentType | null
  onBuy: (paymentType: PaymentType) => void
  /** The plan as the server holds it after a change. */
  onChanged: (subscription: SubscriptionView) => void
}

/**
 * What a plan's card offers, given the plan held (docs/decisions/025-plan-changes.md): both ways to
 * pay on the free plan; "Upgrade" or "Switch to yearly" on a card plan (a change of the one
 * subscription, after a confirmation); a crypto extension or upgrade on a plan paid once; and for a
 * step down, when it can be chosen instead of a button.
 */
export function PlanActions({ plan, cycle, locale, held, busy, onBuy, onChanged }: Props) {
  const { t } = useTranslation('pricing')
  const [confirming, setConfirming] = useState(false)
  if (plan.free) return null
  if (!held) {
    return (
      <div className="mt-6 space-y-2">
        <BuyButton kind="primary" disabled={busy !== null} onClick={() => onBuy('card')} label={t('subscribeCard')} />
        <BuyButton kind="secondary" disabled={busy !== null} onClick={() => onBuy('crypto')} label={t('buyCrypto')} />
      </div>
    )
  }
  const { subscription } = held
  const date = formatDate(locale, subscription.currentPeriodEnd)
  const step = compareChange(held.plan, subscription.billingCycle, plan, cycle)
  const cardPlan = subscription.renews || subscription.cancelAtPeriodEnd
  if (step === 'same' && cardPlan) return null
  // Crypto buys time on any plan but a cheaper one; a card plan changes only upwards.
  const stepDown = cardPlan ? step === 'down' : plan.priceMonthly < held.plan.priceMonthly
  if (stepDown) {
    return (
      <p className="mt-6 text-sm text-zinc-400" data-testid="plan-step-down">
        {t(subscription.renews ? 'change.downgradeRenews' : 'change.downgradeLater', { date })}
      </p>
    )
  }
  if (cardPlan) {
    const samePlan = plan.planId === held.plan.planId
    return (
      <div className="mt-6 space-y-2">
        <BuyButton
          kind="primary"
          disabled={busy !== null}
          onClick={() => setConfirming(true)}
          label={t(samePlan ? 'change.switchYearly' : 'change.upgrade')}
          testId="change-plan"
        />
        {/* Another cycle starts a new period: the dialog says what is charged then. */}
        {cycle === subscription.billingCycle ? <p className="text-xs text-zinc-400">{t('change.prorated')}</p> : null}
        {confirming ? (
          <ConfirmChange
            plan={plan}
            cycle={cycle}
            locale={locale}
            subscription={subscription}
            onClose={() => setConfirming(false)}
            onDone={(next) => {
              setConfirming(false)
              onChanged(next)
            }}
          />
        ) : null}
      </div>
    )
  }
  // A plan paid once: more time, or a dearer plan, by crypto; a card subscription once it ends.
  return (
    <div className="mt-6 space-y-2">
      <BuyButton
        kind="secondary"
        disabled={busy !== null}
        onClick={() => onBuy('crypto')}
        label={t(plan.planId === held.plan.planId ? 'change.extendCrypto' : 'change.upgradeCrypto')}
      />
      <p className="text-xs text-zinc-400">{t('change.cardLater', { date })}</p>
    </div>
  )
}

function BuyButton(props: {
  kind: 'primary' | 'secondary'
  disabled: boolean
  onClick: () => void
  label: string
  testId?: string
}) {
  return (
    <button
      type="button"
      className={`${props.kind === 'primary' ? 'button-primary' : 'button-secondary'} w-full px-4 py-2.5 text-sm`}
      disabled={props.disabled}
      onClick={props.onClick}
      data-testid={props.testId}
    >
      {props.label}
    </button>
  )
}

function ConfirmChange(props: {
  plan: Plan
  cycle: BillingCycle
  locale: Locale
  subscription: SubscriptionView
  onClose: () => void
  onDone: (subscription: SubscriptionView) => void
}) {
  const { plan, cycle, locale, subscription } = props
  const { t } = useTranslation('pricing')
  const { t: tCommon } = useTranslation()
  const name = t(`plans.${plan.planId}`, { defaultValue: plan.planId })
  const amount = formatPrice(locale, cycle === 'yearly' ? plan.priceYearly : plan.priceMonthly, plan.currency)
  const price = t(cycle === 'yearly' ? 'perYear' : 'perMonth', { price: amount })
  // Another cycle starts a new period today; the same cycle keeps the period's end.
  const text =
    cycle === subscription.billingCycle
      ? t('change.confirmSamePeriod', { date: formatDate(locale, subscription.currentPeriodEnd), price })
      : t('change.confirmNewPeriod', { price: amount })
  return (
    <ConfirmDialog
      title={t('change.confirmTitle', { plan: name })}
      text={text}
      cancelLabel={t('manage.back')}
      confirmLabel={t('change.confirm')}
      busyLabel={t('change.changing')}
      confirmTestId="confirm-change-plan"
      onConfirm={async () => {
        const { subscription: next } = await changePlan(plan.planId, cycle, locale)
        notify(t('change.changed', { plan: name }), { type: 'success' })
        props.onDone(next)
      }}
      describeError={(error) => apiErrorMessage(tCommon, error)}
      onClose={props.onClose}
    />
  )
}
