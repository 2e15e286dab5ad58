import { useState } from 'react'
import { Dialog, DialogActions, DialogDescription, DialogTitle } from '#app/components/dialog.tsx'

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
  const [busy, setBusy] = useState(false)
  const [problem, setProblem] = useState<string | null>(null)

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
    <Dialog onClose={onClose}>
      <DialogTitle>{title}</DialogTitle>
      <DialogDescription className="mt-2 text-sm text-zinc-300">{text}</DialogDescription>
      {problem ? (
        <p role="alert" className="mt-3 text-sm text-rose-300">
          {problem}
        </p>
      ) : null}
      <DialogActions>
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
      </DialogActions>
    </Dialog>
  )
}
