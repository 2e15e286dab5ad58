import { useEffect, useState } from 'react'
import { resendVerification } from '#app/features/accounts/api/accounts.ts'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { isApiError } from '#app/lib/http.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { notify } from '#app/lib/notify.tsx'
import { RESEND_COOLDOWN_SECONDS } from '#contracts/accounts.ts'

/**
 * 'Resend verification email': a resending state, then a countdown in seconds before it can be
 * pressed again (the server enforces the same pause).
 */
export function ResendVerification({
  email,
  startCountdown = true,
  label,
}: {
  email: string
  startCountdown?: boolean
  /** The button's words when it is ready (default 'Resend verification email'). */
  label?: string
}) {
  const { t } = useTranslation('auth')
  const { t: tCommon } = useTranslation()
  const [seconds, setSeconds] = useState(startCountdown ? RESEND_COOLDOWN_SECONDS : 0)
  const [busy, setBusy] = useState(false)

  useEffect(() => {
    if (seconds <= 0) return
    const timer = setTimeout(() => setSeconds((s) => s - 1), 1000)
    return () => clearTimeout(timer)
  }, [seconds])

  const resend = async () => {
    if (!email.trim()) {
      notify(t('register.emailRequired'), { type: 'error' })
      return
    }
    setBusy(true)
    try {
      await resendVerification(email.trim())
      notify(t('register.resent'), { type: 'success' })
      setSeconds(RESEND_COOLDOWN_SECONDS)
    } catch (error) {
      const wait = isApiError(error, 'RATE_LIMITED') ? error.details?.retryAfterSeconds : undefined
      if (wait) setSeconds(wait)
      else notify(apiErrorMessage(tCommon, error, { otherwise: t('register.resendFailed') }), { type: 'error' })
    } finally {
      setBusy(false)
    }
  }

  return (
    <button
      type="button"
      className="button-ghost border border-zinc-700"
      onClick={resend}
      disabled={busy || seconds > 0}
      data-testid="resend-verification"
    >
      {busy
        ? t('register.resending')
        : seconds > 0
          ? t('register.resendIn', { seconds })
          : (label ?? t('register.resend'))}
    </button>
  )
}
