import { Loading } from '#app/features/console/components/load-state.tsx'
import { useAdminData } from '#app/features/console/use-admin-data.ts'
import { DailyCharts } from '#app/features/console-health/components/daily-charts.tsx'
import { JobsPanel } from '#app/features/console-health/components/jobs-panel.tsx'
import { ModelsPanel } from '#app/features/console-health/components/models-panel.tsx'
import { getDaily, getJobs, getModels } from '#app/features/console-health/health-api.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { routeLocale } from '#app/lib/route-locale.ts'
import type { Route } from './+types/console-health.ts'

export const handle = { i18n: ['console-health'] }

/** Console pages are one person's: never stored by a shared cache. */
export const headers = () => ({ 'Cache-Control': 'private, no-store' })

/**
 * `/console/health` (admin, ADR 057): the last 30 UTC days as small charts with their tables,
 * the job queue with Retry, and the models with their last check. Rendered inside the console's
 * layout, which checks the role and the second factor; each part loads on its own.
 */
export default function ConsoleHealth({ params }: Route.ComponentProps) {
  const { t } = useTranslation('console-health')
  const locale = routeLocale(params)
  const daily = useAdminData(getDaily)
  const jobs = useAdminData(getJobs)
  const models = useAdminData(getModels)
  return (
    <section className="space-y-8">
      <header className="flex flex-wrap items-baseline justify-between gap-3">
        <div>
          <h1 className="text-2xl font-bold">{t('meta.title')}</h1>
          <p className="mt-1 text-zinc-400">{t('intro')}</p>
        </div>
        <button
          type="button"
          className="button-secondary px-4 py-2 text-sm"
          onClick={() => {
            daily.reload()
            jobs.reload()
            models.reload()
          }}
        >
          {t('reload')}
        </button>
      </header>
      <Part problem={daily.problem} loaded={daily.data !== null}>
        {daily.data ? <DailyCharts locale={locale} daily={daily.data} /> : null}
      </Part>
      <Part problem={jobs.problem} loaded={jobs.data !== null}>
        {jobs.data ? <JobsPanel locale={locale} jobs={jobs.data} onRetried={jobs.reload} /> : null}
      </Part>
      <Part problem={models.problem} loaded={models.data !== null}>
        {models.data ? <ModelsPanel locale={locale} models={models.data} /> : null}
      </Part>
    </section>
  )
}

/** A part of the page: its problem, "Loading…" until its data came, then the part. */
function Part({ problem, loaded, children }: { problem: string | null; loaded: boolean; children: React.ReactNode }) {
  const { t } = useTranslation('console-health')
  if (problem)
    return (
      <p role="alert" className="text-rose-300">
        {problem}
      </p>
    )
  if (!loaded) return <Loading label={t('loading')} />
  return <>{children}</>
}
