import { type FormEvent, type ReactNode, useId, useState } from 'react'
import { Dialog, DialogActions, DialogDescription, DialogTitle } from '#app/components/dialog.tsx'
import { useConsoleSubmit } from '#app/features/console/use-console-submit.ts'
import { inputClass } from './code-field.tsx'

type NoteDialogProps = {
  title: string
  text: string
  noteLabel: string
  cancelLabel: string
  confirmLabel: string
  busyLabel: string
  danger?: boolean
  /** Fields the action needs besides the note (new names, the tag to merge into). */
  children?: ReactNode
  /** The action with the note written; when it throws, `describeError` says why and the dialog stays open. */
  onConfirm: (note: string) => Promise<void>
  describeError: (error: unknown) => string
  onClose: () => void
}

/**
 * A console action that needs a note (every moderation action is audited with one, ADR 059): the
 * action's own fields, the note, Cancel and the action's button (enabled once the note is written).
 */
export function NoteDialog(props: NoteDialogProps) {
  const id = useId()
  const [note, setNote] = useState('')
  const { busy, problem, run } = useConsoleSubmit(props.describeError)

  const submit = (event: FormEvent) => {
    event.preventDefault()
    void run(() => props.onConfirm(note.trim()))
  }

  return (
    <Dialog onClose={props.onClose} size="md" testId="note-dialog">
      <form onSubmit={submit} noValidate>
        <DialogTitle>{props.title}</DialogTitle>
        <DialogDescription className="mt-2 text-sm text-zinc-300">{props.text}</DialogDescription>
        <div className="mt-4 grid gap-3">
          {props.children}
          <div>
            <label htmlFor={`${id}-note`} className="mb-1 block text-sm font-medium">
              {props.noteLabel}
            </label>
            <textarea
              id={`${id}-note`}
              dir="auto"
              required
              maxLength={2000}
              rows={3}
              value={note}
              onChange={(event) => setNote(event.target.value)}
              className={`${inputClass} py-2`}
              data-testid="note-field"
            />
          </div>
        </div>
        {problem ? (
          <p role="alert" className="mt-3 text-sm text-rose-300">
            {problem}
          </p>
        ) : null}
        <DialogActions>
          <button type="button" className="button-ghost" onClick={props.onClose}>
            {props.cancelLabel}
          </button>
          <button
            type="submit"
            className={props.danger ? 'button-primary bg-rose-700 hover:bg-rose-800' : 'button-primary'}
            disabled={busy || !note.trim()}
            data-testid="note-confirm"
          >
            {busy ? props.busyLabel : props.confirmLabel}
          </button>
        </DialogActions>
      </form>
    </Dialog>
  )
}
