import { createContext, type ReactNode, type RefObject, useContext, useEffect, useId, useRef } from 'react'

/**
 * The app's one modal dialog: a native `<dialog>` opened with `showModal()`, which keeps focus
 * inside it and makes the page behind it inert. Escape (the dialog's `cancel`) calls `onClose`
 * and leaves the closing to the caller; when the dialog closes, focus goes back to what had it
 * before (the button that opened it). `DialogTitle` and `DialogDescription` name and describe it
 * (aria-labelledby, aria-describedby).
 */

/** Widths: narrow confirmations, the connection error, forms, and the memory note. */
const WIDTHS = {
  sm: 'w-[min(92vw,28rem)]',
  md: 'w-[min(92vw,30rem)]',
  lg: 'w-[min(94vw,32rem)]',
  xl: 'w-[min(92vw,36rem)]',
} as const

const SHELL = 'm-auto rounded-2xl border border-zinc-700 bg-zinc-900 p-6 text-zinc-100 shadow-2xl backdrop:bg-black/70'

type Ids = { titleId: string; descriptionId: string }
const DialogIds = createContext<Ids>({ titleId: '', descriptionId: '' })

type DialogProps = {
  /** Open while mounted unless told otherwise: a dialog that keeps its state while closed passes it. */
  open?: boolean
  onClose: () => void
  size?: keyof typeof WIDTHS
  /** Set when a DialogDescription is inside. */
  described?: boolean
  testId?: string
  children: ReactNode
}

export function Dialog({ open = true, onClose, size = 'sm', described = true, testId, children }: DialogProps) {
  const dialog = useRef<HTMLDialogElement>(null)
  const titleId = useId()
  const descriptionId = useId()
  useModal(dialog, open)
  return (
    <dialog
      ref={dialog}
      aria-labelledby={titleId}
      aria-describedby={described ? descriptionId : undefined}
      onCancel={(event) => {
        event.preventDefault()
        onClose()
      }}
      className={`${SHELL} ${WIDTHS[size]}`}
      data-testid={testId}
    >
      <DialogIds.Provider value={{ titleId, descriptionId }}>{children}</DialogIds.Provider>
    </dialog>
  )
}

/** The dialog's name: an `<h2>` its `aria-labelledby` points to. */
export function DialogTitle({ className = '', children }: { className?: string; children: ReactNode }) {
  const { titleId } = useContext(DialogIds)
  return (
    <h2 id={titleId} className={`text-xl font-semibold ${className}`.trim()}>
      {children}
    </h2>
  )
}

/** The dialog's explanation, read with its name (`aria-describedby`). */
export function DialogDescription({ className, children }: { className: string; children: ReactNode }) {
  const { descriptionId } = useContext(DialogIds)
  return (
    <p id={descriptionId} className={className}>
      {children}
    </p>
  )
}

/** The row of buttons at the bottom, the main action last (at the end of the line). */
export function DialogActions({
  className = 'mt-6 flex flex-wrap',
  children,
}: {
  className?: string
  children: ReactNode
}) {
  return <div className={`${className} justify-end gap-2`}>{children}</div>
}

/**
 * Shows `dialog` as a modal while `open`, and closes it when `open` turns false or on unmount;
 * then gives focus back to the element that had it when the dialog opened.
 */
export function useModal(dialog: RefObject<HTMLDialogElement | null>, open = true) {
  useEffect(() => {
    const element = dialog.current
    if (!element || !open) return
    const opener = document.activeElement
    if (!element.open) element.showModal()
    return () => {
      if (element.open) element.close()
      if (opener instanceof HTMLElement && opener.isConnected) opener.focus()
    }
  }, [dialog, open])
}
