import type { TFunction } from 'i18next'
import { useId, useState } from 'react'
import { Dialog, DialogActions, DialogDescription, DialogTitle } from '#app/components/dialog.tsx'
import { updateChatSettings } from '#app/features/chat/settings-api.ts'
import { updateAuthorNote } from '#app/features/chat/writing-aids-api.ts'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { formatNumber } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { notify } from '#app/lib/notify.tsx'
import type { ChatGenerationSettings, ChatSettings, PublicModel } from '#contracts/chat.ts'
import {
  AUTHOR_NOTE_LIMITS,
  type AuthorNote,
  type AuthorNoteProblem,
  checkAuthorNote,
  cleanAuthorNote,
} from '#contracts/chat-writing-aids.ts'
import type { Locale } from '#contracts/locales.ts'
import { LanguageSelect } from './chat-language-select.tsx'

type Bounds = NonNullable<PublicModel['userSettings']['temperature']>
type Field = keyof ChatGenerationSettings

const STEP: Record<Field, number> = { temperature: 0.05, replyTokens: 1 }

const clamp = (value: number, bounds: Bounds) => Math.min(bounds.max, Math.max(bounds.min, value))
const outside = (value: number | null, bounds: Bounds | null) =>
  value !== null && bounds !== null && (value < bounds.min || value > bounds.max)

/**
 * The chat's temperature and reply length (ADR 033), each within the bounds the operator set for
 * the chat's model, or the model's default (null). A setting the operator forbids is shown, disabled.
 * A stored choice outside bounds narrowed since is shown clamped, as the next reply will use it.
 * And the language the character writes in (ADR 038): the site's by default.
 */
export function ChatSettingsDialog({
  locale,
  sessionId,
  model,
  settings,
  authorNote,
  onSaved,
  onClose,
}: {
  locale: Locale
  sessionId: string
  model: PublicModel
  settings: ChatSettings
  /** The chat's author's note (ADR 053), saved with the settings. */
  authorNote: AuthorNote
  onSaved: (settings: ChatSettings, authorNote: AuthorNote) => void
  onClose: () => void
}) {
  const { t } = useTranslation('chat')
  const { t: tCommon } = useTranslation()
  const bounds = model.userSettings
  const initial = (field: Field): number | null => {
    const value = settings[field]
    const b = bounds[field]
    return value === null || b === null ? null : clamp(value, b)
  }
  const [values, setValues] = useState<ChatSettings>({
    temperature: initial('temperature'),
    replyTokens: initial('replyTokens'),
    language: settings.language,
  })
  const [note, setNote] = useState<AuthorNote>(authorNote)
  const noteProblems = checkAuthorNote(note)
  const [busy, setBusy] = useState(false)
  const locked = bounds.temperature === null && bounds.replyTokens === null
  const invalid =
    outside(values.temperature, bounds.temperature) ||
    outside(values.replyTokens, bounds.replyTokens) ||
    noteProblems.length > 0
  const n = (value: number) => formatNumber(locale, value)

  const save = async () => {
    setBusy(true)
    try {
      const saved = await updateChatSettings(sessionId, values, model.id)
      const noteChanged = cleanAuthorNote(note.text) !== authorNote.text || note.depth !== authorNote.depth
      onSaved(saved, noteChanged ? await updateAuthorNote(sessionId, note) : authorNote)
      notify(t('settings.saved'), { type: 'success' })
      onClose()
    } catch (error) {
      notify(
        apiErrorMessage(tCommon, error, {
          own: {
            CHAT_SETTING_OUT_OF_BOUNDS: (d) =>
              t('settings.outOfBounds', { name: t(`settings.${d.field}.label`), min: n(d.min), max: n(d.max) }),
            VALIDATION_ERROR: (d) => {
              const problem = d?.find((p) => p.path === 'text' || p.path === 'depth')
              return problem ? noteProblemText(t, problem as AuthorNoteProblem) : undefined
            },
          },
        }),
        { type: 'error' },
      )
    } finally {
      setBusy(false)
    }
  }

  return (
    <Dialog onClose={onClose} size="lg" testId="chat-settings">
      <DialogTitle>{t('settings.title')}</DialogTitle>
      <DialogDescription className="mt-2 text-sm text-zinc-300">
        {locked ? t('settings.lockedAll', { model: model.name }) : t('settings.explain', { model: model.name })}
      </DialogDescription>
      {(['temperature', 'replyTokens'] as const).map((field) => (
        <SettingControl
          key={field}
          field={field}
          bounds={bounds[field]}
          value={values[field]}
          format={n}
          onChange={(value) => setValues((v) => ({ ...v, [field]: value }))}
        />
      ))}
      <LanguageSelect
        locale={locale}
        value={values.language}
        onChange={(language) => setValues((v) => ({ ...v, language }))}
      />
      <AuthorNoteFields note={note} problems={noteProblems} onChange={setNote} />
      <DialogActions className="mt-6 flex flex-wrap">
        <button
          type="button"
          className="button-ghost me-auto"
          onClick={() => setValues((v) => ({ ...v, temperature: null, replyTokens: null }))}
          disabled={values.temperature === null && values.replyTokens === null}
        >
          {t('settings.reset')}
        </button>
        <button type="button" className="button-ghost" onClick={onClose}>
          {t('cancel')}
        </button>
        <button type="button" className="button-primary px-4 py-2" onClick={save} disabled={busy || invalid}>
          {t('settings.save')}
        </button>
      </DialogActions>
    </Dialog>
  )
}

/** One setting: a slider and a number field over the same value, its bounds and the model's default. */
function SettingControl({
  field,
  bounds,
  value,
  format,
  onChange,
}: {
  field: Field
  bounds: Bounds | null
  value: number | null
  format: (value: number) => string
  onChange: (value: number | null) => void
}) {
  const { t } = useTranslation('chat')
  const id = useId()
  const fallback = bounds ? (bounds.default ?? (bounds.min + bounds.max) / 2) : 0
  const shown = value ?? (bounds ? clamp(fallback, bounds) : 0)
  const bad = outside(value, bounds)
  const hint = bounds ? t('settings.range', { min: format(bounds.min), max: format(bounds.max) }) : t('settings.locked')
  const own = bounds?.default ?? null
  const note =
    value === null
      ? own === null
        ? t('settings.usingServerDefault')
        : t('settings.usingDefault', { value: format(own) })
      : own === null
        ? ''
        : t('settings.modelDefault', { value: format(own) })
  return (
    <fieldset className="mt-5" disabled={!bounds} data-testid={`setting-${field}`}>
      <legend className="text-sm font-medium text-zinc-100">{t(`settings.${field}.label`)}</legend>
      <p className="text-xs text-zinc-400">{t(`settings.${field}.help`)}</p>
      <div className="mt-2 flex items-center gap-3">
        <input
          type="range"
          aria-label={t(`settings.${field}.label`)}
          className="flex-1 accent-violet-400"
          min={bounds?.min ?? 0}
          max={bounds?.max ?? 1}
          step={STEP[field]}
          value={shown}
          onChange={(event) => onChange(Number(event.target.value))}
        />
        <label htmlFor={`${id}-n`} className="sr-only">
          {t(`settings.${field}.label`)}
        </label>
        <input
          id={`${id}-n`}
          type="number"
          inputMode="decimal"
          className="w-24 rounded-lg border border-zinc-700 bg-zinc-950 px-2 py-1 text-sm text-zinc-100 tabular-nums"
          min={bounds?.min}
          max={bounds?.max}
          step={STEP[field]}
          value={value ?? ''}
          placeholder={t('settings.default')}
          aria-invalid={bad}
          aria-describedby={`${id}-hint`}
          onChange={(event) => onChange(event.target.value === '' ? null : Number(event.target.value))}
        />
      </div>
      <p id={`${id}-hint`} className={`mt-1 text-xs ${bad ? 'text-red-300' : 'text-zinc-400'}`}>
        {hint}
        {bounds && note ? ` · ${note}` : ''}
      </p>
    </fieldset>
  )
}

const noteProblemText = (t: TFunction<'chat'>, problem: AuthorNoteProblem) =>
  problem.code === 'too_long'
    ? t('small.authorNoteTooLong', { limit: problem.limit })
    : t('small.authorNoteOutOfRange', { limit: problem.limit })

/** The chat's author's note (ADR 053): its text and depth, with their bounds. */
function AuthorNoteFields({
  note,
  problems,
  onChange,
}: {
  note: AuthorNote
  problems: AuthorNoteProblem[]
  onChange: (note: AuthorNote) => void
}) {
  const { t } = useTranslation('chat')
  const id = useId()
  const length = [...cleanAuthorNote(note.text)].length
  const textProblem = problems.find((p) => p.path === 'text')
  const depthProblem = problems.find((p) => p.path === 'depth')
  return (
    <fieldset className="mt-5" data-testid="author-note">
      <legend className="text-sm font-medium text-zinc-100">{t('small.authorNote')}</legend>
      <p className="text-xs text-zinc-400">{t('small.authorNoteHelp')}</p>
      <label htmlFor={`${id}-text`} className="sr-only">
        {t('small.authorNoteText')}
      </label>
      <textarea
        id={`${id}-text`}
        dir="auto"
        rows={3}
        value={note.text}
        onChange={(event) => onChange({ ...note, text: event.target.value })}
        aria-invalid={textProblem !== undefined}
        aria-describedby={`${id}-count`}
        className="mt-2 w-full rounded-xl border border-zinc-700 bg-zinc-950 p-2 text-sm text-zinc-100"
      />
      <p id={`${id}-count`} className={`text-xs ${textProblem ? 'text-red-300' : 'text-zinc-400'}`}>
        {textProblem ? `${noteProblemText(t, textProblem)} ` : ''}
        {t('characters', { count: length, max: AUTHOR_NOTE_LIMITS.text })}
      </p>
      <div className="mt-2 flex items-center gap-3">
        <label htmlFor={`${id}-depth`} className="text-sm text-zinc-200">
          {t('small.authorNoteDepth')}
        </label>
        <input
          id={`${id}-depth`}
          type="number"
          inputMode="numeric"
          min={0}
          max={AUTHOR_NOTE_LIMITS.maxDepth}
          step={1}
          value={Number.isNaN(note.depth) ? '' : note.depth}
          onChange={(event) =>
            onChange({ ...note, depth: event.target.value === '' ? Number.NaN : Number(event.target.value) })
          }
          aria-invalid={depthProblem !== undefined}
          aria-describedby={`${id}-depth-help`}
          className="w-24 rounded-lg border border-zinc-700 bg-zinc-950 px-2 py-1 text-sm text-zinc-100 tabular-nums"
        />
      </div>
      <p id={`${id}-depth-help`} className={`mt-1 text-xs ${depthProblem ? 'text-red-300' : 'text-zinc-400'}`}>
        {depthProblem
          ? noteProblemText(t, depthProblem)
          : t('small.authorNoteDepthHelp', { max: AUTHOR_NOTE_LIMITS.maxDepth })}
      </p>
    </fieldset>
  )
}
