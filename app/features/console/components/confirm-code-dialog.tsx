import { type FormEvent, useState } from 'react'
import { Dialog, DialogActions, DialogDescription, DialogTitle } from '#app/components/dialog.tsx'
import { useConsoleSubmit } from '#app/features/console/use-console-submit.ts'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { adminApi } from '../admin-api.ts'
import { cleanCode } from '../console-state.ts'
import { CodeField } from './code-field.tsx'

/**
 * The fresh confirmation (ADR 054): a sensitive call answered CONFIRMATION_REQUIRED; a current
 * code renews it (`POST /api/admin/confirm`) and `onDone(true)` lets the call repeat once.
 */
export function ConfirmCodeDialog({ onDone }: { onDone: (confirmed: boolean) => void }) {
  const { t } = useTranslation('console')
  const { t: tc } = useTranslation()
  const [code, setCode] = useState('')
  const { busy, problem, run } = useConsoleSubmit((error) => apiErrorMessage(tc, error))

  const submit = (event: FormEvent) => {
    event.preventDefault()
    void run(async () => {
      await adminApi('/admin/confirm', { method: 'POST', body: { code: cleanCode(code) } })
      onDone(true)
    })
  }

  return (
    <Dialog onClose={() => onDone(false)} testId="confirm-code-dialog">
      <form onSubmit={submit} noValidate>
        <DialogTitle>{t('confirm.title')}</DialogTitle>
        <DialogDescription className="mt-2 mb-4 text-sm text-zinc-300">{t('confirm.text')}</DialogDescription>
        <CodeField
          label={t('code.label')}
          value={code}
          onChange={setCode}
          problem={problem}
          autoFocus
          testId="confirm-code"
        />
        <DialogActions>
          <button type="button" className="button-secondary" onClick={() => onDone(false)}>
            {t('cancel')}
          </button>
          <button
            type="submit"
            className="button-primary"
            disabled={busy || !code.trim()}
            data-testid="confirm-code-submit"
          >
            {busy ? t('busy') : t('confirm.submit')}
          </button>
        </DialogActions>
      </form>
    </Dialog>
  )
}
