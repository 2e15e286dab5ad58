import { useId } from 'react'

const inputClass =
  'w-full rounded-lg border border-zinc-700 bg-zinc-950 px-3 text-zinc-100 focus:border-violet-400 focus:outline-none aria-[invalid=true]:border-rose-400'

/**
 * A one-time code: `autocomplete="one-time-code"`; numeric keyboard unless recovery codes (letters)
 * are accepted too. The problem, when there is one, is read with the field.
 */
export function CodeField({
  label,
  hint,
  value,
  onChange,
  problem,
  recovery = false,
  autoFocus = false,
  testId,
}: {
  label: string
  hint?: string
  value: string
  onChange: (value: string) => void
  problem?: string | null
  recovery?: boolean
  autoFocus?: boolean
  testId?: string
}) {
  const id = useId()
  const described = [hint ? `${id}-hint` : null, problem ? `${id}-problem` : null].filter(Boolean).join(' ')
  return (
    <div>
      <label htmlFor={id} className="mb-1 block text-sm font-medium">
        {label}
      </label>
      <input
        id={id}
        name="code"
        type="text"
        dir="ltr"
        required
        // biome-ignore lint/a11y/noAutofocus: the dialog or page exists only to take this code
        autoFocus={autoFocus}
        autoComplete="one-time-code"
        inputMode={recovery ? 'text' : 'numeric'}
        pattern={recovery ? undefined : '[0-9 ]{6,7}'}
        maxLength={40}
        spellCheck={false}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        aria-invalid={problem ? true : undefined}
        aria-describedby={described || undefined}
        className={`${inputClass} h-11 font-mono tracking-widest`}
        data-testid={testId}
      />
      {hint ? (
        <p id={`${id}-hint`} className="mt-1 text-sm text-zinc-400">
          {hint}
        </p>
      ) : null}
      {problem ? (
        <p id={`${id}-problem`} role="alert" className="mt-1 text-sm text-rose-300">
          {problem}
        </p>
      ) : null}
    </div>
  )
}

export { inputClass }
