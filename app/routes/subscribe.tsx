import { Suspense, useEffect, useState } from 'react'
import { Await, useLocation } from 'react-router'
import { PageMeta } from '#app/components/page-meta.tsx'
import { type CurrentSubscription, currentSubscription, startPayment } from '#app/features/pricing/api.ts'
import { PlanActions } from '#app/features/pricing/plan-actions.tsx'
import { PlanCard } from '#app/features/pricing/plan-card.tsx'
import { PlanRenewal } from '#app/features/pricing/plan-renewal.tsx'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { appLoadContext } from '#app/lib/load-context.ts'
import { notify } from '#app/lib/notify.tsx'
import { routeLocale } from '#app/lib/route-locale.ts'
import { useIsLoggedIn } from '#app/lib/session.ts'
import { localizePath } from '#contracts/locales.ts'
import type { PaymentType } from '#contracts/payments.ts'
import type { BillingCycle, Plan } from '#contracts/plans.ts'
import type { Route } from './+types/subscribe.ts'

export const handle = { i18n: ['pricing'] }

/** How long the page waits for the plans before it streams with 'Loading plans...' instead. */
const PLANS_WAIT_MS = 150

export async function loader({ context }: Route.LoaderArgs) {
  const plans = context.get(appLoadContext).plans.listPlans()
  // The plans are usually there within milliseconds; the page then arrives whole. Plans streamed in
  // after the first paint push everything below them down (a layout shift of half the screen), so
  // only a slow database gets the early shell with 'Loading plans...' (a failure shows its message).
  let timer: ReturnType<typeof setTimeout> | undefined
  const ready = await Promise.race([
    plans.then(
      (list) => ({ list }),
      () => null,
    ),
    new Promise<null>((resolve) => {
      timer = setTimeout(resolve, PLANS_WAIT_MS, null)
    }),
  ])
  clearTimeout(timer)
  return { plans: ready ? ready.list : plans }
}

/** `/subscribe`: the plans, a monthly/yearly toggle, and the way to pay (card or crypto). */
export default function Subscribe({ loaderData, params }: Route.ComponentProps) {
  const { t } = useTranslation('pricing')
  const { t: tCommon } = useTranslation()
  const locale = routeLocale(params)
  const loggedIn = useIsLoggedIn()
  const { pathname, search } = useLocation()
  const [cycle, setCycle] = useState<BillingCycle>('monthly')
  const [busy, setBusy] = useState<PaymentType | null>(null)
  // undefined: not known (logged out, or not loaded); null: the free plan.
  const [held, setHeld] = useState<CurrentSubscription | undefined>(undefined)
  const currentPlanId = held === undefined ? null : (held?.planId ?? 'free')

  useEffect(() => {
    if (!loggedIn) {
      setHeld(undefined)
      return
    }
    currentSubscription().then(
      ({ subscription }) => setHeld(subscription),
      () => setHeld(undefined),
    )
  }, [loggedIn])

  const buy = async (planId: string, paymentType: PaymentType) => {
    if (!loggedIn) {
      // Log in first, then come back to this very page.
      window.location.assign(`${localizePath(locale, '/login')}?redirect_url=${encodeURIComponent(pathname + search)}`)
      return
    }
    setBusy(paymentType)
    try {
      const { paymentUrl } = await startPayment(paymentType, planId, cycle, locale)
      notify(t('starting'))
      window.location.assign(paymentUrl)
    } catch (error) {
      notify(apiErrorMessage(tCommon, error), { type: 'error' })
      setBusy(null)
    }
  }

  /** The paid plan held with its terms, for what each card offers. */
  const heldWith = (plans: Plan[]) => {
    const plan = held ? plans.find((p) => p.planId === held.planId) : undefined
    return held && plan ? { subscription: held, plan } : undefined
  }

  const planGrid = (plans: Plan[]) =>
    plans.length === 0 ? (
      <p className="mt-10 text-center text-zinc-400">{t('empty')}</p>
    ) : (
      <div className="mt-10 grid gap-6 sm:grid-cols-2 lg:grid-cols-4">
        {plans.map((plan) => (
          <PlanCard
            key={plan.planId}
            plan={plan}
            cycle={cycle}
            locale={locale}
            current={currentPlanId === plan.planId}
            currentDetails={
              held && held.planId === plan.planId ? (
                <PlanRenewal subscription={held} locale={locale} onChange={setHeld} />
              ) : null
            }
            actions={
              <PlanActions
                plan={plan}
                cycle={cycle}
                locale={locale}
                held={heldWith(plans)}
                busy={busy}
                onBuy={(type) => buy(plan.planId, type)}
                onChanged={setHeld}
              />
            }
          />
        ))}
      </div>
    )

  return (
    <>
      <PageMeta title={t('metaTitle')} description={t('description')} />
      <div className="mx-auto max-w-6xl">
        <header className="text-center">
          <h1 className="text-3xl font-bold text-zinc-50">{t('title')}</h1>
          <p className="mx-auto mt-3 max-w-2xl text-zinc-300">{t('description')}</p>
        </header>
        <fieldset className="mx-auto mt-8 flex w-fit rounded-full border border-zinc-700 p-1">
          <legend className="sr-only">{t('billing.label')}</legend>
          {(['monthly', 'yearly'] as const).map((value) => (
            <label
              key={value}
              className={`cursor-pointer rounded-full px-5 py-2 text-sm font-medium has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-violet-400 ${
                cycle === value ? 'bg-violet-600 text-white' : 'text-zinc-300'
              }`}
            >
              <input
                type="radio"
                name="billing-cycle"
                value={value}
                checked={cycle === value}
                onChange={() => setCycle(value)}
                className="sr-only"
              />
              {t(`billing.${value}`)}
            </label>
          ))}
        </fieldset>
        {/* Plans already known render in place: React streams any sizeable Suspense boundary
            separately, fallback first, even when its content is ready. */}
        {Array.isArray(loaderData.plans) ? (
          planGrid(loaderData.plans)
        ) : (
          <Suspense
            fallback={
              <p role="status" className="mt-10 text-center text-zinc-400">
                {t('loading')}
              </p>
            }
          >
            <Await
              resolve={loaderData.plans}
              errorElement={
                <p role="alert" className="mt-10 text-center text-red-300">
                  {t('loadFailed', { reason: tCommon('apiErrors.INTERNAL_ERROR') })}
                </p>
              }
            >
              {planGrid}
            </Await>
          </Suspense>
        )}
        <p className="mx-auto mt-8 max-w-2xl text-center text-sm text-zinc-400">{t('honest')}</p>
        <p className="mx-auto mt-2 max-w-2xl text-center text-sm text-zinc-400" data-testid="replies-rule">
          {t('repliesRule')}
        </p>
      </div>
    </>
  )
}
