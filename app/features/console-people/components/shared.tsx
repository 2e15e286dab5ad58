import type { ReactNode } from 'react'
import { useTranslation } from '#app/lib/i18n-react.tsx'

export const tdClass = 'p-3 align-top'
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
