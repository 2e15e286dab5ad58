import { WifiOff } from 'lucide-react'
import { useId, useState } from 'react'
import { Dialog, DialogActions, DialogDescription, DialogTitle } from '#app/components/dialog.tsx'
import { useTranslation } from '#app/lib/i18n-react.tsx'

/** 'Connection Error' with Show/Hide Details and Close (spec section 3), plus a one-click retry. */
export function ConnectionErrorDialog({
  message,
  details,
  onClose,
  onRetry,
}: {
  message: string
  details: string
  onClose: () => void
  onRetry?: () => void
}) {
  const { t } = useTranslation('chat')
  const [open, setOpen] = useState(false)
  const id = useId()

  return (
    <Dialog onClose={onClose} size="md">
      <WifiOff aria-hidden="true" className="size-9 text-rose-400" />
      <DialogTitle className="mt-3">{t('connection.title')}</DialogTitle>
      <DialogDescription className="mt-2 text-zinc-300">{message}</DialogDescription>
      <button
        type="button"
        className="button-ghost mt-3 px-0"
        aria-expanded={open}
        aria-controls={`${id}-details`}
        onClick={() => setOpen(!open)}
      >
        {open ? t('connection.hideDetails') : t('connection.showDetails')}
      </button>
      {open ? (
        <pre
          id={`${id}-details`}
          className="mt-2 max-h-48 overflow-auto whitespace-pre-wrap rounded-lg bg-zinc-950 p-3 text-xs text-zinc-300"
        >
          {details}
        </pre>
      ) : null}
      <DialogActions>
        <button type="button" className="button-ghost" onClick={onClose}>
          {t('connection.close')}
        </button>
        {onRetry ? (
          <button type="button" className="button-primary" onClick={onRetry}>
            {t('retry')}
          </button>
        ) : null}
      </DialogActions>
    </Dialog>
  )
}
