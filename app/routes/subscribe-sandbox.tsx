import { FlaskConical } from 'lucide-react'
import { useState } from 'react'
import { useNavigate, useSearchParams } from 'react-router'
import { useLocalizePath } from '#app/components/localized-link.tsx'
import { PageMeta } from '#app/components/page-meta.tsx'
import { useHydrated } from '#app/features/characters/components/signed-in-gate.tsx'
import { settleSandbox } from '#app/features/pricing/api.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { notify } from '#app/lib/notify.tsx'

export const handle = { i18n: ['pricing'] }

/**
 * `/subscribe/sandbox?orderId=…`: the stand-in for Stripe and BTCPay when no keys are configured
 * (never in production: the server refuses to start with the sandbox on). Each button settles the
 * order through the same code a provider's webhook runs.
 */
export default function SubscribeSandbox() {
  const { t } = useTranslation('pricing')
  const [search] = useSearchParams()
  const navigate = useNavigate()
  const localize = useLocalizePath()
  const orderId = search.get('orderId') ?? ''
  const [busy, setBusy] = useState(false)
  // The page arrives from the server before its script: a click then would do nothing, so the
  // buttons wait for it (a person on a slow phone, and the browser tests on a loaded machine).
  const hydrated = useHydrated()

  const settle = async (outcome: 'paid' | 'failed' | 'canceled') => {
    setBusy(true)
    try {
      await settleSandbox(orderId, outcome)
      navigate(localize(`/subscribe/success?orderId=${encodeURIComponent(orderId)}`))
    } catch {
      notify(t('sandbox.failed'), { type: 'error' })
      setBusy(false)
    }
  }

  return (
    <div className="mx-auto max-w-lg rounded-2xl border-2 border-dashed border-amber-400 bg-zinc-900 p-8">
      <PageMeta title={t('sandbox.title')} description={t('sandbox.explain')} />
      <meta name="robots" content="noindex" />
      <p className="flex w-fit items-center gap-2 rounded-full bg-amber-300 px-3 py-1 text-sm font-semibold text-zinc-950">
        <FlaskConical aria-hidden="true" className="size-4" />
        {t('sandbox.badge')}
      </p>
      <h1 className="mt-4 text-2xl font-bold text-zinc-50">{t('sandbox.title')}</h1>
      <p className="mt-3 text-zinc-300">{t('sandbox.explain')}</p>
      <p className="mt-3 break-all font-mono text-sm text-zinc-400">{t('sandbox.order', { orderId })}</p>
      <div className="mt-6 flex flex-wrap gap-3">
        <button type="button" className="button-primary" disabled={busy || !hydrated} onClick={() => settle('paid')}>
          {t('sandbox.pay')}
        </button>
        <button
          type="button"
          className="button-secondary"
          disabled={busy || !hydrated}
          onClick={() => settle('failed')}
        >
          {t('sandbox.fail')}
        </button>
        <button type="button" className="button-ghost" disabled={busy || !hydrated} onClick={() => settle('canceled')}>
          {t('sandbox.cancel')}
        </button>
      </div>
    </div>
  )
}
