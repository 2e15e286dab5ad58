import { useConsoleState } from '#app/features/console/console-state.ts'
import { formatDateTime, formatNumber } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { routeLocale } from '#app/lib/route-locale.ts'
import type { Route } from './+types/console.ts'

export const handle = { i18n: ['console'] }

/** `/console`: the caller's role and second-factor state. */
export default function ConsoleOverview({ params }: Route.ComponentProps) {
  const { t } = useTranslation('console')
  const { me } = useConsoleState()
  const locale = routeLocale(params)
  return (
    <section>
      <h1 className="mb-4 text-2xl font-bold">{t('overview.title')}</h1>
      <dl className="grid max-w-xl grid-cols-[auto_1fr] gap-x-6 gap-y-2 rounded-2xl border border-zinc-800 bg-zinc-900 p-5">
        <dt className="text-zinc-400">{t('role.label')}</dt>
        <dd>{t(`role.${me.role ?? 'moderator'}`)}</dd>
        <dt className="text-zinc-400">{t('overview.recoveryLeft')}</dt>
        <dd>{formatNumber(locale, me.recoveryCodesLeft)}</dd>
        <dt className="text-zinc-400">{t('overview.confirmedUntil')}</dt>
        <dd>{me.confirmedUntil ? formatDateTime(locale, me.confirmedUntil) : t('overview.needsCode')}</dd>
      </dl>
    </section>
  )
}
