import { BookOpen } from 'lucide-react'
import { useState } from 'react'
import { formatDate } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { notify } from '#app/lib/notify.tsx'
import type { Locale } from '#contracts/locales.ts'
import { LOREBOOK_EXPORT_FORMATS, type LorebookExportFormat, type LorebookSummary } from '#contracts/lorebooks.ts'
import { deleteLorebook } from '../api/delete-lorebook.ts'
import { downloadLorebook } from '../api/export-lorebook.ts'
import { importLorebookFile } from '../api/import-lorebook.ts'
import { listMyLorebooks } from '../api/list-my-lorebooks.ts'
import { useDownload } from '../hooks/use-download.ts'
import { useFilePick } from '../hooks/use-file-pick.ts'
import { useOwnList } from '../hooks/use-own-list.ts'
import { lorebookImportProblem } from '../lorebook-problem.ts'
import { DownloadButton } from './download-button.tsx'
import { FilePickButton, FileProblem } from './file-pick.tsx'
import { ConfirmDelete, DeleteButton, OwnListStatus } from './own-list.tsx'

const fetchBooks = (signal?: AbortSignal) => listMyLorebooks(signal).then(({ items }) => items)

/** "My lorebooks" (ADR 043): import a World Info or V3 file, download each book in both formats, delete. */
export function MyLorebooks({ locale }: { locale: Locale }) {
  const { t } = useTranslation('characters-edit')
  const { t: tCommon } = useTranslation()
  const { load, reload, change } = useOwnList(fetchBooks)
  const [deleting, setDeleting] = useState<LorebookSummary | null>(null)

  const picker = useFilePick(
    async (file) => {
      const { lorebook } = await importLorebookFile(file)
      change((books) => [lorebook, ...books])
      notify(t('lorebooks.imported', { name: lorebook.name }), { type: 'success' })
    },
    (failure) => t('lorebooks.importFailed', { reason: lorebookImportProblem(t, tCommon, failure) }),
  )

  return (
    <div>
      <section className="mb-6 rounded-2xl border border-dashed border-zinc-700 p-4">
        <p className="text-sm text-zinc-400">{t('myLorebooks.text')}</p>
        <FilePickButton
          picker={picker}
          accept=".json,application/json"
          label={t('lorebooks.import')}
          busyLabel={t('lorebooks.reading')}
          className="button-secondary mt-3 px-4 py-2 text-sm"
          testId="my-lorebook-file"
        />
        <FileProblem problem={picker.problem} />
      </section>
      {load.kind === 'ready' && load.items.length > 0 ? (
        <ul className="grid gap-3" data-testid="my-lorebooks">
          {load.items.map((book) => (
            <LorebookRow key={book.id} book={book} locale={locale} onDelete={() => setDeleting(book)} />
          ))}
        </ul>
      ) : (
        <OwnListStatus
          load={load}
          loading={t('myLorebooks.loading')}
          failed={(reason) => t('lorebooks.loadFailed', { reason })}
          empty={t('myLorebooks.empty')}
          onRetry={() => reload()}
        />
      )}
      {deleting ? (
        <ConfirmDelete
          name={deleting.name}
          text={t('myLorebooks.confirmText')}
          remove={() => deleteLorebook(deleting.id)}
          testId="confirm-delete-lorebook"
          onClose={() => setDeleting(null)}
          onDeleted={() => {
            notify(t('myLorebooks.deleted', { name: deleting.name }), { type: 'success' })
            change((books) => books.filter((b) => b.id !== deleting.id))
            setDeleting(null)
          }}
        />
      ) : null}
    </div>
  )
}

function LorebookRow({ book, locale, onDelete }: { book: LorebookSummary; locale: Locale; onDelete: () => void }) {
  const { t } = useTranslation('characters-edit')
  const { busy, download } = useDownload(
    (format: LorebookExportFormat) => downloadLorebook(book.id, format, book.name),
    t('myLorebooks.exportFailed'),
  )
  return (
    <li className="flex flex-wrap items-center justify-between gap-3 rounded-2xl border border-zinc-800 bg-zinc-900 p-4">
      <div className="min-w-0">
        <h2 className="flex items-center gap-2 font-semibold">
          <BookOpen aria-hidden="true" className="size-4 shrink-0 text-violet-300" />
          <span dir="auto" className="truncate">
            {book.name}
          </span>
        </h2>
        <p className="mt-1 flex flex-wrap gap-x-3 text-xs text-zinc-400">
          <span>{t('lorebooks.entries', { count: book.entryCount })}</span>
          <time dateTime={book.createdAt}>{t('myLorebooks.added', { date: formatDate(locale, book.createdAt) })}</time>
        </p>
      </div>
      <div className="flex flex-wrap items-center gap-1">
        {LOREBOOK_EXPORT_FORMATS.map((format) => (
          <DownloadButton
            key={format}
            busy={busy !== null}
            onClick={() => download(format)}
            label={
              format === 'v3'
                ? t('myLorebooks.exportV3Label', { name: book.name })
                : t('myLorebooks.exportWorldInfoLabel', { name: book.name })
            }
          >
            {format === 'v3' ? t('myLorebooks.exportV3') : t('myLorebooks.exportWorldInfo')}
          </DownloadButton>
        ))}
        <DeleteButton name={book.name} onClick={onDelete} />
      </div>
    </li>
  )
}
