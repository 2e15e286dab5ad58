import { WifiOff } from 'lucide-react'
import { useEffect, useId, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'

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
  const dialog = useRef<HTMLDialogElement>(null)
  const [open, setOpen] = useState(false)
  const id = useId()

  useEffect(() => {
    const element = dialog.current
    if (element && !element.open) element.showModal()
    return () => element?.close()
  }, [])

  return (
    <dialog
      ref={dialog}
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-text`}
      onCancel={(event) => {
        event.preventDefault()
        onClose()
      }}
      className="m-auto w-[min(92vw,30rem)] rounded-2xl border border-zinc-700 bg-zinc-900 p-6 text-zinc-100 shadow-2xl backdrop:bg-black/70"
    >
      <WifiOff aria-hidden="true" className="size-9 text-rose-400" />
      <h2 id={`${id}-title`} className="mt-3 text-xl font-semibold">
        {t('connection.title')}
      </h2>
      <p id={`${id}-text`} className="mt-2 text-zinc-300">
        {message}
      </p>
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
      <div className="mt-6 flex flex-wrap justify-end gap-2">
        <button type="button" className="button-ghost" onClick={onClose}>
          {t('connection.close')}
        </button>
        {onRetry ? (
          <button type="button" className="button-primary" onClick={onRetry}>
            {t('retry')}
          </button>
        ) : null}
      </div>
    </dialog>
  )
}
