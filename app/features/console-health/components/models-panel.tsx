import { useId } from 'react'
import { formatNumber } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import type { HealthModels } from '#contracts/admin-health.ts'
import type { Locale } from '#contracts/locales.ts'

const STATUS_CLASS: Record<HealthModels['models'][number]['status'], string> = {
  ok: 'border-emerald-400/60 text-emerald-300',
  unreachable: 'border-rose-400/60 text-rose-300',
  credentials_refused: 'border-rose-400/60 text-rose-300',
  failing: 'border-amber-400/60 text-amber-300',
  unknown: 'border-zinc-500 text-zinc-300',
}

/** The configured models (ADR 057): server, default and premium marks, last check explained, today's replies. */
export function ModelsPanel({ locale, models }: { locale: Locale; models: HealthModels }) {
  const { t } = useTranslation('console-health')
  const id = useId()
  const count = (value: number) => formatNumber(locale, value)
  return (
    <section aria-labelledby={`${id}-title`} className="space-y-4">
      <h2 id={`${id}-title`} className="text-xl font-semibold">
        {t('models.title')}
      </h2>
      {models.anyReachable ? null : (
        <p role="status" className="rounded-lg border border-amber-400/60 p-3 text-amber-200">
          {t('models.noneReachable')}
        </p>
      )}
      {models.models.length === 0 ? (
        <p className="text-zinc-400">{t('models.noneConfigured')}</p>
      ) : (
        <ul className="grid gap-3" data-testid="health-models">
          {models.models.map((model) => (
            <li key={model.id} className="rounded-2xl border border-zinc-800 bg-zinc-900 p-4">
              <div className="flex flex-wrap items-center gap-2">
                <span className="font-semibold" dir="auto">
                  {model.name}
                </span>
                <span className="font-mono text-xs text-zinc-400">
                  <bdi dir="ltr">{model.id}</bdi>
                </span>
                {model.default ? (
                  <span className="rounded-full border border-violet-400/60 px-2 py-0.5 text-xs text-violet-200">
                    {t('models.default')}
                  </span>
                ) : null}
                {model.premium ? (
                  <span className="rounded-full border border-amber-400/60 px-2 py-0.5 text-xs text-amber-200">
                    {t('models.premium')}
                  </span>
                ) : null}
              </div>
              <dl className="mt-3 grid gap-x-6 gap-y-2 text-sm sm:grid-cols-[auto_1fr]">
                <dt className="text-zinc-400">{t('models.host')}</dt>
                <dd className="font-mono">
                  <bdi dir="ltr">{model.host || t('none')}</bdi>
                </dd>
                <dt className="text-zinc-400">{t('models.status')}</dt>
                <dd>
                  <span
                    className={`inline-block rounded-full border px-2 py-0.5 text-xs font-semibold ${STATUS_CLASS[model.status]}`}
                    data-testid="model-status"
                  >
                    {t(`models.statuses.${model.status}`)}
                  </span>
                  <span className="mt-1 block text-zinc-300">{t(`models.explain.${model.status}`)}</span>
                </dd>
                <dt className="text-zinc-400">{t('models.today')}</dt>
                <dd className="tabular-nums">
                  {t('models.todayCounts', { ok: count(model.today.ok), failed: count(model.today.failed) })}
                </dd>
              </dl>
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}
