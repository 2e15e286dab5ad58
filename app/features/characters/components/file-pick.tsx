import { FileUp } from 'lucide-react'
import type { FilePick } from '../hooks/use-file-pick.ts'

/**
 * The hidden file input of `picker` and the button that opens it. With `ids` the input is named by
 * the button (and reachable as a labelled control); without, it is hidden from assistive technology.
 */
export function FilePickButton({
  picker,
  accept,
  label,
  busyLabel,
  className,
  testId,
  ids,
}: {
  picker: FilePick
  accept: string
  label: string
  busyLabel: string
  className: string
  testId: string
  ids?: { input: string; button: string }
}) {
  return (
    <>
      <input
        ref={picker.input}
        type="file"
        accept={accept}
        className="sr-only"
        {...(ids ? { id: ids.input, 'aria-labelledby': ids.button } : { tabIndex: -1, 'aria-hidden': true })}
        onChange={(event) => picker.pick(event.target.files?.[0])}
        data-testid={testId}
      />
      <button
        id={ids?.button}
        type="button"
        className={className}
        disabled={picker.busy}
        onClick={() => picker.input.current?.click()}
      >
        <FileUp aria-hidden="true" className="size-4" />
        {picker.busy ? busyLabel : label}
      </button>
    </>
  )
}

/** Why the last file could not be read, or nothing. */
export function FileProblem({ problem }: { problem: string | null }) {
  return problem ? (
    <p role="alert" className="mt-3 rounded-lg bg-rose-950/60 p-3 text-sm text-rose-200">
      {problem}
    </p>
  ) : null
}
