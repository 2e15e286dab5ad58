import { Bot, Pencil, Plus, Trash2, TriangleAlert, UserRound } from 'lucide-react'
import { useCallback, useEffect, useRef, useState } from 'react'
import { ConfirmDialog } from '#app/components/confirm-dialog.tsx'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { notify } from '#app/lib/notify.tsx'
import { LOCALE_TAGS, type Locale } from '#contracts/locales.ts'
import type { RoleTexts, RoleTranslation, RoleTranslationList } from '#contracts/role-texts.ts'
import { listTranslations } from '../api/list-translations.ts'
import { removeTranslation } from '../api/remove-translation.ts'
import { type LanguageName, languageLabel } from '../language-names.ts'
import { localesToAdd } from '../translation-state.ts'
import { inputClass } from './text-field.tsx'
import { TranslationEditor } from './translation-editor.tsx'

type Load = { kind: 'loading' } | { kind: 'failed'; reason: string } | { kind: 'ready'; list: RoleTranslationList }

/** Which translation is open: an existing one, or a new one for `locale`. */
type Editing = { locale: Locale; translation: RoleTranslation | null }

/** Ids of what focus goes back to. */
const editButtonId = (locale: Locale) => `translation-edit-${locale}`
const ADD_ID = 'translation-add'
const LIST_TITLE_ID = 'translations-title'

/**
 * A saved character's translations: each with its origin and a stale mark, Edit and Remove (after
 * confirmation), and "Add a language" for a locale without one. Edit and Add open the editor in
 * place of the list, focus moving into it and back to where it was opened.
 */
export function TranslationsPanel({
  roleId,
  uiLocale,
  nameOf,
  source,
  sourceEdited,
}: {
  roleId: string
  uiLocale: Locale
  nameOf: (locale: Locale) => LanguageName
  source: RoleTexts
  sourceEdited: boolean
}) {
  const { t } = useTranslation('characters-edit')
  const { t: tCommon } = useTranslation()
  const [load, setLoad] = useState<Load>({ kind: 'loading' })
  const [editing, setEditing] = useState<Editing | null>(null)
  const [removing, setRemoving] = useState<Locale | null>(null)
  const [adding, setAdding] = useState<Locale | ''>('')
  const focusNext = useRef<string | null>(null)

  const fetchList = useCallback(
    (signal?: AbortSignal) => {
      setLoad({ kind: 'loading' })
      listTranslations(roleId, signal).then(
        (list) => setLoad({ kind: 'ready', list }),
        (error: unknown) => {
          if (!signal?.aborted) setLoad({ kind: 'failed', reason: apiErrorMessage(tCommon, error) })
        },
      )
    },
    [roleId, tCommon],
  )
  useEffect(() => {
    const controller = new AbortController()
    fetchList(controller.signal)
    return () => controller.abort()
  }, [fetchList])

  // Focus goes where the last action left it, once that element is on the page.
  useEffect(() => {
    if (!focusNext.current) return
    const element = document.getElementById(focusNext.current)
    if (element) {
      element.focus()
      focusNext.current = null
    }
  })

  const close = (focusId: string) => {
    focusNext.current = focusId
    setEditing(null)
  }

  if (load.kind === 'loading') {
    return (
      <p role="status" className="text-sm text-zinc-400">
        {t('languages.loading')}
      </p>
    )
  }
  if (load.kind === 'failed') {
    return (
      <div role="alert" className="text-sm">
        <p className="text-rose-300">{t('languages.loadFailed', { reason: load.reason })}</p>
        <button type="button" className="button-secondary mt-3 px-4 py-2 text-sm" onClick={() => fetchList()}>
          {t('edit.retry')}
        </button>
      </div>
    )
  }

  const { list } = load
  const label = (locale: Locale) => languageLabel(nameOf(locale))

  if (editing) {
    return (
      <TranslationEditor
        key={editing.locale}
        roleId={roleId}
        locale={editing.locale}
        uiLocale={uiLocale}
        languageName={nameOf(editing.locale)}
        sourceLanguage={list.sourceLanguage}
        sourceLanguageName={nameOf(list.sourceLanguage)}
        source={source}
        sourceEdited={sourceEdited}
        translation={editing.translation}
        onSaved={(saved) => {
          setLoad({ kind: 'ready', list: saved })
          setAdding('')
          close(editButtonId(editing.locale))
        }}
        onCancel={() => close(editing.translation ? editButtonId(editing.locale) : ADD_ID)}
      />
    )
  }

  const addable = localesToAdd(list.sourceLanguage, list.translations)
  const chosen = addable.find((l) => l === adding) ?? ''
  return (
    <div data-testid="translations">
      <h3 id={LIST_TITLE_ID} tabIndex={-1} className="mb-2 text-base font-semibold focus:outline-none">
        {t('languages.translations')}
      </h3>
      {list.translations.length === 0 ? (
        <p className="mb-4 text-sm text-zinc-400">{t('languages.none')}</p>
      ) : (
        <ul className="mb-4 divide-y divide-zinc-800 rounded-xl border border-zinc-800">
          {list.translations.map((translation) => (
            <TranslationItem
              key={translation.locale}
              translation={translation}
              name={nameOf(translation.locale)}
              own={translation.locale === list.sourceLanguage}
              onEdit={() => setEditing({ locale: translation.locale, translation })}
              onRemove={() => setRemoving(translation.locale)}
            />
          ))}
        </ul>
      )}
      {addable.length > 0 ? (
        <div className="flex flex-wrap items-end gap-2">
          <div className="min-w-0 grow sm:max-w-sm sm:grow-0">
            <label htmlFor={ADD_ID} className="mb-1 block text-sm font-medium">
              {t('languages.add')}
            </label>
            <select
              id={ADD_ID}
              value={chosen}
              onChange={(event) => setAdding(addable.find((l) => l === event.target.value) ?? '')}
              className={`${inputClass} h-11 border-zinc-700`}
            >
              <option value="">{t('languages.addChoose')}</option>
              {addable.map((locale) => (
                <option key={locale} value={locale}>
                  {label(locale)}
                </option>
              ))}
            </select>
          </div>
          <button
            type="button"
            className="button-secondary h-11 px-4 text-sm"
            disabled={!chosen}
            onClick={() => chosen && setEditing({ locale: chosen, translation: null })}
            data-testid="add-translation"
          >
            <Plus aria-hidden="true" className="size-4" />
            {t('languages.addButton')}
          </button>
        </div>
      ) : (
        <p className="text-sm text-zinc-400">{t('languages.allAdded')}</p>
      )}
      {removing ? (
        <ConfirmDialog
          title={t('languages.removeTitle', { language: nameOf(removing).inInterface })}
          text={t('languages.removeText')}
          cancelLabel={t('form.cancel')}
          confirmLabel={t('languages.remove')}
          busyLabel={t('languages.removing')}
          danger
          confirmTestId="confirm-remove-translation"
          onConfirm={async () => {
            const saved = await removeTranslation(roleId, removing)
            notify(t('languages.removed', { language: nameOf(removing).inInterface }), { type: 'success' })
            focusNext.current = LIST_TITLE_ID
            setRemoving(null)
            setLoad({ kind: 'ready', list: saved })
          }}
          describeError={(error) => apiErrorMessage(tCommon, error)}
          onClose={() => setRemoving(null)}
        />
      ) : null}
    </div>
  )
}

function TranslationItem({
  translation,
  name,
  own,
  onEdit,
  onRemove,
}: {
  translation: RoleTranslation
  name: LanguageName
  /** A translation into what is now the character's own language: kept, but not shown. */
  own: boolean
  onEdit: () => void
  onRemove: () => void
}) {
  const { t } = useTranslation('characters-edit')
  const language = name.inInterface
  const machine = translation.origin === 'machine'
  return (
    <li className="flex flex-wrap items-center gap-x-4 gap-y-2 p-3" data-testid={`translation-${translation.locale}`}>
      <div className="min-w-0 grow">
        <p className="font-medium">
          <span lang={LOCALE_TAGS[translation.locale]}>{name.own}</span>
          {name.inInterface !== name.own ? (
            <span className="ms-2 text-sm text-zinc-400">{name.inInterface}</span>
          ) : null}
        </p>
        <p className="mt-1 flex flex-wrap gap-x-3 gap-y-1 text-xs">
          <span className={`inline-flex items-center gap-1 ${machine ? 'text-sky-300' : 'text-emerald-300'}`}>
            {machine ? (
              <Bot aria-hidden="true" className="size-3.5" />
            ) : (
              <UserRound aria-hidden="true" className="size-3.5" />
            )}
            {machine ? t('languages.machine') : t('languages.byYou')}
          </span>
          {translation.stale ? (
            <span className="inline-flex items-center gap-1 text-amber-300">
              <TriangleAlert aria-hidden="true" className="size-3.5" />
              {t('languages.stale')}
            </span>
          ) : null}
          {own ? <span className="text-zinc-400">{t('languages.ownLanguage')}</span> : null}
        </p>
      </div>
      <div className="flex gap-1">
        <button
          type="button"
          id={editButtonId(translation.locale)}
          className="button-ghost"
          aria-label={t('languages.editLabel', { language })}
          onClick={onEdit}
        >
          <Pencil aria-hidden="true" className="size-4" />
          {t('languages.edit')}
        </button>
        <button
          type="button"
          className="button-ghost text-rose-300"
          aria-label={t('languages.removeLabel', { language })}
          onClick={onRemove}
        >
          <Trash2 aria-hidden="true" className="size-4" />
          {t('languages.remove')}
        </button>
      </div>
    </li>
  )
}
