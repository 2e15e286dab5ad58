import { ShieldAlert } from 'lucide-react'
import { useState } from 'react'
import { Dialog, DialogActions, DialogDescription, DialogTitle } from '#app/components/dialog.tsx'
import { api } from '#app/lib/http.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { notify } from '#app/lib/notify.tsx'

/**
 * Asks a viewer to confirm they are 18 or older before an adult character is shown. The answer is
 * kept by the server (cookie, and the account when signed in), which then sends the real content.
 */
export function AgeGateDialog({ onConfirmed, onCancel }: { onConfirmed: () => void; onCancel: () => void }) {
  const { t } = useTranslation('catalogue')
  const [busy, setBusy] = useState(false)
  // Closed as soon as the server took the answer, while the page reloads its data behind it.
  const [open, setOpen] = useState(true)

  const confirm = async () => {
    setBusy(true)
    try {
      await api('/public/age-confirmation', { method: 'POST', body: { confirmed: true } })
      setOpen(false)
      onConfirmed()
    } catch {
      notify(t('ageGate.failed'), { type: 'error' })
    } finally {
      setBusy(false)
    }
  }

  return (
    <Dialog open={open} onClose={onCancel}>
      <ShieldAlert aria-hidden="true" className="size-10 text-rose-400" />
      <DialogTitle className="mt-3">{t('ageGate.title')}</DialogTitle>
      <DialogDescription className="mt-2 text-zinc-300">{t('ageGate.text')}</DialogDescription>
      <DialogActions>
        <button type="button" className="button-ghost" onClick={onCancel}>
          {t('ageGate.cancel')}
        </button>
        <button type="button" className="button-primary" disabled={busy} onClick={confirm} data-testid="age-confirm">
          {t('ageGate.confirm')}
        </button>
      </DialogActions>
    </Dialog>
  )
}
