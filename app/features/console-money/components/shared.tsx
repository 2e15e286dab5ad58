import { useCallback, useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { formatNumber } from '#app/lib/format.ts'
import type { MoneyPage } from '#contracts/admin-money.ts'
import type { Locale } from '#contracts/locales.ts'

export const inputClass =
  'h-10 w-full rounded-lg border border-zinc-700 bg-zinc-950 px-3 text-zinc-100 focus:border-violet-400 focus:outline-none aria-[invalid=true]:border-rose-400'
export const PAGE_SIZE = 50

/** A page of a console list, loaded again when `key` (the filter and the page) changes. */
export function useMoneyList<T>(load: (signal: AbortSignal) => Promise<MoneyPage<T>>, key: string) {
  const { t: tc } = useTranslation()
  const [data, setData] = useState<MoneyPage<T> | null>(null)
  const [problem, setProblem] = useState<string | null>(null)
  const [round, setRound] = useState(0)
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` stands for what `load` reads; `round` reloads
  const run = useCallback(
    async (signal: AbortSignal) => {
      setProblem(null)
      try {
        setData(await load(signal))
      } catch (error) {
        if (!signal.aborted) setProblem(apiErrorMessage(tc, error))
      }
    },
    [key, round, tc],
  )
  useEffect(() => {
    const controller = new AbortController()
    void run(controller.signal)
    return () => controller.abort()
  }, [run])
  return { data, problem, reload: () => setRound((n) => n + 1) }
}

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
  if (!loaded)
    return (
      <p role="status" className="py-6 text-zinc-400">
        {t('loading')}
      </p>
    )
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
  return (
    <nav aria-label={t('paging.label')} className="mt-4 flex flex-wrap items-center gap-3">
      <button type="button" className="button-secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        {t('paging.previous')}
      </button>
      <span className="text-sm text-zinc-400" aria-current="page">
        {t('paging.page', { page: formatNumber(locale, page) })}
      </span>
      <button type="button" className="button-secondary" disabled={!hasMore} onClick={() => onPage(page + 1)}>
        {t('paging.next')}
      </button>
    </nav>
  )
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
      <select id={id} value={value} onChange={(event) => onChange(event.target.value)} className={inputClass}>
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

export const thClass = 'p-3 text-start font-medium'
export const tableWrapClass = 'overflow-x-auto rounded-2xl border border-zinc-800'
