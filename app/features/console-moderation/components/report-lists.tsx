import { ConsoleTable } from '#app/features/console/components/console-table.tsx'
import { formatDateTime } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import type { ReportedCharacter } from '#contracts/admin-moderation.ts'
import type { Locale } from '#contracts/locales.ts'

/** A character's open reports: reason, the reporter's words, who (an account id, never an address), when. */
export function OpenReports({ locale, reports }: { locale: Locale; reports: ReportedCharacter['openReports'] }) {
  const { t } = useTranslation('console-moderation')
  const { t: te } = useTranslation('characters-edit')
  return (
    <section aria-labelledby="open-reports-title">
      <h2 id="open-reports-title" className="mb-3 text-lg font-semibold">
        {t('reports.open')}
      </h2>
      {reports.length === 0 ? (
        <p className="text-zinc-400" data-testid="no-open-reports">
          {t('reports.none')}
        </p>
      ) : (
        <ConsoleTable
          caption={t('reports.open')}
          testId="open-reports"
          columns={[t('reports.reason'), t('reports.details'), t('reports.reporter'), t('reports.reported')]}
        >
          {reports.map((report) => (
            <tr key={report.id} className="border-t border-zinc-800 align-top">
              <td className="p-3">{te(`report.reasons.${report.reason}`)}</td>
              <td className="p-3 whitespace-pre-wrap break-words" dir="auto">
                {report.text || '—'}
              </td>
              <td className="p-3 font-mono text-xs whitespace-nowrap">
                {report.reporterId ? (
                  // The start of the account id, the whole of it on hover and to assistive technology.
                  <abbr title={report.reporterId} className="no-underline" dir="ltr">
                    {`${report.reporterId.slice(0, 8)}…`}
                  </abbr>
                ) : (
                  <span className="font-sans text-sm text-zinc-400">{t('reports.anonymous')}</span>
                )}
              </td>
              <td className="p-3 whitespace-nowrap">{formatDateTime(locale, report.reportedAt)}</td>
            </tr>
          ))}
        </ConsoleTable>
      )}
    </section>
  )
}

/** Reports already handled, newest first, with their outcome. */
export function ClosedReports({ locale, reports }: { locale: Locale; reports: ReportedCharacter['closedReports'] }) {
  const { t } = useTranslation('console-moderation')
  const { t: te } = useTranslation('characters-edit')
  if (reports.length === 0) return null
  return (
    <section aria-labelledby="closed-reports-title">
      <h2 id="closed-reports-title" className="mb-3 text-lg font-semibold">
        {t('reports.closed')}
      </h2>
      <ConsoleTable
        caption={t('reports.closed')}
        testId="closed-reports"
        columns={[t('reports.reason'), t('reports.outcome'), t('reports.reported'), t('reports.handled')]}
      >
        {reports.map((report) => (
          <tr key={report.id} className="border-t border-zinc-800 align-top">
            <td className="p-3">{te(`report.reasons.${report.reason}`)}</td>
            <td className="p-3">{report.outcome ? t(`outcome.${report.outcome}`) : '—'}</td>
            <td className="p-3 whitespace-nowrap">{formatDateTime(locale, report.reportedAt)}</td>
            <td className="p-3 whitespace-nowrap">
              {report.handledAt ? formatDateTime(locale, report.handledAt) : '—'}
            </td>
          </tr>
        ))}
      </ConsoleTable>
    </section>
  )
}
