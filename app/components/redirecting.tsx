import { Loader2 } from 'lucide-react'
import { useState } from 'react'
import { useTranslation } from '#app/lib/i18n-react.tsx'

/**
 * Full-page redirects (to a payment provider, a sign-in provider, an external link) show a
 * 'Redirecting' state until the browser leaves, so a slow provider never looks like a dead button.
 * `first`: a call to finish before leaving (leaving would cancel it); its failure does not stop it.
 */
export function useFullPageRedirect() {
  const [target, setTarget] = useState<string | null>(null)
  const redirect = async (url: string, first?: Promise<unknown>) => {
    setTarget(url)
    await first?.catch(() => {})
    window.location.assign(url)
  }
  return { redirecting: target !== null, redirect }
}

export function Redirecting() {
  const { t } = useTranslation()
  return (
    <div role="status" aria-live="polite" className="fixed inset-0 z-50 grid place-items-center bg-zinc-950/80">
      <p className="flex items-center gap-3 text-lg">
        <Loader2 aria-hidden="true" className="size-6 animate-spin" />
        {t('redirecting')}
      </p>
    </div>
  )
}
