import { useId } from 'react'
import { formatNumber, formatPrice } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { type HealthDaily, type HealthDay, REPLY_ERROR_KINDS } from '#contracts/admin-health.ts'
import type { Locale } from '#contracts/locales.ts'
import { type ChartLine, DayChart } from './day-chart.tsx'

const sum = (values: readonly (number | null)[]) => values.reduce<number>((a, b) => a + (b ?? 0), 0)

/** The last value that is not null (the newest day with a figure). */
const latest = (values: readonly (number | null)[]) => values.findLast((v) => v !== null) ?? null

/**
 * The dashboard's daily charts (ADR 057): sign-ups, active users, messages, model errors by kind,
 * time to first token (p50 and p95, the mean in the table) and revenue, one chart per currency.
 */
export function DailyCharts({ locale, daily }: { locale: Locale; daily: HealthDaily }) {
  const { t } = useTranslation('console-health')
  const id = useId()
  const days = daily.days.map((d) => d.day)
  const count = (value: number) => formatNumber(locale, value)
  const series = (pick: (day: HealthDay) => number | null) => daily.days.map(pick)
  const total = (lines: readonly ChartLine[]) => t('total', { value: count(sum(lines.flatMap((l) => l.values))) })

  const signUps: ChartLine[] = [{ key: 'signUps', label: t('charts.signUps'), values: series((d) => d.signUps) }]
  const active: ChartLine[] = [
    { key: 'activeUsers', label: t('charts.activeUsers'), values: series((d) => d.activeUsers) },
  ]
  const messages: ChartLine[] = [
    { key: 'userMessages', label: t('charts.userMessages'), values: series((d) => d.userMessages) },
    { key: 'replies', label: t('charts.replies'), values: series((d) => d.replies) },
  ]
  const errors: ChartLine[] = REPLY_ERROR_KINDS.map((kind) => ({
    key: kind,
    label: t(`errorKinds.${kind}`),
    values: series((d) => d.errors[kind] ?? 0),
  }))

  // First-token times are the "at most" bound of a histogram bucket; above the last bound, the
  // line stays at that bound and the table says "over" it.
  const lastBound = daily.ttftBucketsMs[daily.ttftBucketsMs.length - 1] ?? 0
  const seconds = (ms: number) =>
    formatNumber(locale, ms / 1000, { style: 'unit', unit: 'second', unitDisplay: 'narrow', maximumFractionDigits: 2 })
  const ttftValue = (ms: number | null, over: boolean) => (over ? lastBound : ms)
  const ttft: ChartLine[] = [
    { key: 'p50', label: t('charts.p50'), values: series((d) => ttftValue(d.ttft.p50Ms, d.ttft.p50OverLastBound)) },
    { key: 'p95', label: t('charts.p95'), values: series((d) => ttftValue(d.ttft.p95Ms, d.ttft.p95OverLastBound)) },
  ]
  const ttftCell = (line: ChartLine, index: number) => {
    const day = daily.days[index]
    if (!day) return t('none')
    const [ms, over] =
      line.key === 'p50' ? [day.ttft.p50Ms, day.ttft.p50OverLastBound] : [day.ttft.p95Ms, day.ttft.p95OverLastBound]
    if (over) return t('ttft.over', { value: seconds(lastBound) })
    return ms === null ? t('none') : t('ttft.atMost', { value: seconds(ms) })
  }
  const p50Line = ttft[0] as ChartLine
  const lastTimed = daily.days.findLastIndex((d) => d.ttft.count > 0)

  return (
    <section aria-labelledby={`${id}-title`} className="space-y-4">
      <h2 id={`${id}-title`} className="text-xl font-semibold">
        {t('activity.title')}
      </h2>
      <div className="grid gap-4 lg:grid-cols-2">
        <DayChart
          locale={locale}
          title={t('charts.signUps')}
          days={days}
          lines={signUps}
          format={count}
          summary={total(signUps)}
          testId="chart-signups"
        />
        <DayChart
          locale={locale}
          title={t('charts.activeUsers')}
          days={days}
          lines={active}
          format={count}
          summary={t('latest', { value: count(latest(active[0]?.values ?? []) ?? 0) })}
          testId="chart-active"
        />
        <DayChart
          locale={locale}
          title={t('charts.messages')}
          days={days}
          lines={messages}
          format={count}
          summary={total(messages.slice(0, 1))}
          testId="chart-messages"
        />
        {daily.currencies.length === 0 ? (
          <DayChart
            locale={locale}
            title={t('charts.revenueNone')}
            days={days}
            lines={[{ key: 'revenue', label: t('charts.amount'), values: series(() => 0) }]}
            format={count}
            testId="chart-revenue"
          />
        ) : (
          daily.currencies.map((currency) => {
            const amounts = series((d) => d.revenue.find((r) => r.currency === currency)?.amount ?? 0)
            const orders = series((d) => d.revenue.find((r) => r.currency === currency)?.orders ?? 0)
            const price = (minor: number) => formatPrice(locale, minor, currency)
            return (
              <DayChart
                key={currency}
                locale={locale}
                title={t('charts.revenue', { currency })}
                days={days}
                lines={[{ key: 'amount', label: t('charts.amount'), values: amounts }]}
                format={price}
                summary={t('total', { value: price(sum(amounts)) })}
                extraColumns={[{ label: t('charts.orders'), value: (index) => count(orders[index] ?? 0) }]}
                testId={`chart-revenue-${currency}`}
              />
            )
          })
        )}
        <DayChart
          locale={locale}
          title={t('charts.errors')}
          days={days}
          lines={errors}
          format={count}
          summary={total(errors)}
          wide
          testId="chart-errors"
        />
        <div className="lg:col-span-2">
          <DayChart
            locale={locale}
            title={t('charts.ttft')}
            days={days}
            lines={ttft}
            format={seconds}
            cell={ttftCell}
            summary={lastTimed < 0 ? undefined : t('latest', { value: ttftCell(p50Line, lastTimed) })}
            extraColumns={[
              {
                label: t('charts.mean'),
                value: (index) => {
                  const mean = daily.days[index]?.ttft.meanMs ?? null
                  return mean === null ? t('none') : seconds(mean)
                },
              },
            ]}
            testId="chart-ttft"
          />
          <p className="mt-2 text-xs text-zinc-400">{t('ttft.note')}</p>
        </div>
      </div>
    </section>
  )
}
