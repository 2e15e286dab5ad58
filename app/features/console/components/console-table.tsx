import type { ReactNode } from 'react'

export const thClass = 'p-3 text-start font-medium'
export const tableWrapClass = 'overflow-x-auto rounded-2xl border border-zinc-800'

/**
 * A console list's table: scrolls sideways on a narrow screen, a caption read by screen readers and
 * a header row of `columns`; the rows are the children.
 */
export function ConsoleTable({
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
