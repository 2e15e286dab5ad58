import { CalendarX, RotateCcw } from 'lucide-react'
import { useState } from 'react'
import { ConfirmDialog } from '#app/components/confirm-dialog.tsx'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { formatDate } from '#app/lib/format.ts'
import { isApiError } from '#app/lib/http.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { notify } from '#app/lib/notify.tsx'
import type { Locale } from '#contracts/locales.ts'
import type { SubscriptionView } from '#contracts/payments-schemas.ts'
import { cancelPlan, resumePlan } from './api.ts'

type Props = {
  subscription: SubscriptionView
  locale: Locale
  /** The plan as the server holds it after a cancel or resume. */
  onChange: (subscription: SubscriptionView) => void
}

/** The words for a failed cancel or resume: the provider's outage and refusal get their own. */
function useRenewalError() {
  const { t } = useTranslation('pricing')
  const { t: tCommon } = useTranslation()
  return (error: unknown) => {
    if (isApiError(error, 'SERVICE_UNAVAILABLE')) return t('manage.providerDown')
    if (isApiError(error, 'CONFLICT') && error.details?.reason === 'provider-refused')
      return t('manage.providerRefused')
    return t('manage.failed', { reason: apiErrorMessage(tCommon, error) })
  }
}

/**
 * Whether the plan renews, and the way to stop that ("Cancel plan", after a confirmation) or to
 * undo it before the period ends ("Keep my plan"). A plan paid once (crypto) just says when it ends.
 */
export function PlanRenewal({ subscription, locale, onChange }: Props) {
  const { t } = useTranslation('pricing')
  const describe = useRenewalError()
  const [confirming, setConfirming] = useState(false)
  const [resuming, setResuming] = useState(false)
  const date = formatDate(locale, subscription.currentPeriodEnd)

  const resume = async () => {
    setResuming(true)
    try {
      onChange(await resumePlan())
      notify(t('manage.resumed'), { type: 'success' })
    } catch (error) {
      notify(describe(error), { type: 'error' })
    } finally {
      setResuming(false)
    }
  }

  if (subscription.renews) {
    return (
      <div className="space-y-3">
        <p className="text-sm text-zinc-300" data-testid="plan-renews">
          {t('manage.renewsOn', { date })}
        </p>
        <button
          type="button"
          className="button-secondary px-4 py-2 text-sm"
          onClick={() => setConfirming(true)}
          data-testid="cancel-plan"
        >
          <CalendarX aria-hidden="true" className="size-4" />
          {t('manage.cancel')}
        </button>
        {confirming ? (
          <ConfirmCancel
            subscription={subscription}
            date={date}
            onClose={() => setConfirming(false)}
            onDone={(next) => {
              setConfirming(false)
              onChange(next)
              notify(t('manage.cancelled', { date }), { type: 'success' })
            }}
          />
        ) : null}
      </div>
    )
  }
  return (
    <div className="space-y-3">
      <p className="text-sm font-medium text-amber-200" data-testid="plan-ends">
        {t('manage.endsOn', { date })}
      </p>
      <p className="text-sm text-zinc-400">
        {subscription.cancelAtPeriodEnd ? t('manage.keepUntil') : t('manage.paidOnce')}
      </p>
      {subscription.cancelAtPeriodEnd ? (
        <button
          type="button"
          className="button-secondary px-4 py-2 text-sm"
          onClick={resume}
          disabled={resuming}
          data-testid="resume-plan"
        >
          <RotateCcw aria-hidden="true" className="size-4" />
          {resuming ? t('manage.resuming') : t('manage.resume')}
        </button>
      ) : null}
    </div>
  )
}

function ConfirmCancel({
  subscription,
  date,
  onClose,
  onDone,
}: {
  subscription: SubscriptionView
  date: string
  onClose: () => void
  onDone: (subscription: SubscriptionView) => void
}) {
  const { t } = useTranslation('pricing')
  const describe = useRenewalError()
  const plan = t(`plans.${subscription.planId}`, { defaultValue: subscription.planId })
  return (
    <ConfirmDialog
      title={t('manage.dialogTitle')}
      text={t('manage.dialogText', { plan, date })}
      cancelLabel={t('manage.back')}
      confirmLabel={t('manage.confirm')}
      busyLabel={t('manage.cancelling')}
      danger
      confirmTestId="confirm-cancel-plan"
      onConfirm={async () => onDone(await cancelPlan())}
      describeError={describe}
      onClose={onClose}
    />
  )
}
