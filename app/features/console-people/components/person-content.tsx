import { LocalizedLink } from '#app/components/localized-link.tsx'
import { ConsoleTable } from '#app/features/console/components/console-table.tsx'
import { formatDateTime, formatNumber } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import type { PersonDetail } from '#contracts/admin-people.ts'
import type { Locale } from '#contracts/locales.ts'
import { linkClass, Part, tdClass } from './shared.tsx'

type Props = { locale: Locale; person: PersonDetail }

/** Their characters: visibility, why hidden (a moderator, their suspension), the adult mark. */
export function PersonCharacters({ locale, person }: Props) {
  const { t } = useTranslation('console-people')
  return (
    <Part id="person-characters" title={t('person.characters')}>
      {person.characters.length === 0 ? (
        <p className="text-zinc-400">{t('person.noCharacters')}</p>
      ) : (
        <ConsoleTable
          caption={t('person.characters')}
          testId="person-characters"
          columns={[t('columns.character'), t('columns.visibility'), t('columns.chats'), t('columns.created')]}
        >
          {person.characters.map((character) => (
            <tr key={character.publicId} className="border-t border-zinc-800">
              <td className={tdClass}>
                <LocalizedLink to={`/characters/${character.publicId}`} className={linkClass} dir="auto">
                  {character.name}
                </LocalizedLink>
                {character.isAdult ? (
                  <span className="ms-2 rounded-full border border-zinc-600 px-2 py-0.5 text-xs">{t('adult')}</span>
                ) : null}
              </td>
              <td className={tdClass}>
                {t(`visibility.${character.visibility}`)}
                {character.hiddenBy.map((cause) => (
                  <span key={cause} className="block text-xs text-amber-300">
                    {t(`hidden.${cause}`)}
                  </span>
                ))}
              </td>
              <td className={`${tdClass} tabular-nums`}>{formatNumber(locale, character.chatCount)}</td>
              <td className={`${tdClass} whitespace-nowrap`}>{formatDateTime(locale, character.createdAt)}</td>
            </tr>
          ))}
        </ConsoleTable>
      )}
    </Part>
  )
}

/** Reports they made and reports about their characters, newest first, with how each ended. */
export function PersonReports({ locale, person }: Props) {
  const { t } = useTranslation('console-people')
  const state = (report: {
    status: 'open' | 'resolved' | 'dismissed'
    outcome: PersonDetail['reportsMade'][number]['outcome']
  }) => (report.outcome ? t(`outcomes.${report.outcome}`) : t(`reportStatus.${report.status}`))
  return (
    <>
      <Part id="person-reports-made" title={t('person.reportsMade')}>
        {person.reportsMade.length === 0 ? (
          <p className="text-zinc-400">{t('person.noReports')}</p>
        ) : (
          <ConsoleTable
            caption={t('person.reportsMade')}
            columns={[t('columns.when'), t('columns.character'), t('columns.reason'), t('columns.outcome')]}
          >
            {person.reportsMade.map((report) => (
              <tr key={report.id} className="border-t border-zinc-800">
                <td className={`${tdClass} whitespace-nowrap`}>{formatDateTime(locale, report.createdAt)}</td>
                <td className={tdClass}>
                  <LocalizedLink to={`/characters/${report.characterId}`} className={linkClass} dir="auto">
                    {report.characterName}
                  </LocalizedLink>
                </td>
                <td className={tdClass}>{t(`reasons.${report.reason}`)}</td>
                <td className={tdClass}>{state(report)}</td>
              </tr>
            ))}
          </ConsoleTable>
        )}
      </Part>
      <Part id="person-reports-received" title={t('person.reportsReceived')}>
        {person.reportsReceived.length === 0 ? (
          <p className="text-zinc-400">{t('person.noReports')}</p>
        ) : (
          <ConsoleTable
            caption={t('person.reportsReceived')}
            columns={[
              t('columns.when'),
              t('columns.character'),
              t('columns.reason'),
              t('columns.text'),
              t('columns.outcome'),
            ]}
          >
            {person.reportsReceived.map((report) => (
              <tr key={report.id} className="border-t border-zinc-800">
                <td className={`${tdClass} whitespace-nowrap`}>{formatDateTime(locale, report.createdAt)}</td>
                <td className={`${tdClass} font-mono text-xs`}>
                  <LocalizedLink to={`/characters/${report.characterId}`} className={linkClass} dir="ltr">
                    {report.characterId}
                  </LocalizedLink>
                </td>
                <td className={tdClass}>{t(`reasons.${report.reason}`)}</td>
                <td className={`${tdClass} whitespace-pre-line`} dir="auto">
                  {report.text}
                </td>
                <td className={tdClass}>{state(report)}</td>
              </tr>
            ))}
          </ConsoleTable>
        )}
      </Part>
    </>
  )
}

/** The warnings they received, with the note as the operator wrote it. */
export function PersonWarnings({ locale, person }: Props) {
  const { t } = useTranslation('console-people')
  return (
    <Part id="person-warnings" title={t('person.warnings')}>
      {person.warnings.length === 0 ? (
        <p className="text-zinc-400">{t('person.noWarnings')}</p>
      ) : (
        <ul className="space-y-2" data-testid="person-warnings">
          {person.warnings.map((warning) => (
            <li key={`${warning.createdAt}:${warning.note}`} className="rounded-xl border border-zinc-800 p-3">
              <span className="block text-xs text-zinc-400">{formatDateTime(locale, warning.createdAt)}</span>
              <span dir="auto" className="whitespace-pre-line">
                {warning.note}
              </span>
            </li>
          ))}
        </ul>
      )}
    </Part>
  )
}
