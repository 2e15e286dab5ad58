/** A console form's text field (one height, the focus and invalid borders of every console form). */
export const fieldClass =
  'h-10 w-full rounded-lg border border-zinc-700 bg-zinc-950 px-3 text-zinc-100 focus:border-violet-400 focus:outline-none aria-[invalid=true]:border-rose-400'

/**
 * The required note of a console action (why it was done, kept in the audit log): its label and a
 * text area written in the staff member's own direction. `describedBy` points at the problem when
 * the note is what is wrong.
 */
export function NoteField({
  id,
  label,
  value,
  onChange,
  invalid,
  describedBy,
  rows = 3,
  maxLength,
}: {
  id: string
  label: string
  value: string
  onChange: (value: string) => void
  invalid: boolean
  describedBy?: string
  rows?: number
  maxLength?: number
}) {
  return (
    <div>
      <label htmlFor={id} className="mb-1 block text-sm font-medium">
        {label}
      </label>
      <textarea
        id={id}
        dir="auto"
        rows={rows}
        maxLength={maxLength}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        aria-invalid={invalid}
        aria-describedby={describedBy}
        className={`${fieldClass} h-auto py-2`}
      />
    </div>
  )
}
