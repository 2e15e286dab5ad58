import { useTranslation } from 'react-i18next'
import { LocalizedLink } from '#app/components/localized-link.tsx'
import { formatDateTime, formatNumber } from '#app/lib/format.ts'
import type { QueueItem } from '#contracts/admin-moderation.ts'
import type { Locale } from '#contracts/locales.ts'
import { StateBadges } from './state-badges.tsx'

const th = 'p-3 text-start font-medium'

/**
 * The reports queue as a table: each character's name is the link to its report (Tab moves from
 * one to the next, Enter opens it), its creator, state, how many reports from how many people, the
 * reasons with their counts and the newest report's time.
 */
export function QueueTable({ locale, items }: { locale: Locale; items: QueueItem[] }) {
  const { t } = useTranslation('console-moderation')
  const { t: te } = useTranslation('characters-edit')
  return (
    <div className="overflow-x-auto rounded-2xl border border-zinc-800">
      <table className="w-full text-sm" data-testid="reports-queue">
        <caption className="sr-only">{t('queue.caption')}</caption>
        <thead className="bg-zinc-900 text-zinc-300">
          <tr>
            <th scope="col" className={th}>
              {t('queue.character')}
            </th>
            <th scope="col" className={th}>
              {t('queue.creator')}
            </th>
            <th scope="col" className={th}>
              {t('queue.state')}
            </th>
            <th scope="col" className={th}>
              {t('queue.reports')}
            </th>
            <th scope="col" className={th}>
              {t('queue.reporters')}
            </th>
            <th scope="col" className={th}>
              {t('queue.reasons')}
            </th>
            <th scope="col" className={th}>
              {t('queue.newest')}
            </th>
          </tr>
        </thead>
        <tbody>
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
        </tbody>
      </table>
    </div>
  )
}
