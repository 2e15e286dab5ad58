import { CheckCircle2, Gem, XCircle } from 'lucide-react'
import { useEffect, useState } from 'react'
import { useSearchParams } from 'react-router'
import { LocalizedLink } from '#app/components/localized-link.tsx'
import { PageMeta } from '#app/components/page-meta.tsx'
import { currentSubscription, paymentStatus } from '#app/features/pricing/api.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { refreshPoints, usePoints } from '#app/lib/points.ts'
import { useIsLoggedIn } from '#app/lib/session.ts'
import type { OrderStatus } from '#contracts/payments.ts'

const POLL_MS = 2000
// A provider can take a while to confirm (crypto needs block confirmations); stop polling after this.
const POLL_LIMIT = 150

type State = { kind: 'checking' } | { kind: 'missing' } | { kind: 'status'; status: OrderStatus }

export const handle = { i18n: ['pricing'] }

/** `/subscribe/success?orderId=…`: waits for the order to settle, then shows the plan and balance. */
export default function SubscribeSuccess() {
  const { t } = useTranslation('pricing')
  const [search] = useSearchParams()
  const orderId = search.get('orderId') ?? ''
  const loggedIn = useIsLoggedIn()
  const { points } = usePoints()
  const [state, setState] = useState<State>({ kind: 'checking' })
  const [planId, setPlanId] = useState<string | null>(null)

  useEffect(() => {
    let stopped = false
    let timer: ReturnType<typeof setTimeout> | undefined
    let polls = 0
    const check = async () => {
      try {
        const { status } = await paymentStatus(orderId)
        if (stopped) return
        setState({ kind: 'status', status })
        if (status === 'pending' && ++polls < POLL_LIMIT) timer = setTimeout(check, POLL_MS)
        if (status === 'paid') {
          // The purchase credited diamonds: the top bar and the chat show the new balance.
          await refreshPoints()
          const { subscription } = await currentSubscription()
          if (!stopped) setPlanId(subscription?.planId ?? null)
        }
      } catch {
        if (!stopped) setState({ kind: 'missing' })
      }
    }
    if (orderId) void check()
    else setState({ kind: 'missing' })
    return () => {
      stopped = true
      clearTimeout(timer)
    }
  }, [orderId])

  const status = state.kind === 'status' ? state.status : null
  return (
    <div className="mx-auto max-w-lg rounded-2xl border border-zinc-800 bg-zinc-900 p-8 text-center">
      <PageMeta title={t('success.metaTitle')} description={t('description')} />
      <meta name="robots" content="noindex" />
      {status === 'paid' ? (
        <CheckCircle2 aria-hidden="true" className="mx-auto size-12 text-emerald-400" />
      ) : status && status !== 'pending' ? (
        <XCircle aria-hidden="true" className="mx-auto size-12 text-red-400" />
      ) : null}
      <h1 className="mt-4 text-2xl font-bold text-zinc-50">{t('success.title')}</h1>
      <div role="status" className="mt-4 space-y-3 text-zinc-200">
        {state.kind === 'checking' ? <p>{t('success.checking')}</p> : null}
        {state.kind === 'missing' ? <p>{t('success.missing')}</p> : null}
        {status === 'pending' ? <p>{t('success.pending')}</p> : null}
        {status === 'failed' || status === 'expired' || status === 'canceled' || status === 'refunded' ? (
          <p>{t(`success.${status}`)}</p>
        ) : null}
        {status === 'paid' ? (
          <>
            <p className="text-lg">
              {t('success.paid', { plan: planId ? t(`plans.${planId}`, { defaultValue: planId }) : '' })}
            </p>
            {loggedIn && points !== null ? (
              <p className="flex items-center justify-center gap-2" data-testid="success-balance">
                <Gem aria-hidden="true" className="size-5 text-violet-300" />
                {t('success.balance', { count: points })}
              </p>
            ) : null}
          </>
        ) : null}
      </div>
      <div className="mt-8 flex flex-wrap justify-center gap-3">
        {status === 'paid' ? (
          <LocalizedLink to="/characters" className="button-primary">
            {t('success.startChatting')}
          </LocalizedLink>
        ) : null}
        <LocalizedLink to="/subscribe" className="button-secondary">
          {t('success.backToPlans')}
        </LocalizedLink>
      </div>
    </div>
  )
}
