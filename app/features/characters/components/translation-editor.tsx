import { Bot, LoaderCircle, Sparkles, TriangleAlert } from 'lucide-react'
import { useEffect, useMemo, useRef, useState } from 'react'
import { ConfirmDialog } from '#app/components/confirm-dialog.tsx'
import { Dialog, DialogActions, DialogDescription, DialogTitle } from '#app/components/dialog.tsx'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { notify } from '#app/lib/notify.tsx'
import { CHARACTER_LIMITS, type FieldProblem } from '#contracts/characters.ts'
import { LOCALE_TAGS, type Locale } from '#contracts/locales.ts'
import type { RoleTexts, RoleTranslation, RoleTranslationList } from '#contracts/role-texts.ts'
import { saveTranslation } from '../api/save-translation.ts'
import { translateDraft } from '../api/translate-draft.ts'
import type { LanguageName } from '../language-names.ts'
import {
  draftFailure,
  draftOf,
  fillDraft,
  hasEmptyField,
  hasText,
  problemsOfDraft,
  refusedFields,
  sameDraft,
  TRANSLATED_TEXTS,
  type TranslationDraft,
  textsOf,
} from '../translation-state.ts'
import { fieldErrorText } from './field-error.ts'
import { TextField } from './text-field.tsx'

type Status = { kind: 'idle' } | { kind: 'drafting' } | { kind: 'drafted' } | { kind: 'draftFailed'; message: string }

const FIELD_ROWS = { introduction: 5, scenario: 4, firstMessage: 4 } as const

/**
 * One translation of a character, side by side with the saved texts it translates (stacked on
 * narrow screens: the original above each field). Nothing is stored until Save; "Translate with
 * the model" fills the fields from the draft endpoint for review (the empty ones, or all after
 * asking). Escape or Cancel closes it (asking first when something changed).
 */
export function TranslationEditor({
  roleId,
  locale,
  uiLocale,
  languageName,
  sourceLanguage,
  sourceLanguageName,
  source,
  sourceEdited,
  translation,
  onSaved,
  onCancel,
}: {
  roleId: string
  locale: Locale
  uiLocale: Locale
  languageName: LanguageName
  sourceLanguage: Locale
  sourceLanguageName: LanguageName
  source: RoleTexts
  sourceEdited: boolean
  /** null: a new translation. */
  translation: RoleTranslation | null
  onSaved: (list: RoleTranslationList) => void
  onCancel: () => void
}) {
  const { t } = useTranslation('characters-edit')
  const { t: tCommon } = useTranslation()
  const initial = useMemo(() => draftOf(translation, source), [translation, source])
  const [draft, setDraft] = useState(initial)
  const [status, setStatus] = useState<Status>({ kind: 'idle' })
  const [asking, setAsking] = useState<'fill' | 'discard' | null>(null)
  const [saving, setSaving] = useState(false)
  const [attempted, setAttempted] = useState(false)
  const [fromServer, setFromServer] = useState<FieldProblem[]>([])
  const [summary, setSummary] = useState<string | null>(null)
  const heading = useRef<HTMLHeadingElement>(null)
  const drafting = useRef<AbortController | null>(null)

  const lang = LOCALE_TAGS[locale]
  const sourceLang = LOCALE_TAGS[sourceLanguage]

  // Focus moves into the editor when it opens; a model call still running is dropped when it closes.
  useEffect(() => {
    heading.current?.focus()
    return () => drafting.current?.abort()
  }, [])

  const live = useMemo(() => problemsOfDraft(draft), [draft])
  const problems = useMemo(() => {
    const shown = live.filter((p) => attempted || p.code !== 'required')
    const paths = new Set(shown.map((p) => p.path))
    return [...shown, ...fromServer.filter((p) => !paths.has(p.path))]
  }, [live, attempted, fromServer])
  const problemAt = (path: string) => problems.find((p) => p.path === path)
  const nothing = problems.find((p) => p.path === 'texts' || p.path === 'locale')

  function update(patch: Partial<TranslationDraft>) {
    setDraft((current) => ({ ...current, ...patch }))
    const changed = new Set(Object.keys(patch).map((key) => `texts.${key}`))
    setFromServer((list) => list.filter((p) => !changed.has(p.path.split('.').slice(0, 2).join('.'))))
    if (status.kind === 'drafted' || status.kind === 'draftFailed') setStatus({ kind: 'idle' })
  }

  async function runDraft(mode: 'empty' | 'all') {
    setAsking(null)
    setStatus({ kind: 'drafting' })
    const controller = new AbortController()
    drafting.current = controller
    try {
      const texts = await translateDraft(roleId, locale, controller.signal)
      setDraft((current) => fillDraft(current, texts, mode))
      setFromServer([])
      setStatus({ kind: 'drafted' })
    } catch (error) {
      if (controller.signal.aborted) return
      setStatus({ kind: 'draftFailed', message: draftFailure(t, tCommon, uiLocale, error) })
    } finally {
      if (drafting.current === controller) drafting.current = null
    }
  }

  const askModel = () => (hasText(draft) ? setAsking('fill') : runDraft('all'))
  const cancel = () => (sameDraft(draft, initial) ? onCancel() : setAsking('discard'))

  const save = async () => {
    setAttempted(true)
    if (live.length > 0) {
      setSummary(live.some((p) => p.path === 'texts') ? null : t('form.errorSummary'))
      focusProblem(live)
      return
    }
    setSaving(true)
    setSummary(null)
    try {
      const list = await saveTranslation(roleId, locale, textsOf(draft))
      notify(t('languages.saved', { language: languageName.inInterface }), { type: 'success' })
      onSaved(list)
    } catch (error) {
      const fields = refusedFields(error)
      if (fields.length > 0) {
        setFromServer(fields)
        setSummary(t('form.errorSummary'))
        focusProblem(fields)
      } else {
        setSummary(apiErrorMessage(tCommon, error))
      }
      setSaving(false)
    }
  }

  const busy = status.kind === 'drafting' || saving
  const sourceCaption = `${t('languages.original')} · ${sourceLanguageName.inInterface}`

  return (
    <section
      aria-labelledby="translation-editor-title"
      aria-busy={status.kind === 'drafting'}
      className="rounded-xl border border-violet-800/60 bg-zinc-950/40 p-3 sm:p-4"
      data-testid="translation-editor"
      onKeyDown={(event) => {
        if (event.target instanceof Element && event.target.closest('dialog')) return
        if (event.key === 'Escape') {
          event.preventDefault()
          cancel()
        } else if (event.key === 'Enter' && event.target instanceof HTMLInputElement) {
          // Enter in the name field would submit the character form around this editor.
          event.preventDefault()
        }
      }}
    >
      <h3
        id="translation-editor-title"
        ref={heading}
        tabIndex={-1}
        className="text-base font-semibold focus:outline-none"
      >
        {t('languages.editorTitle', { language: languageName.inInterface })}
        {languageName.own !== languageName.inInterface ? (
          <span lang={lang} className="ms-2 font-normal text-zinc-400">
            {languageName.own}
          </span>
        ) : null}
      </h3>

      <div className="mt-2 space-y-2 text-sm">
        {translation?.origin === 'machine' ? (
          <p className="flex gap-2 text-sky-200">
            <Bot aria-hidden="true" className="mt-0.5 size-4 shrink-0" />
            {t('languages.machineNote')}
          </p>
        ) : null}
        {translation?.stale ? (
          <p className="flex gap-2 text-amber-200">
            <TriangleAlert aria-hidden="true" className="mt-0.5 size-4 shrink-0" />
            {t('languages.staleNote')}
          </p>
        ) : null}
        {sourceEdited ? <p className="text-amber-200">{t('languages.sourceEdited')}</p> : null}
      </div>

      <div className="mt-4 flex flex-wrap items-center gap-3">
        <button
          type="button"
          className="button-secondary px-4 py-2 text-sm"
          onClick={askModel}
          disabled={busy}
          data-testid="translate-with-model"
        >
          {status.kind === 'drafting' ? (
            <LoaderCircle aria-hidden="true" className="size-4 animate-spin" />
          ) : (
            <Sparkles aria-hidden="true" className="size-4" />
          )}
          {status.kind === 'drafting' ? t('languages.translating') : t('languages.translate')}
        </button>
        <p role="status" className="min-w-0 grow text-sm text-zinc-300" data-testid="draft-status">
          {status.kind === 'drafting' ? t('languages.translatingStatus') : null}
          {status.kind === 'drafted' ? t('languages.draftReady') : null}
        </p>
      </div>
      {status.kind === 'draftFailed' ? (
        <p role="alert" className="mt-3 rounded-lg bg-rose-950/60 p-3 text-sm text-rose-200" data-testid="draft-error">
          {status.message}
        </p>
      ) : null}

      <div className="mt-5 hidden gap-x-4 border-b border-zinc-800 pb-2 text-xs font-semibold tracking-wide text-zinc-400 uppercase md:grid md:grid-cols-2">
        <p>{sourceCaption}</p>
        <p>{languageName.inInterface}</p>
      </div>

      <div className="mt-4">
        <Row source={source.name} sourceId="translation-source-name" caption={sourceCaption} lang={sourceLang}>
          <TextField
            id="translation-name"
            label={t('languages.nameLabel')}
            hint={t('languages.nameHint')}
            value={draft.name}
            lang={lang}
            describedBy="translation-source-name"
            limit={CHARACTER_LIMITS.name}
            problem={problemAt('texts.name')}
            onChange={(name) => update({ name })}
          />
        </Row>
        {TRANSLATED_TEXTS.map((field) => (
          <Row
            key={field}
            source={source[field]}
            sourceId={`translation-source-${field}`}
            caption={sourceCaption}
            lang={sourceLang}
          >
            <TextField
              id={`translation-${field}`}
              label={t(`form.${field}`)}
              value={draft[field]}
              rows={FIELD_ROWS[field]}
              lang={lang}
              describedBy={source[field] ? `translation-source-${field}` : undefined}
              limit={CHARACTER_LIMITS[field]}
              problem={problemAt(`texts.${field}`)}
              onChange={(value) => update({ [field]: value })}
            />
          </Row>
        ))}
        {source.alternateGreetings.length > 0 ? (
          <fieldset>
            <legend className="mb-3 text-sm font-medium">{t('form.alternateGreetings')}</legend>
            {source.alternateGreetings.map((greeting, index) => (
              <Row
                // biome-ignore lint/suspicious/noArrayIndexKey: greetings are known by their place.
                key={index}
                source={greeting}
                sourceId={`translation-source-greeting-${index}`}
                caption={sourceCaption}
                lang={sourceLang}
              >
                <TextField
                  id={`translation-greeting-${index}`}
                  label={t('form.greeting', { number: index + 1 })}
                  value={draft.alternateGreetings[index] ?? ''}
                  rows={3}
                  lang={lang}
                  describedBy={`translation-source-greeting-${index}`}
                  limit={CHARACTER_LIMITS.greeting}
                  problem={problemAt(`texts.alternateGreetings.${index}`)}
                  onChange={(value) =>
                    update({ alternateGreetings: draft.alternateGreetings.map((g, i) => (i === index ? value : g)) })
                  }
                />
              </Row>
            ))}
          </fieldset>
        ) : null}
      </div>

      {nothing || summary ? (
        <p
          role="alert"
          className="mb-3 rounded-lg bg-rose-950/60 p-3 text-sm text-rose-200"
          data-testid="translation-summary"
        >
          {nothing?.path === 'texts' ? t('languages.nothingToSave') : nothing ? fieldErrorText(t, nothing) : summary}
        </p>
      ) : null}
      <div className="flex flex-wrap justify-end gap-2">
        <button type="button" className="button-ghost" onClick={cancel} disabled={saving}>
          {t('form.cancel')}
        </button>
        <button type="button" className="button-primary" onClick={save} disabled={busy} data-testid="save-translation">
          {saving ? t('form.saving') : t('languages.save')}
        </button>
      </div>

      {asking === 'fill' ? (
        <Dialog onClose={() => setAsking(null)} size="md" testId="fill-dialog">
          <DialogTitle>{t('languages.translate')}</DialogTitle>
          <DialogDescription className="mt-2 text-sm text-zinc-300">{t('languages.fillText')}</DialogDescription>
          <DialogActions>
            <button type="button" className="button-ghost" onClick={() => setAsking(null)}>
              {t('form.cancel')}
            </button>
            {hasEmptyField(draft, source) ? (
              <button type="button" className="button-secondary px-4 py-2" onClick={() => runDraft('empty')}>
                {t('languages.fillEmpty')}
              </button>
            ) : null}
            <button type="button" className="button-primary" onClick={() => runDraft('all')}>
              {t('languages.fillAll')}
            </button>
          </DialogActions>
        </Dialog>
      ) : null}
      {asking === 'discard' ? (
        <ConfirmDialog
          title={t('languages.discardTitle')}
          text={t('languages.discardText')}
          cancelLabel={t('languages.keepEditing')}
          confirmLabel={t('languages.discard')}
          busyLabel={t('languages.discard')}
          danger
          onConfirm={async () => onCancel()}
          describeError={(error) => apiErrorMessage(tCommon, error)}
          onClose={() => setAsking(null)}
        />
      ) : null}
    </section>
  )
}

/** The control to focus for a problem of the translation. */
function controlId(path: string): string {
  const [, field, index] = path.split('.')
  if (field === 'alternateGreetings' && index !== undefined) return `translation-greeting-${index}`
  if (!field) return 'translation-introduction'
  return `translation-${field}`
}

function focusProblem(list: FieldProblem[]) {
  const first = list[0]
  if (first) requestAnimationFrame(() => document.getElementById(controlId(first.path))?.focus())
}

/** One field beside its original: side by side on wide screens, the original above on narrow ones. */
function Row({
  source,
  sourceId,
  caption,
  lang,
  children,
}: {
  source: string
  sourceId: string
  caption: string
  lang: string
  children: React.ReactNode
}) {
  const { t } = useTranslation('characters-edit')
  return (
    <div className="grid gap-x-4 md:grid-cols-2">
      <div className="mb-2 min-w-0 md:mb-5">
        <p className="mb-1 text-xs text-zinc-400 md:invisible">{caption}</p>
        {source ? (
          <div
            id={sourceId}
            lang={lang}
            dir="auto"
            className="rounded-lg border border-dashed border-zinc-700 bg-zinc-900/60 px-3 py-2 text-sm leading-relaxed break-words whitespace-pre-wrap text-zinc-300"
          >
            {source}
          </div>
        ) : (
          <p className="rounded-lg border border-dashed border-zinc-800 px-3 py-2 text-sm text-zinc-400 italic">
            {t('languages.emptyOriginal')}
          </p>
        )}
      </div>
      <div className="min-w-0">{children}</div>
    </div>
  )
}
