import { BookOpen, Paperclip, Trash2 } from 'lucide-react'
import { useEffect, useMemo, useRef, useState } from 'react'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { isApiError } from '#app/lib/http.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { notify } from '#app/lib/notify.tsx'
import type { Tag } from '#contracts/catalogue.ts'
import {
  CHARACTER_LIMITS,
  type CharacterTextField,
  type EditableRole,
  FIELD_PROBLEM_CODES,
  type FieldProblem,
  type ImportResult,
} from '#contracts/characters.ts'
import { LOCALE_TAGS, type Locale } from '#contracts/locales.ts'
import { saveRole } from '../api/save-role.ts'
import { clearDraft, draftKey, loadDraft, saveDraft } from '../draft-storage.ts'
import {
  type CharacterFormState,
  formDataOf,
  formOfImport,
  problemsOf,
  sourceTextsOf,
  withSourceLanguage,
} from '../form-state.ts'
import { CharacterPreview } from './character-preview.tsx'
import { fieldErrorText } from './field-error.ts'
import { Section } from './form-section.tsx'
import { GreetingsEditor } from './greetings-editor.tsx'
import { ImageField } from './image-field.tsx'
import { ImportCardPanel, ImportReport } from './import-card-panel.tsx'
import { LanguagesSection } from './languages-section.tsx'
import { LorebooksSection, useAttachedLorebooks } from './lorebooks-section.tsx'
import { TagPicker } from './tag-picker.tsx'
import { TextField } from './text-field.tsx'

const MiB = 1024 * 1024
const DRAFT_DELAY_MS = 300

/** Field problems the server sent back (`details` of VALIDATION_ERROR, 413 and 415), if any. */
function serverProblems(error: unknown): FieldProblem[] {
  if (!isApiError(error, 'VALIDATION_ERROR', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE')) return []
  if (!Array.isArray(error.details)) return []
  // Only the problems this form words (FIELD_PROBLEM_CODES); a schema refusal has no `code`.
  return error.details.filter((d): d is FieldProblem =>
    (FIELD_PROBLEM_CODES as readonly (string | undefined)[]).includes(d.code),
  )
}

/** Which field a problem belongs to: `alternateGreetings.2` -> `alternateGreetings`. */
const fieldOf = (path: string) => path.split('.')[0] ?? path

/** The id of the control to focus for a problem. */
function controlId(path: string): string {
  const [field, index] = path.split('.')
  if (field === 'alternateGreetings' && index !== undefined) return `greeting-${index}`
  if (field === 'tags') return 'tag-picker'
  return `character-${field}`
}

/**
 * The character form (create and edit): every field with its limit and its error, a live preview
 * beside it, "Import a card", and a draft kept in localStorage on every change so nothing is lost
 * on a refused save or a reload. The draft is dropped once the character is saved.
 */
export function CharacterForm({
  roleId,
  initial,
  knownTags,
  locale,
  onSaved,
  onCancel,
}: {
  /** null: a new character. */
  roleId: string | null
  initial: CharacterFormState
  knownTags: Tag[]
  locale: Locale
  onSaved: (role: EditableRole) => void
  onCancel: () => void
}) {
  const { t } = useTranslation('characters-edit')
  const { t: tCommon } = useTranslation()
  const key = draftKey(roleId)
  const [state, setState] = useState<CharacterFormState>(initial)
  const [showRestored, setShowRestored] = useState(false)
  const [imagesDropped, setImagesDropped] = useState(false)
  const [attempted, setAttempted] = useState(false)
  const [fromServer, setFromServer] = useState<FieldProblem[]>([])
  const [summary, setSummary] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const [imported, setImported] = useState<ImportResult | null>(null)
  const summaryRef = useRef<HTMLDivElement>(null)
  const touched = useRef(false)
  // The user's lorebooks attached to the character (ADR 043), stored after the character's save.
  const lorebooks = useAttachedLorebooks(roleId)

  // The draft comes back after hydration, not in the first render: the server's page has none,
  // and a first render that differed from it would be thrown away and rendered again.
  const initialRef = useRef(initial)
  initialRef.current = initial
  useEffect(() => {
    const restored = loadDraft(key)
    if (!restored) return
    setState(withSourceLanguage(restored.state, initialRef.current))
    setShowRestored(true)
    setImagesDropped(restored.imagesDropped)
  }, [key])

  // Keep the draft while typing; nothing is stored until the user changes something.
  useEffect(() => {
    if (!touched.current) return
    const timer = setTimeout(() => setImagesDropped(!saveDraft(key, state, initial)), DRAFT_DELAY_MS)
    return () => clearTimeout(timer)
  }, [key, state, initial])

  const live = useMemo(() => problemsOf(state), [state])
  const problems = useMemo(() => {
    // "Required" shows once the user tried to save; limits show as soon as they are crossed.
    const shown = live.filter((p) => attempted || p.code !== 'required')
    const paths = new Set(shown.map((p) => p.path))
    return [...shown, ...fromServer.filter((p) => !paths.has(p.path))]
  }, [live, attempted, fromServer])
  const problemAt = (path: string) => problems.find((p) => p.path === path)
  // Translations are made from the saved texts; the Languages part says when the form's differ.
  const savedTexts = useMemo(() => sourceTextsOf(initial), [initial])
  const sourceEdited = useMemo(
    () => JSON.stringify(sourceTextsOf(state)) !== JSON.stringify(savedTexts),
    [state, savedTexts],
  )
  const lang = LOCALE_TAGS[state.sourceLanguage]

  function update(patch: Partial<CharacterFormState>) {
    touched.current = true
    setState((current) => ({ ...current, ...patch }))
    // A field the user changes is checked again by the form; the server's word on it no longer holds.
    const changed = new Set(Object.keys(patch))
    setFromServer((list) => list.filter((p) => !changed.has(fieldOf(p.path))))
  }

  function focusFirst(list: FieldProblem[]) {
    const first = list[0]
    if (!first) return
    requestAnimationFrame(() => {
      summaryRef.current?.scrollIntoView({ block: 'nearest' })
      document.getElementById(controlId(first.path))?.focus()
    })
  }

  const submit = async (event: React.FormEvent) => {
    event.preventDefault()
    setAttempted(true)
    if (live.length > 0) {
      setSummary(t('form.errorSummary'))
      focusFirst(live)
      return
    }
    setBusy(true)
    setSummary(null)
    try {
      const saved = await saveRole(formDataOf(state, roleId !== null), { roleId, locale })
      await lorebooks.save(saved.roleId)
      clearDraft(key)
      notify(roleId ? t('form.saved') : t('form.created'), { type: 'success' })
      onSaved(saved)
    } catch (failure) {
      const fields = serverProblems(failure)
      if (fields.length > 0) {
        setFromServer(fields)
        setSummary(t('form.errorSummary'))
        focusFirst(fields)
      } else {
        setSummary(apiErrorMessage(tCommon, failure))
      }
    } finally {
      setBusy(false)
    }
  }

  const text = (field: CharacterTextField, options: { rows?: number; hint?: string; required?: boolean } = {}) => (
    <TextField
      id={`character-${field}`}
      label={t(`form.${field}`)}
      hint={options.hint}
      value={state[field]}
      rows={options.rows}
      required={options.required}
      lang={lang}
      limit={CHARACTER_LIMITS[field]}
      problem={problemAt(field)}
      onChange={(value) => update({ [field]: value })}
    />
  )

  return (
    <div className="grid items-start gap-8 lg:grid-cols-[minmax(0,1fr)_20rem] xl:grid-cols-[minmax(0,1fr)_24rem]">
      <div className="min-w-0">
        {showRestored ? (
          <div
            role="status"
            className="mb-4 flex flex-wrap items-center justify-between gap-2 rounded-lg bg-violet-950/60 p-3 text-sm text-violet-100"
          >
            <span>{t('form.restored')}</span>
            <button
              type="button"
              className="button-ghost"
              onClick={() => {
                clearDraft(key)
                touched.current = false
                setState(initial)
                setFromServer([])
                setShowRestored(false)
                setImagesDropped(false)
              }}
            >
              {t('form.discardDraft')}
            </button>
          </div>
        ) : null}
        <ImportCardPanel
          locale={locale}
          onImported={(result) => {
            touched.current = true
            setState((current) => formOfImport(result, current))
            setFromServer([])
            setImported(result)
          }}
        />
        {imported ? <ImportReport result={imported} onDismiss={() => setImported(null)} /> : null}

        <form onSubmit={submit} noValidate aria-describedby={summary ? 'form-summary' : undefined}>
          <div ref={summaryRef}>
            {summary ? (
              <p
                id="form-summary"
                role="alert"
                className="mb-4 rounded-lg bg-rose-950/60 p-3 text-sm text-rose-200"
                data-testid="form-summary"
              >
                {summary}
              </p>
            ) : null}
          </div>

          <Section title={t('form.identity')}>
            {text('name', { required: true })}
            <ImageField
              id="character-avatar"
              label={t('form.avatar')}
              hint={t('form.avatarHint', { size: CHARACTER_LIMITS.imageBytes / MiB })}
              value={state.avatar}
              shape="portrait"
              problem={problemAt('avatar')}
              onChange={(avatar) => update({ avatar })}
            />
            <ImageField
              id="character-banner"
              label={t('form.banner')}
              hint={t('form.bannerHint', { size: CHARACTER_LIMITS.imageBytes / MiB })}
              value={state.banner}
              shape="wide"
              problem={problemAt('banner')}
              onChange={(banner) => update({ banner })}
            />
            {imagesDropped && (state.avatar.kind === 'new' || state.banner.kind === 'new') ? (
              <p className="-mt-3 mb-5 text-xs text-amber-300">{t('form.imagesNotKept')}</p>
            ) : null}
            <div id="tag-picker" tabIndex={-1}>
              <TagPicker
                value={state.tags}
                known={knownTags}
                problems={problems.filter((p) => fieldOf(p.path) === 'tags')}
                onChange={(tags) => update({ tags })}
              />
            </div>
          </Section>

          <Section title={t('form.story')}>
            {text('introduction', { rows: 5, hint: t('form.introductionHint') })}
            {text('scenario', { rows: 4, hint: t('form.scenarioHint') })}
            {text('personality', { rows: 3, hint: t('form.personalityHint') })}
            {text('details', { rows: 8, hint: t('form.detailsHint') })}
            {text('exampleDialogue', { rows: 6, hint: t('form.exampleDialogueHint') })}
            {state.lorebook ? (
              <div className="mb-5 flex flex-wrap items-center justify-between gap-2 rounded-lg bg-zinc-900 p-3 text-sm">
                <span className="flex items-center gap-2 text-zinc-300">
                  <BookOpen aria-hidden="true" className="size-4 text-violet-300" />
                  {t('form.lorebook', { count: state.lorebook.entries.length })}
                </span>
                <button type="button" className="button-ghost" onClick={() => update({ lorebook: null })}>
                  <Trash2 aria-hidden="true" className="size-4" />
                  {t('form.removeLorebook')}
                </button>
              </div>
            ) : null}
            {state.cardFiles.kind !== 'none' ? (
              <div
                className="mb-5 flex flex-wrap items-center justify-between gap-2 rounded-lg bg-zinc-900 p-3 text-sm"
                data-testid="card-files"
              >
                <span className="flex items-center gap-2 text-zinc-300">
                  <Paperclip aria-hidden="true" className="size-4 text-violet-300" />
                  {t('form.cardFiles', { count: state.cardFiles.count })}
                </span>
                <button type="button" className="button-ghost" onClick={() => update({ cardFiles: { kind: 'none' } })}>
                  <Trash2 aria-hidden="true" className="size-4" />
                  {t('form.removeCardFiles')}
                </button>
              </div>
            ) : null}
            {(['lorebook', 'cardExtras', 'cardFiles'] as const).map((path) => {
              const problem = problemAt(path)
              return problem ? (
                <p
                  key={path}
                  id={`character-${path}`}
                  tabIndex={-1}
                  className="-mt-3 mb-5 text-sm text-rose-300"
                  data-testid={`error-${path}`}
                >
                  {t('import.problem', {
                    field:
                      path === 'lorebook'
                        ? t('form.lorebookLabel')
                        : path === 'cardFiles'
                          ? t('form.cardFilesLabel')
                          : t('form.cardExtras'),
                    problem: fieldErrorText(t, problem),
                  })}
                </p>
              ) : null
            })}
          </Section>

          <LorebooksSection attachments={lorebooks} />

          <Section title={t('form.greetings')}>
            {text('firstMessage', { rows: 4, hint: t('form.firstMessageHint') })}
            <GreetingsEditor
              lang={lang}
              value={state.alternateGreetings}
              problems={problems.filter((p) => fieldOf(p.path) === 'alternateGreetings')}
              onChange={(alternateGreetings) => update({ alternateGreetings })}
            />
          </Section>

          <Section title={t('form.settings')}>
            <fieldset className="mb-5">
              <legend className="mb-2 text-sm font-medium">{t('form.visibility')}</legend>
              <div className="grid gap-2 sm:grid-cols-2">
                {(['public', 'private'] as const).map((visibility) => (
                  <label
                    key={visibility}
                    className="flex cursor-pointer gap-3 rounded-xl border border-zinc-700 p-3 has-checked:border-violet-400 has-checked:bg-violet-950/40"
                  >
                    <input
                      type="radio"
                      name="visibility"
                      value={visibility}
                      checked={state.visibility === visibility}
                      onChange={() => update({ visibility })}
                      aria-describedby={`visibility-${visibility}-hint`}
                      className="mt-1 size-4 accent-violet-500"
                    />
                    <span>
                      <span className="block font-medium">{t(`form.${visibility}`)}</span>
                      <span id={`visibility-${visibility}-hint`} className="block text-xs text-zinc-400">
                        {t(`form.${visibility}Hint`)}
                      </span>
                    </span>
                  </label>
                ))}
              </div>
            </fieldset>
            <label className="mb-2 flex cursor-pointer gap-3 rounded-xl border border-zinc-700 p-3">
              <input
                type="checkbox"
                name="isAdult"
                checked={state.isAdult}
                onChange={(event) => update({ isAdult: event.target.checked })}
                aria-describedby="adult-hint"
                className="mt-1 size-4 accent-violet-500"
              />
              <span>
                <span className="block font-medium">{t('form.adult')}</span>
                <span id="adult-hint" className="block text-xs text-zinc-400">
                  {t('form.adultHint')}
                </span>
              </span>
            </label>
          </Section>

          <LanguagesSection
            roleId={roleId}
            uiLocale={locale}
            value={state.sourceLanguage}
            savedLanguage={initial.sourceLanguage}
            source={savedTexts}
            sourceEdited={sourceEdited}
            onChange={(sourceLanguage) => update({ sourceLanguage })}
          />

          <div className="sticky bottom-0 z-10 -mx-1 flex flex-wrap justify-end gap-2 border-t border-zinc-800 bg-zinc-950/95 px-1 py-3 backdrop-blur">
            <button type="button" className="button-ghost" onClick={onCancel}>
              {t('form.cancel')}
            </button>
            <button type="submit" className="button-primary" disabled={busy} data-testid="save-character">
              {busy ? t('form.saving') : roleId ? t('form.save') : t('form.create')}
            </button>
          </div>
        </form>
      </div>
      <aside className="lg:sticky lg:top-4">
        <CharacterPreview state={state} />
      </aside>
    </div>
  )
}
