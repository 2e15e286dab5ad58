import { type FormEvent, useEffect, useId, useState } from 'react'
import { useSearchParams } from 'react-router'
import { Loading } from '#app/features/console/components/load-state.tsx'
import { fieldClass } from '#app/features/console/components/note-field.tsx'
import { PeopleResults } from '#app/features/console-people/components/people-results.tsx'
import { searchPeople } from '#app/features/console-people/people-api.ts'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { routeLocale } from '#app/lib/route-locale.ts'
import type { PeoplePage } from '#contracts/admin-people.ts'
import type { Route } from './+types/console-people.ts'

export const handle = { i18n: ['console-people'] }

/** Console pages are one person's: never stored by a shared cache. */
export const headers = () => ({ 'Cache-Control': 'private, no-store' })

/**
 * `/console/people` (admin, ADR 060): find a person by e-mail, username or id (`?q=`, `?page=` in
 * the address, so Back returns to the same results); each result links to their page.
 */
export default function ConsolePeople({ params }: Route.ComponentProps) {
  const { t } = useTranslation('console-people')
  const { t: tc } = useTranslation()
  const locale = routeLocale(params)
  const id = useId()
  const [search, setSearch] = useSearchParams()
  const query = search.get('q')?.trim() ?? ''
  const page = Math.max(1, Math.floor(Number(search.get('page'))) || 1)
  const [draft, setDraft] = useState(query)
  const [data, setData] = useState<PeoplePage | null>(null)
  const [problem, setProblem] = useState<string | null>(null)

  useEffect(() => setDraft(query), [query])
  useEffect(() => {
    setData(null)
    setProblem(null)
    if (!query) return
    const controller = new AbortController()
    searchPeople(query, page, controller.signal).then(setData, (error: unknown) => {
      if (!controller.signal.aborted) setProblem(apiErrorMessage(tc, error))
    })
    return () => controller.abort()
  }, [query, page, tc])

  const submit = (event: FormEvent) => {
    event.preventDefault()
    const q = draft.trim()
    setSearch(q ? { q } : {})
  }

  return (
    <section>
      <h1 className="mb-4 text-2xl font-bold">{t('meta.title')}</h1>
      <search className="mb-5 block max-w-xl">
        <form onSubmit={submit}>
          <label htmlFor={`${id}-q`} className="mb-1 block text-sm font-medium">
            {t('search.label')}
          </label>
          <div className="flex gap-2">
            <input
              id={`${id}-q`}
              type="search"
              dir="auto"
              autoComplete="off"
              spellCheck={false}
              value={draft}
              onChange={(event) => setDraft(event.target.value)}
              aria-describedby={`${id}-hint`}
              className={fieldClass}
            />
            <button type="submit" className="button-primary h-10 shrink-0 py-0">
              {t('search.submit')}
            </button>
          </div>
          <p id={`${id}-hint`} className="mt-1 text-xs text-zinc-400">
            {t('search.hint')}
          </p>
        </form>
      </search>
      {!query ? (
        <p className="py-6 text-zinc-400">{t('search.prompt')}</p>
      ) : problem ? (
        <p role="alert" className="text-rose-300">
          {problem}
        </p>
      ) : !data ? (
        <Loading label={t('loading')} />
      ) : (
        <PeopleResults
          locale={locale}
          data={data}
          onPage={(next) => setSearch({ q: query, ...(next > 1 ? { page: String(next) } : {}) })}
        />
      )}
    </section>
  )
}
