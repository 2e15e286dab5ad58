import { Download } from 'lucide-react'
import type { ReactNode } from 'react'

/** One format's download button; all of them are off while any download runs. */
export function DownloadButton({
  busy,
  onClick,
  label,
  testId,
  children,
}: {
  busy: boolean
  onClick: () => void
  /** The accessible name, where the visible text alone does not say what is downloaded. */
  label?: string
  testId?: string
  children: ReactNode
}) {
  return (
    <button
      type="button"
      className="button-ghost"
      disabled={busy}
      onClick={onClick}
      aria-label={label}
      data-testid={testId}
    >
      <Download aria-hidden="true" className="size-4" />
      {children}
    </button>
  )
}
