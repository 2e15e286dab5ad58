import { useTranslation } from 'react-i18next'
import { formatDateTime } from '#app/lib/format.ts'
import type { ReportedCharacter } from '#contracts/admin-moderation.ts'
import type { Locale } from '#contracts/locales.ts'

const th = 'p-3 text-start font-medium'
const wrap = 'overflow-x-auto rounded-2xl border border-zinc-800'

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
        <div className={wrap}>
          <table className="w-full text-sm" data-testid="open-reports">
            <caption className="sr-only">{t('reports.open')}</caption>
            <thead className="bg-zinc-900 text-zinc-300">
              <tr>
                <th scope="col" className={th}>
                  {t('reports.reason')}
                </th>
                <th scope="col" className={th}>
                  {t('reports.details')}
                </th>
                <th scope="col" className={th}>
                  {t('reports.reporter')}
                </th>
                <th scope="col" className={th}>
                  {t('reports.reported')}
                </th>
              </tr>
            </thead>
            <tbody>
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
            </tbody>
          </table>
        </div>
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
      <div className={wrap}>
        <table className="w-full text-sm" data-testid="closed-reports">
          <caption className="sr-only">{t('reports.closed')}</caption>
          <thead className="bg-zinc-900 text-zinc-300">
            <tr>
              <th scope="col" className={th}>
                {t('reports.reason')}
              </th>
              <th scope="col" className={th}>
                {t('reports.outcome')}
              </th>
              <th scope="col" className={th}>
                {t('reports.reported')}
              </th>
              <th scope="col" className={th}>
                {t('reports.handled')}
              </th>
            </tr>
          </thead>
          <tbody>
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
          </tbody>
        </table>
      </div>
    </section>
  )
}
