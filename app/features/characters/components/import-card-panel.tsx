import type { TFunction } from 'i18next'
import { X } from 'lucide-react'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import type { CardProblem } from '#contracts/api-errors.ts'
import {
  CARD_IMPORT_ERRORS,
  CARD_REPORT_REASONS,
  type CardReportReason,
  CHARACTER_TEXT_FIELDS,
  type CharacterTextField,
  type ImportResult,
} from '#contracts/characters.ts'
import { importCardFile } from '../api/import-card.ts'
import { useFilePick } from '../hooks/use-file-pick.ts'
import { fieldErrorText } from './field-error.ts'
import { FilePickButton, FileProblem } from './file-pick.tsx'

/** "Import a card": reads a PNG, JSON or CHARX card on the server and hands the draft to the form. */
export function ImportCardPanel({
  locale,
  onImported,
}: {
  locale: string
  onImported: (result: ImportResult) => void
}) {
  const { t } = useTranslation('characters-edit')
  const { t: tCommon } = useTranslation()
  const picker = useFilePick(
    async (file) => onImported(await importCardFile(file, locale)),
    (failure) => t('import.failed', { reason: importErrorText(failure) }),
  )

  /** A card the server could not read says why (`details.reason`); other failures get the common words. */
  function cardProblemText(problem: CardProblem): string | undefined {
    if (problem.reason === 'too_large' && problem.field === LOREBOOK_ENTRIES && problem.limit !== undefined) {
      return t('importErrors.too_many_entries', { count: problem.limit })
    }
    if (problem.reason === 'too_large' && problem.field)
      return t('importErrors.too_large_field', { field: problem.field })
    return (CARD_IMPORT_ERRORS as readonly string[]).includes(problem.reason)
      ? t(`importErrors.${problem.reason}`)
      : undefined
  }

  function importErrorText(failure: unknown): string {
    return apiErrorMessage(tCommon, failure, {
      own: {
        INVALID_CARD: cardProblemText,
        // 413 is also the image size of the form; only a card has a `reason`.
        PAYLOAD_TOO_LARGE: (details) => (details && !Array.isArray(details) ? cardProblemText(details) : undefined),
      },
    })
  }

  return (
    <section aria-labelledby="import-title" className="mb-6 rounded-2xl border border-dashed border-zinc-700 p-4">
      <h2 id="import-title" className="text-base font-semibold">
        {t('import.title')}
      </h2>
      <p className="mt-1 text-sm text-zinc-400">{t('import.text')}</p>
      <FilePickButton
        picker={picker}
        accept=".png,.json,.charx,image/png,application/json"
        label={t('import.choose')}
        busyLabel={t('import.reading')}
        className="button-secondary mt-3 px-4 py-2 text-sm"
        testId="card-file"
        ids={{ input: 'card-file', button: 'import-button' }}
      />
      <FileProblem problem={picker.problem} />
    </section>
  )
}

/** The card field of a lorebook with more entries than a character may have (the codec's and the service's path). */
const LOREBOOK_ENTRIES = 'character_book.entries'

/** The form field a problem of the filled form is about, in the user's words. */
function fieldLabel(t: TFunction<'characters-edit'>, path: string): string {
  const [field = path, index] = path.split('.')
  if (field === 'alternateGreetings' && index !== undefined) return t('form.greeting', { number: Number(index) + 1 })
  if (field === 'tags') return t('form.tags')
  if (field === 'lorebook') return t('form.lorebookLabel')
  if (field === 'cardExtras') return t('form.cardExtras')
  if ((CHARACTER_TEXT_FIELDS as readonly string[]).includes(field) || field === 'alternateGreetings') {
    return t(`form.${field as CharacterTextField | 'alternateGreetings'}`)
  }
  return field
}

function reasonParts(entry: string): { reason: string; path: string | null } {
  const at = entry.indexOf(':')
  return at < 0 ? { reason: entry, path: null } : { reason: entry.slice(0, at), path: entry.slice(at + 1) }
}

/** What the import repaired or left out, in words, with the card field each one concerns. */
export function ImportReport({ result, onDismiss }: { result: ImportResult; onDismiss: () => void }) {
  const { t } = useTranslation('characters-edit')
  const describe = (entry: string) => {
    const { reason, path } = reasonParts(entry)
    const text = (CARD_REPORT_REASONS as readonly string[]).includes(reason)
      ? t(`importReasons.${reason as CardReportReason}`)
      : reason
    return (
      <li key={entry} className="flex flex-wrap items-baseline gap-x-2">
        <span>{text}</span>
        {path ? (
          <code dir="ltr" className="rounded bg-zinc-950 px-1 text-xs text-zinc-300">
            {path}
          </code>
        ) : null}
      </li>
    )
  }
  const { repaired, ignored, problems } = result.report
  return (
    <section
      role="status"
      aria-labelledby="import-report-title"
      className="mb-6 rounded-2xl border border-emerald-800 bg-emerald-950/40 p-4 text-sm"
      data-testid="import-report"
    >
      <div className="flex items-start justify-between gap-3">
        <div>
          <h2 id="import-report-title" className="font-semibold text-emerald-200">
            {t('import.done')}
          </h2>
          <p className="mt-0.5 text-xs text-emerald-300">
            {t('import.summary', { format: result.format.toUpperCase(), version: result.version.toUpperCase() })}
          </p>
        </div>
        <button type="button" className="icon-button size-8" aria-label={t('import.dismiss')} onClick={onDismiss}>
          <X aria-hidden="true" className="size-4" />
        </button>
      </div>
      {repaired.length === 0 && ignored.length === 0 && problems.length === 0 ? (
        <p className="mt-2 text-zinc-300">{t('import.clean')}</p>
      ) : null}
      {problems.length > 0 ? (
        <div className="mt-2" data-testid="import-problems">
          <p className="font-medium text-amber-200">{t('import.problems')}</p>
          <ul className="mt-1 list-disc space-y-0.5 ps-5 text-zinc-300">
            {problems.map((problem) => (
              <li key={problem.path}>
                {t('import.problem', { field: fieldLabel(t, problem.path), problem: fieldErrorText(t, problem) })}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {repaired.length > 0 ? (
        <details className="mt-2" open={repaired.length <= 5}>
          <summary className="cursor-pointer font-medium text-zinc-200">
            {t('import.repaired')} ({repaired.length})
          </summary>
          <ul className="mt-1 list-disc space-y-0.5 ps-5 text-zinc-300">{repaired.map(describe)}</ul>
        </details>
      ) : null}
      {ignored.length > 0 ? (
        <details className="mt-2" open={ignored.length <= 5}>
          <summary className="cursor-pointer font-medium text-zinc-200">
            {t('import.ignored')} ({ignored.length})
          </summary>
          <ul className="mt-1 list-disc space-y-0.5 ps-5 text-zinc-300">{ignored.map(describe)}</ul>
        </details>
      ) : null}
    </section>
  )
}
