import { LocalizedLink } from '#app/components/localized-link.tsx'
import { formatDate, formatDateTime, formatLanguage } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import type { PersonDetail } from '#contracts/admin-people.ts'
import { isLocale, type Locale } from '#contracts/locales.ts'
import { linkClass, Part } from './shared.tsx'

const dtClass = 'text-zinc-400'

/** Who they are: the account, how they sign in, their plan (with their orders) and any suspension. */
export function PersonAccount({ locale, person }: { locale: Locale; person: PersonDetail }) {
  const { t } = useTranslation('console-people')
  const { account, plan, suspended } = person
  const signIn = [
    account.hasPassword ? t('person.password') : null,
    account.googleLinked ? t('person.googleLinked') : null,
  ]
    .filter((method): method is string => method !== null)
    .join(' · ')
  const planStatus = plan && (['active', 'past_due', 'canceled'] as const).find((s) => s === plan.status)
  return (
    <Part id="person-account" title={t('person.account')}>
      <dl className="grid gap-x-6 gap-y-2 rounded-2xl border border-zinc-800 p-5 sm:grid-cols-[max-content_1fr]">
        <dt className={dtClass}>{t('person.id')}</dt>
        <dd className="font-mono text-sm break-all">
          <bdi dir="ltr">{account.id}</bdi>
        </dd>
        <dt className={dtClass}>{t('columns.email')}</dt>
        <dd className="break-all">
          <bdi dir="ltr">{account.email}</bdi>{' '}
          <span className="text-sm text-zinc-400">
            (
            {account.emailVerifiedAt
              ? t('person.verifiedOn', { date: formatDate(locale, account.emailVerifiedAt, 'medium') })
              : t('person.unverified')}
            )
          </span>
        </dd>
        <dt className={dtClass}>{t('person.signIn')}</dt>
        <dd>{signIn || t('person.noSignIn')}</dd>
        <dt className={dtClass}>{t('person.language')}</dt>
        <dd>{isLocale(account.locale) ? formatLanguage(locale, account.locale) : account.locale}</dd>
        <dt className={dtClass}>{t('columns.joined')}</dt>
        <dd>{formatDateTime(locale, account.createdAt)}</dd>
        <dt className={dtClass}>{t('person.plan')}</dt>
        <dd data-testid="person-plan">
          {plan ? (
            <>
              <bdi dir="ltr">{plan.planId}</bdi> · {planStatus ? t(`planStatus.${planStatus}`) : plan.status} ·{' '}
              {t('person.paidUntil', { date: formatDate(locale, plan.currentPeriodEnd, 'medium') })}
            </>
          ) : (
            t('person.freePlan')
          )}{' '}
          <LocalizedLink to={`/console/money?userId=${account.id}`} className={`${linkClass} ms-2 text-sm`}>
            {t('person.orders')}
          </LocalizedLink>
        </dd>
        <dt className={dtClass}>{t('person.suspension')}</dt>
        <dd data-testid="person-suspension">
          {suspended ? (
            <>
              <span className="font-semibold text-rose-300">
                {t('person.suspendedSince', {
                  date: formatDateTime(locale, suspended.at),
                  name: suspended.byName || t('person.formerStaff'),
                })}
              </span>
              <span className="mt-1 block text-sm">
                <span className="text-zinc-400">{t('person.why')}: </span>
                <span dir="auto">{suspended.note}</span>
              </span>
            </>
          ) : (
            t('person.notSuspended')
          )}
        </dd>
      </dl>
    </Part>
  )
}
