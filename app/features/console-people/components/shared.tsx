import type { ReactNode } from 'react'
import { useTranslation } from 'react-i18next'

export const inputClass =
  'h-10 w-full rounded-lg border border-zinc-700 bg-zinc-950 px-3 text-zinc-100 focus:border-violet-400 focus:outline-none aria-[invalid=true]:border-rose-400'
export const thClass = 'p-3 text-start font-medium'
export const tdClass = 'p-3 align-top'
export const tableWrapClass = 'overflow-x-auto rounded-2xl border border-zinc-800'
export const linkClass = 'text-violet-300 underline hover:text-violet-200'

/** One part of a person's page: a heading (for the outline and `aria-labelledby`) and its content. */
export function Part({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section aria-labelledby={id} className="space-y-3">
      <h2 id={id} className="text-lg font-semibold">
        {title}
      </h2>
      {children}
    </section>
  )
}

/** A table with its caption (read by screen readers) and a header row of `columns`. */
export function Table({
  caption,
  columns,
  children,
  testId,
}: {
  caption: string
  columns: string[]
  children: ReactNode
  testId?: string
}) {
  return (
    <div className={tableWrapClass}>
      <table className="w-full text-sm" data-testid={testId}>
        <caption className="sr-only">{caption}</caption>
        <thead className="bg-zinc-900 text-zinc-300">
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col" className={thClass}>
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  )
}

/** "Suspended" or "Active", as a small mark. */
export function StateMark({ suspended }: { suspended: boolean }) {
  const { t } = useTranslation('console-people')
  return suspended ? (
    <span
      className="inline-block rounded-full border border-rose-400/60 px-2 py-0.5 text-xs font-semibold text-rose-300"
      data-testid="suspended-mark"
    >
      {t('state.suspended')}
    </span>
  ) : (
    <span className="inline-block rounded-full border border-zinc-600 px-2 py-0.5 text-xs font-semibold text-zinc-300">
      {t('state.active')}
    </span>
  )
}
