import { Loading, Pager } from '#app/features/console/components/load-state.tsx'
import { fieldClass } from '#app/features/console/components/note-field.tsx'
import { formatNumber } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import type { Locale } from '#contracts/locales.ts'

export const PAGE_SIZE = 50

/** The small "Sandbox" mark of a test order or plan. */
export function SandboxMark() {
  const { t } = useTranslation('console-money')
  return (
    <span
      className="ms-2 inline-block rounded-full border border-amber-400/60 px-2 py-0.5 text-xs font-semibold text-amber-300"
      data-testid="sandbox-mark"
    >
      {t('sandbox')}
    </span>
  )
}

/** Loading, the problem, or "nothing matches" before a list's table. */
export function ListState({ loaded, empty, problem }: { loaded: boolean; empty: boolean; problem: string | null }) {
  const { t } = useTranslation('console-money')
  if (problem)
    return (
      <p role="alert" className="mb-3 text-rose-300">
        {problem}
      </p>
    )
  if (!loaded) return <Loading label={t('loading')} />
  if (empty) return <p className="py-6 text-zinc-400">{t('empty')}</p>
  return null
}

export function Paging({
  locale,
  page,
  hasMore,
  onPage,
}: {
  locale: Locale
  page: number
  hasMore: boolean
  onPage: (page: number) => void
}) {
  const { t } = useTranslation('console-money')
  const words = {
    label: t('paging.label'),
    previous: t('paging.previous'),
    next: t('paging.next'),
    current: t('paging.page', { page: formatNumber(locale, page) }),
  }
  return <Pager words={words} page={page} hasMore={hasMore} onPage={onPage} />
}

/** A labelled select of a filter form: "Any" first, then each value in the page's words. */
export function FilterSelect({
  id,
  label,
  value,
  options,
  onChange,
}: {
  id: string
  label: string
  value: string
  options: readonly { value: string; label: string }[]
  onChange: (value: string) => void
}) {
  const { t } = useTranslation('console-money')
  return (
    <div>
      <label htmlFor={id} className="mb-1 block text-sm font-medium">
        {label}
      </label>
      <select id={id} value={value} onChange={(event) => onChange(event.target.value)} className={fieldClass}>
        <option value="">{t('filters.any')}</option>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
    </div>
  )
}
