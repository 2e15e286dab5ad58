import { ShieldAlert } from 'lucide-react'
import { useEffect, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { api } from '#app/lib/http.ts'
import { notify } from '#app/lib/notify.tsx'

/**
 * Asks a viewer to confirm they are 18 or older before an adult character is shown. The answer is
 * kept by the server (cookie, and the account when signed in), which then sends the real content.
 */
export function AgeGateDialog({ onConfirmed, onCancel }: { onConfirmed: () => void; onCancel: () => void }) {
  const { t } = useTranslation('catalogue')
  const dialog = useRef<HTMLDialogElement>(null)
  const [busy, setBusy] = useState(false)

  useEffect(() => {
    const element = dialog.current
    if (element && !element.open) element.showModal()
    return () => element?.close()
  }, [])

  const confirm = async () => {
    setBusy(true)
    try {
      await api('/public/age-confirmation', { method: 'POST', body: { confirmed: true } })
      dialog.current?.close()
      onConfirmed()
    } catch {
      notify(t('ageGate.failed'), { type: 'error' })
    } finally {
      setBusy(false)
    }
  }

  return (
    <dialog
      ref={dialog}
      aria-labelledby="age-gate-title"
      aria-describedby="age-gate-text"
      onCancel={(event) => {
        event.preventDefault()
        onCancel()
      }}
      className="m-auto w-[min(92vw,28rem)] rounded-2xl border border-zinc-700 bg-zinc-900 p-6 text-zinc-100 shadow-2xl backdrop:bg-black/70"
    >
      <ShieldAlert aria-hidden="true" className="size-10 text-rose-400" />
      <h2 id="age-gate-title" className="mt-3 text-xl font-semibold">
        {t('ageGate.title')}
      </h2>
      <p id="age-gate-text" className="mt-2 text-zinc-300">
        {t('ageGate.text')}
      </p>
      <div className="mt-6 flex flex-wrap justify-end gap-2">
        <button type="button" className="button-ghost" onClick={onCancel}>
          {t('ageGate.cancel')}
        </button>
        <button type="button" className="button-primary" disabled={busy} onClick={confirm} data-testid="age-confirm">
          {t('ageGate.confirm')}
        </button>
      </div>
    </dialog>
  )
}
