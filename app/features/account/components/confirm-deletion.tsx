import { type FormEvent, useId, useState } from 'react'
import { useNavigate } from 'react-router'
import { Dialog, DialogActions, DialogDescription, DialogTitle } from '#app/components/dialog.tsx'
import { useLocalizePath } from '#app/components/localized-link.tsx'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { notify } from '#app/lib/notify.tsx'
import { clearTokens } from '#app/lib/session.ts'
import type { AccountSummary } from '#contracts/account-schemas.ts'
import { deleteAccount } from '../api/account.ts'

/** Asks for the password (or, for an account without one, the e-mail address) before deleting. */
export function ConfirmDeletion({ account, onClose }: { account: AccountSummary; onClose: () => void }) {
  const { t } = useTranslation('account')
  const { t: tCommon } = useTranslation()
  const navigate = useNavigate()
  const localize = useLocalizePath()
  const inputId = useId()
  const errorId = useId()
  const [value, setValue] = useState('')
  const [busy, setBusy] = useState(false)
  const [problem, setProblem] = useState<string | null>(null)

  const submit = async (event: FormEvent) => {
    event.preventDefault()
    setBusy(true)
    setProblem(null)
    try {
      await deleteAccount(account.hasPassword ? { password: value } : { email: value })
      clearTokens()
      notify(t('delete.done'), { type: 'success' })
      navigate(localize('/'), { replace: true })
    } catch (error) {
      setBusy(false)
      setProblem(
        apiErrorMessage(tCommon, error, {
          own: {
            INVALID_CREDENTIALS: () => (account.hasPassword ? t('delete.wrongPassword') : t('delete.wrongEmail')),
            CONFLICT: (details) => (details?.reason === 'subscription-renews' ? t('delete.planRenews') : undefined),
          },
        }),
      )
    }
  }

  return (
    <Dialog onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <DialogTitle>{t('delete.dialogTitle')}</DialogTitle>
        <DialogDescription className="mt-2 text-sm text-zinc-300">{t('delete.dialogText')}</DialogDescription>
        <label htmlFor={inputId} className="mt-4 block text-sm font-medium">
          {account.hasPassword ? t('delete.passwordLabel') : t('delete.emailLabel')}
        </label>
        <input
          id={inputId}
          type={account.hasPassword ? 'password' : 'email'}
          autoComplete={account.hasPassword ? 'current-password' : 'off'}
          dir="ltr"
          required
          value={value}
          onChange={(event) => setValue(event.target.value)}
          aria-invalid={problem ? true : undefined}
          aria-describedby={problem ? errorId : undefined}
          className="mt-1 h-10 w-full rounded-lg border border-zinc-700 bg-zinc-950 px-3 text-zinc-100 focus:border-violet-400 focus:outline-none"
          data-testid="delete-confirmation"
        />
        {problem ? (
          <p id={errorId} role="alert" className="mt-2 text-sm text-rose-300">
            {problem}
          </p>
        ) : null}
        <DialogActions>
          <button type="button" className="button-ghost" onClick={onClose}>
            {t('delete.cancel')}
          </button>
          <button
            type="submit"
            className="button-primary bg-rose-700 hover:bg-rose-800"
            disabled={busy || value.length === 0}
            data-testid="confirm-delete-account"
          >
            {busy ? t('delete.busy') : t('delete.confirm')}
          </button>
        </DialogActions>
      </form>
    </Dialog>
  )
}
