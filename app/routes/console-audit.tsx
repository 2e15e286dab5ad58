import { Download } from 'lucide-react'
import { type FormEvent, useCallback, useEffect, useId, useState } from 'react'
import type { z } from 'zod'
import { adminApi, adminDownload } from '#app/features/console/admin-api.ts'
import { inputClass } from '#app/features/console/components/code-field.tsx'
import { Loading } from '#app/features/console/components/load-state.tsx'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { formatDateTime, formatNumber } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { routeLocale } from '#app/lib/route-locale.ts'
import { type auditPageSchema, auditQuery } from '#contracts/admin-staff.ts'
import type { Route } from './+types/console-audit.ts'

export const handle = { i18n: ['console'] }

type AuditPage = z.infer<typeof auditPageSchema>
type Filter = { actorId: string; action: string; targetType: string; targetId: string }
const NO_FILTER: Filter = { actorId: '', action: '', targetType: '', targetId: '' }
const TARGET_TYPES = auditQuery.shape.targetType.unwrap().options
const PAGE_SIZE = 50

function queryOf(filter: Filter, page?: number) {
  const query = new URLSearchParams()
  for (const [key, value] of Object.entries(filter)) if (value.trim()) query.set(key, value.trim())
  if (page) {
    query.set('page', String(page))
    query.set('pageSize', String(PAGE_SIZE))
  }
  return query.toString()
}

/** `/console/audit` (admin): the audit log, filtered and paged, and its CSV export. */
export default function ConsoleAudit({ params }: Route.ComponentProps) {
  const { t } = useTranslation('console')
  const { t: tc } = useTranslation()
  const locale = routeLocale(params)
  const id = useId()
  const [draft, setDraft] = useState<Filter>(NO_FILTER)
  const [filter, setFilter] = useState<Filter>(NO_FILTER)
  const [page, setPage] = useState(1)
  const [data, setData] = useState<AuditPage | null>(null)
  const [problem, setProblem] = useState<string | null>(null)
  const [exporting, setExporting] = useState(false)

  const load = useCallback(
    async (signal?: AbortSignal) => {
      setProblem(null)
      try {
        setData(await adminApi<AuditPage>(`/admin/audit?${queryOf(filter, page)}`, { signal }))
      } catch (error) {
        if (!signal?.aborted) setProblem(apiErrorMessage(tc, error))
      }
    },
    [filter, page, tc],
  )
  useEffect(() => {
    const controller = new AbortController()
    void load(controller.signal)
    return () => controller.abort()
  }, [load])

  const apply = (event: FormEvent) => {
    event.preventDefault()
    setPage(1)
    setFilter(draft)
  }
  const exportCsv = async () => {
    setExporting(true)
    try {
      await adminDownload(`/admin/audit.csv?${queryOf(filter)}`, 'audit.csv')
    } catch (error) {
      setProblem(apiErrorMessage(tc, error))
    }
    setExporting(false)
  }
  /** A known target type in words; one the client does not know yet stays as its code. */
  const targetTypeLabel = (type: string) => {
    const known = TARGET_TYPES.find((candidate) => candidate === type)
    return known ? t(`audit.types.${known}`) : type
  }
  const pages = data ? Math.max(1, Math.ceil(data.total / PAGE_SIZE)) : 1
  const field = (key: keyof Filter, label: string) => (
    <div>
      <label htmlFor={`${id}-${key}`} className="mb-1 block text-sm font-medium">
        {label}
      </label>
      {key === 'targetType' ? (
        <select
          id={`${id}-${key}`}
          value={draft.targetType}
          onChange={(event) => setDraft({ ...draft, targetType: event.target.value })}
          className={`${inputClass} h-10`}
        >
          <option value="">{t('audit.any')}</option>
          {TARGET_TYPES.map((type) => (
            <option key={type} value={type}>
              {t(`audit.types.${type}`)}
            </option>
          ))}
        </select>
      ) : (
        <input
          id={`${id}-${key}`}
          dir="ltr"
          value={draft[key]}
          onChange={(event) => setDraft({ ...draft, [key]: event.target.value })}
          className={`${inputClass} h-10`}
        />
      )}
    </div>
  )

  return (
    <section>
      <div className="mb-4 flex flex-wrap items-center justify-between gap-3">
        <h1 className="text-2xl font-bold">{t('audit.title')}</h1>
        <button
          type="button"
          className="button-secondary"
          onClick={exportCsv}
          disabled={exporting}
          data-testid="audit-export"
        >
          <Download aria-hidden="true" className="size-4" />
          {exporting ? t('busy') : t('audit.export')}
        </button>
      </div>
      <form onSubmit={apply} className="mb-4 grid gap-3 sm:grid-cols-2 lg:grid-cols-4" aria-label={t('audit.filters')}>
        {field('actorId', t('audit.actor'))}
        {field('action', t('audit.action'))}
        {field('targetType', t('audit.targetType'))}
        {field('targetId', t('audit.targetId'))}
        <div className="flex gap-2 sm:col-span-2 lg:col-span-4">
          <button type="submit" className="button-primary">
            {t('audit.apply')}
          </button>
          <button
            type="button"
            className="button-secondary"
            onClick={() => {
              setDraft(NO_FILTER)
              setFilter(NO_FILTER)
              setPage(1)
            }}
          >
            {t('audit.clear')}
          </button>
        </div>
      </form>
      {problem ? (
        <p role="alert" className="mb-3 text-rose-300">
          {problem}
        </p>
      ) : null}
      {!data ? (
        <Loading label={t('loading')} />
      ) : data.items.length === 0 ? (
        <p className="py-6 text-zinc-400">{t('audit.empty')}</p>
      ) : (
        <div className="overflow-x-auto rounded-2xl border border-zinc-800">
          <table className="w-full text-start text-sm" data-testid="audit-table">
            <caption className="sr-only">{t('audit.title')}</caption>
            <thead className="bg-zinc-900 text-zinc-300">
              <tr>
                <th scope="col" className="p-3 text-start">
                  {t('audit.when')}
                </th>
                <th scope="col" className="p-3 text-start">
                  {t('audit.who')}
                </th>
                <th scope="col" className="p-3 text-start">
                  {t('audit.action')}
                </th>
                <th scope="col" className="p-3 text-start">
                  {t('audit.target')}
                </th>
                <th scope="col" className="p-3 text-start">
                  {t('audit.note')}
                </th>
              </tr>
            </thead>
            <tbody>
              {data.items.map((record) => (
                <tr key={record.id} className="border-t border-zinc-800">
                  <td className="p-3 whitespace-nowrap">{formatDateTime(locale, record.at)}</td>
                  <td className="p-3" dir="auto">
                    {record.actorLabel}
                  </td>
                  <td className="p-3 font-mono whitespace-nowrap" dir="ltr">
                    {record.action}
                  </td>
                  <td className="p-3">
                    <span className="block">{targetTypeLabel(record.targetType)}</span>
                    <span className="block text-xs text-zinc-400">
                      <bdi dir="ltr" className="font-mono break-all">
                        {record.targetId}
                      </bdi>
                    </span>
                  </td>
                  <td className="p-3" dir="auto">
                    {record.note}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {data ? (
        <nav aria-label={t('audit.paging')} className="mt-4 flex flex-wrap items-center gap-3">
          <button type="button" className="button-secondary" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            {t('audit.previous')}
          </button>
          <span className="text-sm text-zinc-400">
            {t('audit.page', { page: formatNumber(locale, page), pages: formatNumber(locale, pages) })} ·{' '}
            {t('audit.total', { total: formatNumber(locale, data.total) })}
          </span>
          <button type="button" className="button-secondary" disabled={page >= pages} onClick={() => setPage(page + 1)}>
            {t('audit.next')}
          </button>
        </nav>
      ) : null}
    </section>
  )
}
