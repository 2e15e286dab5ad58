import { useId } from 'react'
import { formatDate, formatShortDay } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { directionOf, type Locale } from '#contracts/locales.ts'
import { CHART_HEIGHT, CHART_WIDTH, linePath, lonePoints, niceMax } from '../chart-geometry.ts'

export type ChartLine = { key: string; label: string; values: readonly (number | null)[] }

/** Line colours readable on the console's dark panels, each with its own dash for those who cannot tell colours apart. */
const STYLES = [
  { color: '#a78bfa', dash: undefined },
  { color: '#38bdf8', dash: '6 4' },
  { color: '#fbbf24', dash: '2 3' },
  { color: '#fb7185', dash: '10 3 2 3' },
  { color: '#34d399', dash: '1 5' },
] as const
const styleOf = (index: number) => STYLES[index % STYLES.length] ?? STYLES[0]

/**
 * One daily series (or a few) over the dashboard's days as a small inline SVG chart: an
 * accessible name (title and first and last day), a legend when there are several lines, the
 * scale's top and the days as HTML around it (so they follow the page's direction), and the same
 * numbers as a table under "Show as table". `summary` is the figure beside the title; `cell`
 * writes a table cell (by default `format` of the value). A series without anything above zero
 * says "No data yet" over its zero line.
 */
export function DayChart({
  locale,
  title,
  days,
  lines,
  format,
  summary,
  cell,
  extraColumns = [],
  wide = false,
  testId,
}: {
  locale: Locale
  title: string
  days: readonly string[]
  lines: readonly ChartLine[]
  format: (value: number) => string
  summary?: string
  cell?: (line: ChartLine, dayIndex: number) => string
  extraColumns?: readonly { label: string; value: (dayIndex: number) => string }[]
  /** Across both columns of the grid (many lines: their legend and table need the room). */
  wide?: boolean
  testId?: string
}) {
  const { t } = useTranslation('console-health')
  const id = useId()
  const rtl = directionOf(locale) === 'rtl'
  const values = lines.flatMap((line) => line.values.filter((v): v is number => v !== null))
  const empty = !values.some((v) => v > 0)
  const top = niceMax(Math.max(0, ...values))
  const first = days[0] ?? ''
  const last = days[days.length - 1] ?? ''
  const middle = days[Math.floor((days.length - 1) / 2)] ?? ''
  const none = t('none')
  const cellOf =
    cell ??
    ((line: ChartLine, index: number) => {
      const value = line.values[index]
      return value === null || value === undefined ? none : format(value)
    })

  return (
    <figure
      className={`rounded-2xl border border-zinc-800 bg-zinc-900 p-4 ${wide ? 'lg:col-span-2' : ''}`}
      data-testid={testId}
    >
      <figcaption className="mb-2 flex flex-wrap items-baseline justify-between gap-x-3">
        <h3 id={`${id}-title`} className="font-semibold">
          {title}
        </h3>
        {summary ? <span className="text-sm text-zinc-300">{summary}</span> : null}
      </figcaption>
      {lines.length > 1 ? (
        <ul className="mb-2 flex flex-wrap gap-x-4 gap-y-1 text-xs text-zinc-300">
          {lines.map((line, index) => (
            <li key={line.key} className="flex items-center gap-1.5">
              <svg aria-hidden="true" viewBox="0 0 20 4" className="h-1 w-5">
                <line
                  x1="0"
                  y1="2"
                  x2="20"
                  y2="2"
                  stroke={styleOf(index).color}
                  strokeWidth="4"
                  strokeDasharray={styleOf(index).dash}
                />
              </svg>
              {line.label}
            </li>
          ))}
        </ul>
      ) : null}
      <div className="flex gap-2">
        <div className="flex w-14 shrink-0 flex-col justify-between text-end text-xs text-zinc-400" aria-hidden="true">
          <span>{format(top)}</span>
          <span>{format(0)}</span>
        </div>
        <div className="relative min-w-0 flex-1">
          <svg
            role="img"
            aria-label={t('chartName', {
              title,
              first: formatDate(locale, first, 'medium'),
              last: formatDate(locale, last, 'medium'),
            })}
            viewBox={`0 0 ${CHART_WIDTH} ${CHART_HEIGHT}`}
            preserveAspectRatio="none"
            className="h-28 w-full overflow-visible"
          >
            {[0, 0.5, 1].map((f) => (
              <line
                key={f}
                x1="0"
                x2={CHART_WIDTH}
                y1={CHART_HEIGHT * f}
                y2={CHART_HEIGHT * f}
                stroke={f === 1 ? '#71717a' : '#3f3f46'}
                strokeWidth="1"
                vectorEffect="non-scaling-stroke"
              />
            ))}
            {lines.map((line, index) => (
              <g key={line.key} stroke={styleOf(index).color} fill="none" strokeLinecap="round">
                <path
                  d={linePath(line.values, top, rtl)}
                  strokeWidth="2.5"
                  strokeDasharray={styleOf(index).dash}
                  strokeLinejoin="round"
                  vectorEffect="non-scaling-stroke"
                />
                <path d={lonePoints(line.values, top, rtl)} strokeWidth="7" vectorEffect="non-scaling-stroke" />
              </g>
            ))}
          </svg>
          {empty ? (
            <p className="absolute inset-0 flex items-center justify-center text-sm text-zinc-400">{t('noData')}</p>
          ) : null}
        </div>
      </div>
      <div className="ms-16 mt-1 flex justify-between text-xs text-zinc-400" aria-hidden="true">
        <span>{first ? formatShortDay(locale, first) : null}</span>
        <span>{middle ? formatShortDay(locale, middle) : null}</span>
        <span>{last ? formatShortDay(locale, last) : null}</span>
      </div>
      <details className="mt-3 text-sm">
        <summary className="cursor-pointer text-violet-300">{t('showTable')}</summary>
        {/* Columns as wide as their longest word; a chart with many lines spans the grid, so nothing scrolls sideways. */}
        <div className="mt-2 rounded-lg border border-zinc-800">
          <table className="w-full text-sm" data-testid={testId ? `${testId}-table` : undefined}>
            <caption className="sr-only">{title}</caption>
            <thead className="bg-zinc-900 text-xs text-zinc-300">
              <tr>
                <th scope="col" className="p-2 text-start align-bottom font-medium">
                  {t('day')}
                </th>
                {lines.map((line) => (
                  <th key={line.key} scope="col" className="p-2 text-end align-bottom font-medium">
                    {line.label}
                  </th>
                ))}
                {extraColumns.map((column) => (
                  <th key={column.label} scope="col" className="p-2 text-end align-bottom font-medium">
                    {column.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {days.map((day, index) => (
                <tr key={day} className="border-t border-zinc-800" data-day={day}>
                  <th scope="row" className="p-2 text-start font-normal">
                    {formatDate(locale, day, 'medium')}
                  </th>
                  {lines.map((line) => (
                    <td key={line.key} className="p-2 text-end tabular-nums">
                      {cellOf(line, index)}
                    </td>
                  ))}
                  {extraColumns.map((column) => (
                    <td key={column.label} className="p-2 text-end tabular-nums">
                      {column.value(index)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  )
}
