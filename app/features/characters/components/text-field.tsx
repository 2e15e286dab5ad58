import { useTranslation } from '#app/lib/i18n-react.tsx'
import { type FieldProblem, textLength } from '#contracts/characters.ts'
import { fieldErrorText } from './field-error.ts'

export const inputClass =
  'w-full rounded-lg border bg-zinc-950 px-3 text-zinc-100 focus:border-violet-400 focus:outline-none aria-[invalid=true]:border-rose-400'

/**
 * A labelled text input or text area with its hint, a character counter against its limit and its
 * error, all tied to the control for screen readers (aria-describedby, aria-invalid).
 */
export function TextField({
  id,
  label,
  hint,
  value,
  onChange,
  limit,
  problem,
  rows,
  required,
  onBlur,
  lang,
  describedBy,
}: {
  id: string
  label: string
  hint?: string
  value: string
  onChange: (value: string) => void
  limit: number
  problem?: FieldProblem | undefined
  /** A text area of this many rows; an input without it. */
  rows?: number
  required?: boolean
  onBlur?: () => void
  /** The language of the text typed here (BCP 47), when known: the character's, or a translation's. */
  lang?: string
  /** More ids describing the control (the original text beside a translation). */
  describedBy?: string
}) {
  const { t } = useTranslation('characters-edit')
  const count = textLength(value)
  const over = count > limit
  const description = [describedBy, hint ? `${id}-hint` : null, problem ? `${id}-error` : null, `${id}-count`]
    .filter(Boolean)
    .join(' ')
  const common = {
    id,
    name: id,
    value,
    onBlur,
    dir: 'auto' as const,
    lang,
    required,
    'aria-invalid': problem ? true : undefined,
    'aria-describedby': description,
    onChange: (event: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => onChange(event.target.value),
  }
  return (
    <div className="mb-5">
      <div className="mb-1 flex items-baseline justify-between gap-3">
        <label htmlFor={id} className="text-sm font-medium">
          {label}
          {required ? (
            <span aria-hidden="true" className="ms-0.5 text-rose-300">
              *
            </span>
          ) : null}
        </label>
        <span
          id={`${id}-count`}
          className={`shrink-0 text-xs tabular-nums ${over ? 'font-semibold text-rose-300' : 'text-zinc-400'}`}
        >
          {t('form.counter', { count, limit })}
        </span>
      </div>
      {rows ? (
        <textarea {...common} rows={rows} className={`${inputClass} border-zinc-700 py-2 leading-relaxed`} />
      ) : (
        <input {...common} type="text" className={`${inputClass} h-11 border-zinc-700`} />
      )}
      {hint ? (
        <p id={`${id}-hint`} className="mt-1 text-xs text-zinc-400">
          {hint}
        </p>
      ) : null}
      {problem ? (
        <p id={`${id}-error`} className="mt-1 text-sm text-rose-300" data-testid={`error-${id}`}>
          {fieldErrorText(t, problem)}
        </p>
      ) : null}
    </div>
  )
}
