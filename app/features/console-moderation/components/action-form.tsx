import { type FormEvent, useEffect, useId, useRef, useState } from 'react'
import { NoteField } from '#app/features/console/components/note-field.tsx'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { NOTE_MAX_LENGTH } from '#contracts/admin-moderation.ts'

export type Choice<A extends string> = { value: A; label: string; disabled?: boolean }

/**
 * A moderation action in two steps: pick one (radio buttons, arrow keys move between them) and write
 * the required note, then "Confirm" after reading what it does. The server may ask for a fresh code
 * (the console's dialog) before it acts. `run` answers the result in words.
 */
export function ActionForm<A extends string>({
  title,
  intro,
  choices,
  notes,
  confirmText,
  run,
  onDone,
  testId,
}: {
  title: string
  intro: string
  choices: Choice<A>[]
  /** Lines under the choices (why one is not offered). */
  notes?: string[]
  confirmText: (choice: Choice<A>) => string
  run: (action: A, note: string) => Promise<string>
  onDone: (message: string) => void
  testId: string
}) {
  const { t } = useTranslation('console-moderation')
  const { t: tc } = useTranslation()
  const id = useId()
  const [action, setAction] = useState<A | null>(null)
  const [note, setNote] = useState('')
  const [confirming, setConfirming] = useState(false)
  const [problem, setProblem] = useState<{ field?: 'action' | 'note'; text: string } | null>(null)
  const [busy, setBusy] = useState(false)
  const confirmButton = useRef<HTMLButtonElement>(null)
  const chosen = choices.find((choice) => choice.value === action) ?? null

  // The keyboard carries on at the confirmation that replaced the form.
  useEffect(() => {
    if (confirming) confirmButton.current?.focus()
  }, [confirming])

  const review = (event: FormEvent) => {
    event.preventDefault()
    if (!chosen) return setProblem({ field: 'action', text: t('form.chooseRequired') })
    if (!note.trim()) return setProblem({ field: 'note', text: t('form.noteRequired') })
    setProblem(null)
    setConfirming(true)
  }

  const confirm = async () => {
    if (!chosen) return
    setBusy(true)
    setProblem(null)
    try {
      onDone(await run(chosen.value, note.trim()))
    } catch (error) {
      setProblem({
        text: apiErrorMessage(tc, error, {
          own: { CONFLICT: (details) => (details?.reason === 'no-creator' ? t('handle.noCreator') : undefined) },
        }),
      })
      setBusy(false)
    }
  }

  return (
    <section
      aria-labelledby={`${id}-title`}
      className="rounded-2xl border border-zinc-800 bg-zinc-900 p-5"
      data-testid={testId}
    >
      <h2 id={`${id}-title`} className="text-lg font-semibold">
        {title}
      </h2>
      <p className="mt-1 mb-4 text-sm text-zinc-400">{intro}</p>
      {confirming && chosen ? (
        <div>
          <p className="font-semibold">{confirmText(chosen)}</p>
          <blockquote
            className="mt-2 mb-4 border-s-2 border-zinc-700 ps-3 text-zinc-300 whitespace-pre-wrap"
            dir="auto"
          >
            {note.trim()}
          </blockquote>
          {problem ? (
            <p role="alert" className="mb-3 text-rose-300">
              {problem.text}
            </p>
          ) : null}
          <div className="flex flex-wrap gap-2">
            <button
              ref={confirmButton}
              type="button"
              className="button-primary"
              disabled={busy}
              onClick={() => void confirm()}
            >
              {t('form.confirm')}
            </button>
            <button type="button" className="button-secondary" disabled={busy} onClick={() => setConfirming(false)}>
              {t('form.change')}
            </button>
          </div>
        </div>
      ) : (
        <form onSubmit={review} noValidate className="space-y-4">
          <fieldset aria-describedby={problem?.field === 'action' ? `${id}-problem` : undefined}>
            <legend className="mb-2 text-sm font-medium">{t('form.choose')}</legend>
            <div className="space-y-1">
              {choices.map((choice) => (
                <label
                  key={choice.value}
                  className={`flex items-center gap-2 rounded-lg px-2 py-1.5 ${choice.disabled ? 'text-zinc-500' : 'cursor-pointer hover:bg-zinc-800'}`}
                >
                  <input
                    type="radio"
                    name={`${id}-action`}
                    value={choice.value}
                    checked={action === choice.value}
                    disabled={choice.disabled}
                    onChange={() => setAction(choice.value)}
                    className="accent-violet-500"
                  />
                  {choice.label}
                </label>
              ))}
            </div>
            {notes?.map((line) => (
              <p key={line} className="mt-2 text-sm text-zinc-400">
                {line}
              </p>
            ))}
          </fieldset>
          <NoteField
            id={`${id}-note`}
            label={t('form.note')}
            value={note}
            onChange={setNote}
            invalid={problem?.field === 'note'}
            describedBy={problem?.field === 'note' ? `${id}-problem` : undefined}
            maxLength={NOTE_MAX_LENGTH}
          />
          {problem ? (
            <p id={`${id}-problem`} role="alert" className="text-rose-300">
              {problem.text}
            </p>
          ) : null}
          <button type="submit" className="button-primary">
            {t('form.continue')}
          </button>
        </form>
      )}
    </section>
  )
}
