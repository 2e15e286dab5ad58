import { Flag } from 'lucide-react'
import { useState } from 'react'
import { Dialog, DialogActions, DialogDescription, DialogTitle } from '#app/components/dialog.tsx'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { notify } from '#app/lib/notify.tsx'
import { CHARACTER_LIMITS, REPORT_REASONS, type ReportReason } from '#contracts/characters.ts'
import { reportRole } from '../api/report-role.ts'

/** The "Report" button of a character page and its dialog (reason, free text). */
export function ReportButton({ roleId, name }: { roleId: string; name: string }) {
  const { t } = useTranslation('characters-edit')
  const [open, setOpen] = useState(false)
  return (
    <>
      <button type="button" className="button-ghost" onClick={() => setOpen(true)} data-testid="report-character">
        <Flag aria-hidden="true" className="size-4" />
        {t('report.button')}
      </button>
      {open ? <ReportDialog roleId={roleId} name={name} onClose={() => setOpen(false)} /> : null}
    </>
  )
}

function ReportDialog({ roleId, name, onClose }: { roleId: string; name: string; onClose: () => void }) {
  const { t } = useTranslation('characters-edit')
  const { t: tCommon } = useTranslation()
  const [reason, setReason] = useState<ReportReason | null>(null)
  const [text, setText] = useState('')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)

  const send = async (event: React.FormEvent) => {
    event.preventDefault()
    if (!reason) return
    setBusy(true)
    setError(null)
    try {
      await reportRole(roleId, { reason, text: text.trim() })
      notify(t('report.sent'), { type: 'success' })
      onClose()
    } catch (failure) {
      setError(apiErrorMessage(tCommon, failure))
    } finally {
      setBusy(false)
    }
  }

  return (
    <Dialog onClose={onClose} size="lg">
      <form onSubmit={send}>
        <DialogTitle>{t('report.title', { name })}</DialogTitle>
        <DialogDescription className="mt-2 text-sm text-zinc-300">{t('report.text')}</DialogDescription>
        <fieldset className="mt-4">
          <legend className="mb-2 text-sm font-medium">{t('report.reason')}</legend>
          <div className="space-y-1">
            {REPORT_REASONS.map((value) => (
              <label
                key={value}
                className="flex cursor-pointer items-center gap-2 rounded-lg px-2 py-1.5 hover:bg-zinc-800"
              >
                <input
                  type="radio"
                  name="reason"
                  value={value}
                  checked={reason === value}
                  onChange={() => setReason(value)}
                  className="size-4 accent-violet-500"
                />
                {t(`report.reasons.${value}`)}
              </label>
            ))}
          </div>
        </fieldset>
        <label htmlFor="report-details" className="mt-4 mb-1 block text-sm font-medium">
          {t('report.details')}
        </label>
        <textarea
          id="report-details"
          rows={3}
          value={text}
          maxLength={CHARACTER_LIMITS.reportText}
          dir="auto"
          onChange={(event) => setText(event.target.value)}
          className="w-full rounded-lg border border-zinc-700 bg-zinc-950 px-3 py-2 text-zinc-100 focus:border-violet-400 focus:outline-none"
        />
        {error ? (
          <p role="alert" className="mt-3 rounded-lg bg-rose-950/60 p-3 text-sm text-rose-200">
            {error}
          </p>
        ) : null}
        <DialogActions>
          <button type="button" className="button-ghost" onClick={onClose}>
            {t('report.cancel')}
          </button>
          <button type="submit" className="button-primary" disabled={busy || !reason}>
            {busy ? t('report.sending') : t('report.send')}
          </button>
        </DialogActions>
      </form>
    </Dialog>
  )
}
