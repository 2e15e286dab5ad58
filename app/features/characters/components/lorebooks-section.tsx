import { BookOpen, Link2, Unlink } from 'lucide-react'
import { useEffect, useId, useState } from 'react'
import { LocalizedLink } from '#app/components/localized-link.tsx'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { notify } from '#app/lib/notify.tsx'
import { LOREBOOK_LIMITS, type LorebookSummary } from '#contracts/lorebooks.ts'
import { getAttachedLorebooks } from '../api/attached-lorebooks.ts'
import { importLorebookFile } from '../api/import-lorebook.ts'
import { listMyLorebooks } from '../api/list-my-lorebooks.ts'
import { saveAttachedLorebooks } from '../api/save-attached-lorebooks.ts'
import { useFilePick } from '../hooks/use-file-pick.ts'
import { lorebookImportProblem } from '../lorebook-problem.ts'
import { FilePickButton, FileProblem } from './file-pick.tsx'
import { Section } from './form-section.tsx'
import { inputClass } from './text-field.tsx'

/**
 * The lorebooks attached to the character being edited (ADR 043), held here until the form is saved:
 * `save(roleId)` then stores them (a new character has no id before). The form calls the hook and
 * renders `<LorebooksSection attachments={...} />`.
 */
export function useAttachedLorebooks(roleId: string | null) {
  const { t } = useTranslation('characters-edit')
  const { t: tCommon } = useTranslation()
  const [attached, setAttached] = useState<LorebookSummary[]>([])
  const [changed, setChanged] = useState(false)
  const [loadFailed, setLoadFailed] = useState<string | null>(null)
  useEffect(() => {
    if (!roleId) return
    const controller = new AbortController()
    getAttachedLorebooks(roleId, controller.signal).then(
      ({ lorebooks }) => setAttached(lorebooks),
      (error: unknown) => {
        if (!controller.signal.aborted) setLoadFailed(apiErrorMessage(tCommon, error))
      },
    )
    return () => controller.abort()
  }, [roleId, tCommon])

  return {
    attached,
    loadFailed,
    change(list: LorebookSummary[]) {
      setAttached(list)
      setChanged(true)
    },
    /** Stores the attachments after the character's save; a failure is told, the character stays saved. */
    async save(savedRoleId: string) {
      if (!changed) return
      try {
        await saveAttachedLorebooks(
          savedRoleId,
          attached.map((book) => book.id),
        )
        setChanged(false)
      } catch (failure) {
        notify(t('lorebooks.saveFailed', { reason: apiErrorMessage(tCommon, failure) }), { type: 'error' })
      }
    },
  }
}

export type AttachedLorebooksState = ReturnType<typeof useAttachedLorebooks>

/** "Lorebooks": attach one of mine, import a file as a new one, detach. Saved with the form. */
export function LorebooksSection({ attachments }: { attachments: AttachedLorebooksState }) {
  const { t } = useTranslation('characters-edit')
  const { t: tCommon } = useTranslation()
  const titleId = useId()
  const [mine, setMine] = useState<LorebookSummary[]>([])
  const [picked, setPicked] = useState('')
  /** My lorebooks could not be listed (until the next file is picked). */
  const [listProblem, setListProblem] = useState<string | null>(null)
  const { attached, change } = attachments

  useEffect(() => {
    const controller = new AbortController()
    listMyLorebooks(controller.signal).then(
      ({ items }) => setMine(items),
      (error: unknown) => {
        if (!controller.signal.aborted)
          setListProblem(t('lorebooks.loadFailed', { reason: apiErrorMessage(tCommon, error) }))
      },
    )
    return () => controller.abort()
  }, [t, tCommon])

  const full = attached.length >= LOREBOOK_LIMITS.perCharacter
  const choices = mine.filter((book) => !attached.some((a) => a.id === book.id))

  const picker = useFilePick(
    async (file) => {
      setListProblem(null)
      const { lorebook } = await importLorebookFile(file)
      setMine((list) => [lorebook, ...list])
      if (!full) change([...attached, lorebook])
      notify(t('lorebooks.imported', { name: lorebook.name }), { type: 'success' })
    },
    (failure) => t('lorebooks.importFailed', { reason: lorebookImportProblem(t, tCommon, failure) }),
  )

  return (
    <Section id={titleId} title={t('lorebooks.title')}>
      <p className="-mt-2 mb-4 text-sm text-zinc-400">{t('lorebooks.hint')}</p>
      {attachments.loadFailed ? (
        <p role="alert" className="mb-3 text-sm text-rose-300">
          {t('lorebooks.loadFailed', { reason: attachments.loadFailed })}
        </p>
      ) : null}
      {attached.length === 0 ? (
        <p className="mb-4 text-sm text-zinc-400">{t('lorebooks.none')}</p>
      ) : (
        <ul className="mb-4 space-y-2" data-testid="attached-lorebooks">
          {attached.map((book) => (
            <li
              key={book.id}
              className="flex flex-wrap items-center justify-between gap-2 rounded-lg bg-zinc-900 p-3 text-sm"
            >
              <span className="flex min-w-0 items-center gap-2">
                <BookOpen aria-hidden="true" className="size-4 shrink-0 text-violet-300" />
                <span dir="auto" className="truncate font-medium">
                  {book.name}
                </span>
                <span className="shrink-0 text-xs text-zinc-400">
                  {t('lorebooks.entries', { count: book.entryCount })}
                </span>
              </span>
              <button
                type="button"
                className="button-ghost"
                aria-label={t('lorebooks.detachLabel', { name: book.name })}
                onClick={() => change(attached.filter((a) => a.id !== book.id))}
              >
                <Unlink aria-hidden="true" className="size-4" />
                {t('lorebooks.detach')}
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="flex flex-wrap items-end gap-2">
        <label className="flex min-w-48 flex-1 flex-col gap-1 text-sm">
          <span className="font-medium">{t('lorebooks.pick')}</span>
          <select
            className={`${inputClass} h-11 border-zinc-700`}
            value={picked}
            disabled={choices.length === 0 || full}
            onChange={(event) => setPicked(event.target.value)}
            data-testid="lorebook-picker"
          >
            <option value="">{choices.length === 0 ? t('lorebooks.noChoice') : t('lorebooks.choose')}</option>
            {choices.map((book) => (
              <option key={book.id} value={book.id} dir="auto">
                {book.name}
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          className="button-secondary"
          disabled={!picked || full}
          onClick={() => {
            const book = mine.find((b) => b.id === picked)
            if (book) change([...attached, book])
            setPicked('')
          }}
          data-testid="attach-lorebook"
        >
          <Link2 aria-hidden="true" className="size-4" />
          {t('lorebooks.attach')}
        </button>
        <FilePickButton
          picker={picker}
          accept=".json,application/json"
          label={t('lorebooks.import')}
          busyLabel={t('lorebooks.reading')}
          className="button-secondary"
          testId="lorebook-file"
        />
      </div>
      <FileProblem problem={picker.problem ?? listProblem} />
      <p className="mt-3 text-sm">
        <LocalizedLink to="/characters/lorebooks" className="text-violet-300 underline hover:text-violet-200">
          {t('lorebooks.manage')}
        </LocalizedLink>
      </p>
    </Section>
  )
}
