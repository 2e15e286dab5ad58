import { LocalizedLink } from '#app/components/localized-link.tsx'
import { ConsoleTable } from '#app/features/console/components/console-table.tsx'
import { formatDateTime, formatNumber } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import type { QueueItem } from '#contracts/admin-moderation.ts'
import type { Locale } from '#contracts/locales.ts'
import { StateBadges } from './state-badges.tsx'

/**
 * The reports queue as a table: each character's name is the link to its report (Tab moves from
 * one to the next, Enter opens it), its creator, state, how many reports from how many people, the
 * reasons with their counts and the newest report's time.
 */
export function QueueTable({ locale, items }: { locale: Locale; items: QueueItem[] }) {
  const { t } = useTranslation('console-moderation')
  const { t: te } = useTranslation('characters-edit')
  return (
    <ConsoleTable
      caption={t('queue.caption')}
      testId="reports-queue"
      columns={[
        t('queue.character'),
        t('queue.creator'),
        t('queue.state'),
        t('queue.reports'),
        t('queue.reporters'),
        t('queue.reasons'),
        t('queue.newest'),
      ]}
    >
      {items.map((item) => (
        <tr key={item.character.id} className="border-t border-zinc-800 align-top">
          <th scope="row" className="p-3 text-start font-normal">
            <span className="flex items-center gap-3">
              {item.character.avatarUrl ? (
                <img src={item.character.avatarUrl} alt="" className="size-10 shrink-0 rounded-lg object-cover" />
              ) : (
                <span aria-hidden="true" className="size-10 shrink-0 rounded-lg bg-zinc-800" />
              )}
              <LocalizedLink
                to={`/console/reports/${encodeURIComponent(item.character.id)}`}
                className="font-medium text-violet-300 underline hover:text-violet-200"
                dir="auto"
              >
                {item.character.name}
              </LocalizedLink>
            </span>
          </th>
          <td className="p-3">
            {item.character.creator ? (
              <bdi dir="auto">{item.character.creator.username}</bdi>
            ) : (
              <span className="text-zinc-400">{t('state.noCreator')}</span>
            )}
          </td>
          <td className="p-3">
            <StateBadges
              visibility={item.character.visibility}
              hidden={item.character.hidden}
              isAdult={item.character.isAdult}
            />
          </td>
          <td className="p-3 tabular-nums">{formatNumber(locale, item.reports)}</td>
          <td className="p-3 tabular-nums">{formatNumber(locale, item.reporters)}</td>
          <td className="p-3">
            <ul className="space-y-0.5">
              {item.reasons.map((r) => (
                <li key={r.reason}>
                  {te(`report.reasons.${r.reason}`)}{' '}
                  <span className="text-zinc-400 tabular-nums">({formatNumber(locale, r.count)})</span>
                </li>
              ))}
            </ul>
          </td>
          <td className="p-3 whitespace-nowrap">{formatDateTime(locale, item.lastReportedAt)}</td>
        </tr>
      ))}
    </ConsoleTable>
  )
}
