import { type FormEvent, type ReactNode, useId, useState } from 'react'
import { fieldClass, NoteField } from '#app/features/console/components/note-field.tsx'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { formatNumber } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { MAX_DIAMOND_ADJUSTMENT, type PersonDetail } from '#contracts/admin-people.ts'
import type { Locale } from '#contracts/locales.ts'
import { parseDiamonds } from '../diamonds.ts'
import { adjustDiamonds, personAction } from '../people-api.ts'
import { Part } from './shared.tsx'

type Done = (message: string, outcome?: 'deleted') => void

/**
 * What an admin can do to a person, each a small form with a required note (kept in the audit
 * log). Suspend, delete and diamonds may first ask for a current code: `adminApi` opens the console
 * layout's dialog and repeats the call. One's own account offers only what is harmless.
 */
export function PersonActions({
  locale,
  person,
  own,
  onDone,
}: {
  locale: Locale
  person: PersonDetail
  own: boolean
  onDone: Done
}) {
  const { t } = useTranslation('console-people')
  const userId = person.account.id
  const changed = (done: string, already: string) => (result: { changed: boolean }) => (result.changed ? done : already)
  return (
    <Part id="person-actions" title={t('actions.title')}>
      {own ? (
        <p className="text-amber-300" role="note">
          {t('person.own')}
        </p>
      ) : null}
      <div className="grid gap-4 lg:grid-cols-2">
        {own ? null : person.suspended ? (
          <ActionForm
            name="restore"
            title={t('actions.restore.title')}
            text={t('actions.restore.text')}
            submit={t('actions.restore.submit')}
            run={(note) =>
              personAction<{ changed: boolean }>(userId, 'restore', note).then(
                changed(t('actions.restore.done'), t('actions.restore.done')),
              )
            }
            onDone={onDone}
          />
        ) : (
          <ActionForm
            name="suspend"
            danger
            title={t('actions.suspend.title')}
            text={t('actions.suspend.text')}
            submit={t('actions.suspend.submit')}
            run={(note) =>
              personAction<{ changed: boolean }>(userId, 'suspend', note).then(
                changed(t('actions.suspend.done'), t('actions.suspend.already')),
              )
            }
            onDone={onDone}
          />
        )}
        <ActionForm
          name="warn"
          title={t('actions.warn.title')}
          text={t('actions.warn.text')}
          submit={t('actions.warn.submit')}
          run={(note) => personAction(userId, 'warn', note).then(() => t('actions.warn.done'))}
          onDone={onDone}
        />
        {own ? null : <DiamondsForm locale={locale} userId={userId} onDone={onDone} />}
        {person.account.emailVerifiedAt ? null : (
          <ActionForm
            name="resend"
            title={t('actions.resend.title')}
            text={t('actions.resend.text')}
            submit={t('actions.resend.submit')}
            run={(note) =>
              personAction<{ sent: boolean }>(userId, 'resend-verification', note).then((result) =>
                result.sent ? t('actions.resend.done') : t('actions.resend.notSent'),
              )
            }
            onDone={onDone}
          />
        )}
        {own ? null : <DeleteForm person={person} onDone={onDone} />}
      </div>
    </Part>
  )
}

function DiamondsForm({ locale, userId, onDone }: { locale: Locale; userId: string; onDone: Done }) {
  const { t } = useTranslation('console-people')
  const id = useId()
  const [direction, setDirection] = useState<'grant' | 'deduct'>('grant')
  const [amount, setAmount] = useState('')
  const bad = t('actions.diamonds.badAmount', { max: formatNumber(locale, MAX_DIAMOND_ADJUSTMENT) })
  return (
    <ActionForm
      name="diamonds"
      title={t('actions.diamonds.title')}
      text={t('actions.diamonds.text')}
      submit={t('actions.diamonds.submit')}
      check={() => (parseDiamonds(amount) === null ? { field: `${id}-amount`, text: bad } : null)}
      run={async (note) => {
        const count = parseDiamonds(amount) ?? 0
        const { balance } = await adjustDiamonds(userId, direction === 'grant' ? count : -count, note)
        setAmount('')
        return t('actions.diamonds.done', { balance: formatNumber(locale, balance) })
      }}
      onDone={onDone}
    >
      {(invalidField) => (
        <>
          <fieldset>
            <legend className="mb-1 text-sm font-medium">{t('actions.diamonds.direction')}</legend>
            <div className="flex gap-4">
              {(['grant', 'deduct'] as const).map((value) => (
                <label key={value} className="flex items-center gap-2">
                  <input
                    type="radio"
                    name={`${id}-direction`}
                    checked={direction === value}
                    onChange={() => setDirection(value)}
                  />
                  {t(`actions.diamonds.${value}`)}
                </label>
              ))}
            </div>
          </fieldset>
          <div>
            <label htmlFor={`${id}-amount`} className="mb-1 block text-sm font-medium">
              {t('actions.diamonds.amount')}
            </label>
            <input
              id={`${id}-amount`}
              inputMode="numeric"
              autoComplete="off"
              dir="ltr"
              value={amount}
              onChange={(event) => setAmount(event.target.value)}
              aria-invalid={invalidField === `${id}-amount`}
              className={`${fieldClass} max-w-48`}
            />
          </div>
        </>
      )}
    </ActionForm>
  )
}

function DeleteForm({ person, onDone }: { person: PersonDetail; onDone: Done }) {
  const { t } = useTranslation('console-people')
  const id = useId()
  const [understood, setUnderstood] = useState(false)
  return (
    <ActionForm
      name="delete"
      danger
      title={t('actions.delete.title')}
      text={t('actions.delete.text')}
      submit={t('actions.delete.submit')}
      disabled={!understood}
      run={(note) =>
        personAction(person.account.id, 'delete', note).then(() =>
          t('actions.delete.done', { name: person.account.username }),
        )
      }
      deletes
      onDone={onDone}
    >
      {() => (
        <label htmlFor={`${id}-understood`} className="flex items-center gap-2 text-sm">
          <input
            id={`${id}-understood`}
            type="checkbox"
            checked={understood}
            onChange={(event) => setUnderstood(event.target.checked)}
          />
          {t('actions.delete.understood')}
        </label>
      )}
    </ActionForm>
  )
}

/** One action: its title and what it does, any fields of its own, the required note, the button. */
function ActionForm({
  name,
  title,
  text,
  submit,
  danger = false,
  disabled = false,
  deletes = false,
  check,
  run,
  onDone,
  children,
}: {
  name: string
  title: string
  text: string
  submit: string
  danger?: boolean
  disabled?: boolean
  /** The account is gone once it succeeds. */
  deletes?: boolean
  /** A problem with the action's own fields (the field's id and the words), checked before the note. */
  check?: () => { field: string; text: string } | null
  /** Sends it with the note; resolves to the words saying what was done. */
  run: (note: string) => Promise<string>
  onDone: Done
  children?: (invalidField: string | null) => ReactNode
}) {
  const { t } = useTranslation('console-people')
  const { t: tc } = useTranslation()
  const id = useId()
  const [note, setNote] = useState('')
  const [problem, setProblem] = useState<{ field: string | null; text: string } | null>(null)
  const [busy, setBusy] = useState(false)
  const noteId = `${id}-note`

  const send = async (event: FormEvent) => {
    event.preventDefault()
    const own = check?.()
    if (own) return setProblem(own)
    if (!note.trim()) return setProblem({ field: noteId, text: t('actions.noteRequired') })
    setProblem(null)
    setBusy(true)
    try {
      const message = await run(note.trim())
      setNote('')
      setBusy(false)
      onDone(message, deletes ? 'deleted' : undefined)
    } catch (error) {
      setBusy(false)
      setProblem({
        field: null,
        text: apiErrorMessage(tc, error, {
          own: {
            CONFLICT: (details) =>
              details?.reason === 'subscription-renews'
                ? t('actions.delete.planRenews')
                : details?.reason === 'own-account'
                  ? t('person.own')
                  : undefined,
          },
        }),
      })
    }
  }

  return (
    <form
      onSubmit={send}
      noValidate
      aria-labelledby={`${id}-title`}
      data-testid={`action-${name}`}
      className={`space-y-3 rounded-2xl border p-4 ${danger ? 'border-rose-900/70' : 'border-zinc-800'}`}
    >
      <h3 id={`${id}-title`} className="font-semibold">
        {title}
      </h3>
      <p className="text-sm text-zinc-400">{text}</p>
      {children?.(problem?.field ?? null)}
      <NoteField
        id={noteId}
        label={t('actions.note')}
        value={note}
        onChange={setNote}
        invalid={problem?.field === noteId}
        rows={2}
        maxLength={2000}
      />
      {problem ? (
        <p role="alert" className="text-sm text-rose-300">
          {problem.text}
        </p>
      ) : null}
      <button
        type="submit"
        className={
          danger ? 'button-primary bg-rose-700 px-4 py-2 text-sm hover:bg-rose-800' : 'button-primary px-4 py-2 text-sm'
        }
        disabled={busy || disabled}
      >
        {submit}
      </button>
    </form>
  )
}
