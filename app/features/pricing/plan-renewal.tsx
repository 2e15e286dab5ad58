import { CalendarX, RotateCcw } from 'lucide-react'
import { useEffect, useId, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { formatDate } from '#app/lib/format.ts'
import { ApiError } from '#app/lib/http.ts'
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
    if (error instanceof ApiError && error.error === 'SERVICE_UNAVAILABLE') return t('manage.providerDown')
    if (error instanceof ApiError && error.error === 'CONFLICT') return t('manage.providerRefused')
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
  const dialog = useRef<HTMLDialogElement>(null)
  const titleId = useId()
  const textId = useId()
  const [busy, setBusy] = useState(false)
  const [problem, setProblem] = useState<string | null>(null)
  useEffect(() => {
    const element = dialog.current
    if (element && !element.open) element.showModal()
    return () => element?.close()
  }, [])

  const confirm = async () => {
    setBusy(true)
    setProblem(null)
    try {
      onDone(await cancelPlan())
    } catch (error) {
      setBusy(false)
      setProblem(describe(error))
    }
  }

  const plan = t(`plans.${subscription.planId}`, { defaultValue: subscription.planId })
  return (
    <dialog
      ref={dialog}
      aria-labelledby={titleId}
      aria-describedby={textId}
      onCancel={(event) => {
        event.preventDefault()
        onClose()
      }}
      className="m-auto w-[min(92vw,28rem)] rounded-2xl border border-zinc-700 bg-zinc-900 p-6 text-zinc-100 shadow-2xl backdrop:bg-black/70"
    >
      <h2 id={titleId} className="text-xl font-semibold">
        {t('manage.dialogTitle')}
      </h2>
      <p id={textId} className="mt-2 text-sm text-zinc-300">
        {t('manage.dialogText', { plan, date })}
      </p>
      {problem ? (
        <p role="alert" className="mt-3 text-sm text-rose-300">
          {problem}
        </p>
      ) : null}
      <div className="mt-6 flex flex-wrap justify-end gap-2">
        <button type="button" className="button-ghost" onClick={onClose}>
          {t('manage.back')}
        </button>
        <button
          type="button"
          className="button-primary bg-rose-700 hover:bg-rose-800"
          onClick={confirm}
          disabled={busy}
          data-testid="confirm-cancel-plan"
        >
          {busy ? t('manage.cancelling') : t('manage.confirm')}
        </button>
      </div>
    </dialog>
  )
}
