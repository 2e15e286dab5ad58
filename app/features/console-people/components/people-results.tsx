import { LocalizedLink } from '#app/components/localized-link.tsx'
import { ConsoleTable } from '#app/features/console/components/console-table.tsx'
import { Pager } from '#app/features/console/components/load-state.tsx'
import { formatDate, formatNumber } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import type { PeoplePage } from '#contracts/admin-people.ts'
import type { Locale } from '#contracts/locales.ts'
import { linkClass, StateMark, tdClass } from './shared.tsx'

/** The search's page of people (each a link to their page) and the paging under it. */
export function PeopleResults({
  locale,
  data,
  onPage,
}: {
  locale: Locale
  data: PeoplePage
  onPage: (page: number) => void
}) {
  const { t } = useTranslation('console-people')
  if (data.items.length === 0 && data.page === 1) {
    return (
      <p className="py-6 text-zinc-400" data-testid="people-empty">
        {t('search.empty')}
      </p>
    )
  }
  return (
    <>
      <ConsoleTable
        caption={t('search.results')}
        testId="people-results"
        columns={[
          t('columns.username'),
          t('columns.email'),
          t('columns.joined'),
          t('columns.verified'),
          t('columns.status'),
        ]}
      >
        {data.items.map((person) => (
          <tr key={person.id} className="border-t border-zinc-800">
            <td className={tdClass}>
              <LocalizedLink to={`/console/people/${person.id}`} className={linkClass} dir="auto">
                {person.username}
              </LocalizedLink>
            </td>
            <td className={`${tdClass} break-all`}>
              <bdi dir="ltr">{person.email}</bdi>
            </td>
            <td className={`${tdClass} whitespace-nowrap`}>{formatDate(locale, person.createdAt, 'medium')}</td>
            <td className={tdClass}>{person.emailVerifiedAt ? t('yes') : t('no')}</td>
            <td className={tdClass}>
              <StateMark suspended={person.suspended} />
            </td>
          </tr>
        ))}
      </ConsoleTable>
      {data.page === 1 && !data.hasMore ? null : (
        <Pager
          words={{
            label: t('paging.label'),
            previous: t('paging.previous'),
            next: t('paging.next'),
            current: t('paging.page', { page: formatNumber(locale, data.page) }),
          }}
          page={data.page}
          hasMore={data.hasMore}
          onPage={onPage}
        />
      )}
    </>
  )
}
