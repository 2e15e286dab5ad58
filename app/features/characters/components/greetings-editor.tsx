import { Plus, Trash2 } from 'lucide-react'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { CHARACTER_LIMITS, type FieldProblem } from '#contracts/characters.ts'
import { fieldErrorText } from './field-error.ts'
import { TextField } from './text-field.tsx'

/** Alternate greetings: one text area each, removable, and "Add a greeting" up to the limit. */
export function GreetingsEditor({
  value,
  onChange,
  problems,
  lang,
}: {
  value: string[]
  onChange: (greetings: string[]) => void
  problems: FieldProblem[]
  /** The language the greetings are written in (BCP 47). */
  lang?: string
}) {
  const { t } = useTranslation('characters-edit')
  const listProblem = problems.find((p) => p.path === 'alternateGreetings')
  const full = value.length >= CHARACTER_LIMITS.greetings
  return (
    <fieldset className="mb-5" aria-describedby="greetings-hint">
      <legend className="mb-1 text-sm font-medium">{t('form.alternateGreetings')}</legend>
      <p id="greetings-hint" className="mb-3 text-xs text-zinc-400">
        {t('form.alternateGreetingsHint')}
      </p>
      {value.length === 0 ? <p className="mb-3 text-sm italic text-zinc-400">{t('form.noGreetings')}</p> : null}
      <ol className="space-y-1">
        {value.map((greeting, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: greetings have no identity but their place.
          <li key={index} className="relative rounded-xl border border-zinc-800 p-3 pb-0">
            <TextField
              id={`greeting-${index}`}
              label={t('form.greeting', { number: index + 1 })}
              value={greeting}
              rows={3}
              lang={lang}
              limit={CHARACTER_LIMITS.greeting}
              problem={problems.find((p) => p.path === `alternateGreetings.${index}`)}
              onChange={(text) => onChange(value.map((g, i) => (i === index ? text : g)))}
            />
            <button
              type="button"
              className="button-ghost absolute -top-3 end-3 bg-zinc-950"
              aria-label={t('form.removeGreeting', { number: index + 1 })}
              onClick={() => onChange(value.filter((_, i) => i !== index))}
            >
              <Trash2 aria-hidden="true" className="size-4" />
            </button>
          </li>
        ))}
      </ol>
      {listProblem ? <p className="mt-1 text-sm text-rose-300">{fieldErrorText(t, listProblem)}</p> : null}
      <button
        type="button"
        className="button-secondary mt-3 px-4 py-2 text-sm"
        disabled={full}
        onClick={() => onChange([...value, ''])}
      >
        <Plus aria-hidden="true" className="size-4" />
        {t('form.addGreeting')}
      </button>
    </fieldset>
  )
}
