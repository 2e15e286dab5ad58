import { type RefObject, useEffect, useId, useRef, useState } from 'react'

/** The look of the app's modal dialogs (a native `<dialog>` opened with `showModal`). */
export const MODAL_DIALOG_CLASS =
  'm-auto w-[min(92vw,28rem)] rounded-2xl border border-zinc-700 bg-zinc-900 p-6 text-zinc-100 shadow-2xl backdrop:bg-black/70'

/** Opens `dialog` as a modal while the component is mounted, and closes it on unmount. */
export function useModal(dialog: RefObject<HTMLDialogElement | null>) {
  useEffect(() => {
    const element = dialog.current
    if (element && !element.open) element.showModal()
    return () => element?.close()
  }, [dialog])
}

type ConfirmDialogProps = {
  title: string
  text: string
  cancelLabel: string
  confirmLabel: string
  /** Shown on the confirm button while `onConfirm` runs. */
  busyLabel: string
  /** A destructive action: the confirm button is red. */
  danger?: boolean
  confirmTestId?: string
  /** The action; when it throws, `describeError` says why in the dialog and it stays open. */
  onConfirm: () => Promise<void>
  describeError: (error: unknown) => string
  /** Cancel, Escape, or after the action when the caller unmounts the dialog. */
  onClose: () => void
}

/** "Are you sure?" before an account action: title, explanation, Cancel and the action's button. */
export function ConfirmDialog({
  title,
  text,
  cancelLabel,
  confirmLabel,
  busyLabel,
  danger = false,
  confirmTestId,
  onConfirm,
  describeError,
  onClose,
}: ConfirmDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null)
  const titleId = useId()
  const textId = useId()
  const [busy, setBusy] = useState(false)
  const [problem, setProblem] = useState<string | null>(null)
  useModal(dialog)

  const confirm = async () => {
    setBusy(true)
    setProblem(null)
    try {
      await onConfirm()
    } catch (error) {
      setBusy(false)
      setProblem(describeError(error))
    }
  }

  return (
    <dialog
      ref={dialog}
      aria-labelledby={titleId}
      aria-describedby={textId}
      onCancel={(event) => {
        event.preventDefault()
        onClose()
      }}
      className={MODAL_DIALOG_CLASS}
    >
      <h2 id={titleId} className="text-xl font-semibold">
        {title}
      </h2>
      <p id={textId} className="mt-2 text-sm text-zinc-300">
        {text}
      </p>
      {problem ? (
        <p role="alert" className="mt-3 text-sm text-rose-300">
          {problem}
        </p>
      ) : null}
      <div className="mt-6 flex flex-wrap justify-end gap-2">
        <button type="button" className="button-ghost" onClick={onClose}>
          {cancelLabel}
        </button>
        <button
          type="button"
          className={danger ? 'button-primary bg-rose-700 hover:bg-rose-800' : 'button-primary'}
          onClick={confirm}
          disabled={busy}
          data-testid={confirmTestId}
        >
          {busy ? busyLabel : confirmLabel}
        </button>
      </div>
    </dialog>
  )
}
