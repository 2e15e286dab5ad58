import { ConsoleTable } from '#app/features/console/components/console-table.tsx'
import { formatDateTime, formatNumber } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { isLedgerReason, type PersonDetail } from '#contracts/admin-people.ts'
import type { Locale } from '#contracts/locales.ts'
import { Part, tdClass } from './shared.tsx'

/** The balance and the newest ledger entries, amounts signed and grouped by the locale. */
export function PersonDiamonds({ locale, person }: { locale: Locale; person: PersonDetail }) {
  const { t } = useTranslation('console-people')
  return (
    <Part id="person-diamonds" title={t('person.balance')}>
      <p className="text-2xl font-semibold" data-testid="person-balance">
        {formatNumber(locale, person.balance)}
      </p>
      <h3 className="font-medium text-zinc-300">{t('person.ledger')}</h3>
      {person.ledger.length === 0 ? (
        <p className="text-zinc-400">{t('person.noLedger')}</p>
      ) : (
        <ConsoleTable
          caption={t('person.ledger')}
          testId="person-ledger"
          columns={[t('columns.when'), t('columns.amount'), t('columns.reason'), t('columns.reference')]}
        >
          {person.ledger.map((entry) => (
            <tr key={entry.reference} className="border-t border-zinc-800">
              <td className={`${tdClass} whitespace-nowrap`}>{formatDateTime(locale, entry.createdAt)}</td>
              <td
                className={`${tdClass} whitespace-nowrap tabular-nums ${entry.amount < 0 ? 'text-rose-300' : 'text-emerald-300'}`}
              >
                {formatNumber(locale, entry.amount, { signDisplay: 'always' })}
              </td>
              <td className={tdClass}>
                {isLedgerReason(entry.reason) ? t(`ledgerReason.${entry.reason}`) : <bdi dir="ltr">{entry.reason}</bdi>}
              </td>
              <td className={`${tdClass} font-mono text-xs break-all text-zinc-400`}>
                <bdi dir="ltr">{entry.reference}</bdi>
              </td>
            </tr>
          ))}
        </ConsoleTable>
      )}
    </Part>
  )
}
