import { useState } from 'react'
import { LocalizedLink } from '#app/components/localized-link.tsx'
import { Loading, ProblemRetry } from '#app/features/console/components/load-state.tsx'
import { useAdminData } from '#app/features/console/use-admin-data.ts'
import { PersonAccount } from '#app/features/console-people/components/person-account.tsx'
import { PersonActions } from '#app/features/console-people/components/person-actions.tsx'
import {
  PersonCharacters,
  PersonReports,
  PersonWarnings,
} from '#app/features/console-people/components/person-content.tsx'
import { PersonDiamonds } from '#app/features/console-people/components/person-diamonds.tsx'
import { StateMark } from '#app/features/console-people/components/shared.tsx'
import { getPerson } from '#app/features/console-people/people-api.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { routeLocale } from '#app/lib/route-locale.ts'
import { useUserInfo } from '#app/lib/user-info.ts'
import type { Route } from './+types/console-people-person.ts'

export const handle = { i18n: ['console-people'] }

/** Console pages are one person's: never stored by a shared cache. */
export const headers = () => ({ 'Cache-Control': 'private, no-store' })

/**
 * `/console/people/:userId` (admin, ADR 060): the account, plan, diamonds and ledger, characters,
 * reports, warnings, suspension (never a chat), and the actions, each with a required note.
 */
export default function ConsolePeoplePerson({ params }: Route.ComponentProps) {
  const { t } = useTranslation('console-people')
  const locale = routeLocale(params)
  const userId = params.userId
  // The server refuses to suspend, delete or pay one's own account; the page does not offer it
  // (known once the user info has loaded; the e-mail is unique).
  const me = useUserInfo()
  const { data: person, problem, reload } = useAdminData((signal) => getPerson(userId, signal), userId)
  const [done, setDone] = useState<string | null>(null)
  const [deleted, setDeleted] = useState(false)

  const back = (
    <LocalizedLink to="/console/people" className="text-sm text-violet-300 underline hover:text-violet-200">
      {t('person.back')}
    </LocalizedLink>
  )
  const status = done ? (
    <p role="status" className="mb-4 text-emerald-300" data-testid="person-done">
      {done}
    </p>
  ) : null
  if (deleted) {
    return (
      <section>
        {back}
        <h1 className="mt-2 mb-4 text-2xl font-bold">{t('meta.title')}</h1>
        {status}
      </section>
    )
  }
  return (
    <section>
      {back}
      <h1 className="mt-2 mb-4 flex flex-wrap items-center gap-3 text-2xl font-bold">
        {person ? (
          <>
            <span dir="auto">{person.account.username}</span>
            <StateMark suspended={person.suspended !== null} />
          </>
        ) : (
          t('meta.title')
        )}
      </h1>
      <ProblemRetry problem={problem} retryLabel={t('retry')} onRetry={reload} />
      {!person ? (
        problem ? null : (
          <Loading label={t('loading')} />
        )
      ) : (
        <div className="space-y-8">
          <PersonAccount locale={locale} person={person} />
          {/* What the last action did, right above the forms it came from. */}
          {status}
          <PersonActions
            key={person.suspended ? 'suspended' : 'active'}
            locale={locale}
            person={person}
            own={me !== null && me.email.toLowerCase() === person.account.email.toLowerCase()}
            onDone={(message, outcome) => {
              // Said once the page shows the account as it now is, not over the old state.
              if (outcome === 'deleted') {
                setDone(message)
                setDeleted(true)
              } else void reload().then(() => setDone(message))
            }}
          />
          <PersonDiamonds locale={locale} person={person} />
          <PersonCharacters locale={locale} person={person} />
          <PersonReports locale={locale} person={person} />
          <PersonWarnings locale={locale} person={person} />
        </div>
      )}
    </section>
  )
}
