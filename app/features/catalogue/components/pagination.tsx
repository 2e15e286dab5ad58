import { ChevronLeft, ChevronRight } from 'lucide-react'
import { useId } from 'react'
import { Form, Link } from 'react-router'
import { useTranslation } from '#app/lib/i18n-react.tsx'

/**
 * Previous, Next, 'Page X of Y' and a jump-to-page form. Plain links and a GET form: it works before
 * the JavaScript loads, and every page has its own URL.
 */
export function Pagination({
  page,
  totalPages,
  hrefFor,
  action,
  hidden,
}: {
  page: number
  totalPages: number
  hrefFor: (page: number) => string
  /** Where the jump form submits, with the other list parameters as hidden fields. */
  action: string
  hidden: [string, string][]
}) {
  const { t } = useTranslation('catalogue')
  const inputId = useId()
  if (totalPages <= 1) return null
  const linkClass =
    'inline-flex items-center gap-1 rounded-full border border-zinc-700 px-3 py-1.5 text-sm hover:bg-zinc-800'
  const disabledClass =
    'inline-flex items-center gap-1 rounded-full border border-zinc-800 px-3 py-1.5 text-sm text-zinc-500'
  return (
    <nav aria-label={t('pagination.label')} className="mt-8 flex flex-wrap items-center justify-center gap-3">
      {page > 1 ? (
        <Link to={hrefFor(page - 1)} rel="prev" className={linkClass}>
          <ChevronLeft aria-hidden="true" className="size-4 rtl:rotate-180" />
          {t('pagination.previous')}
        </Link>
      ) : (
        <span className={disabledClass} aria-disabled="true">
          <ChevronLeft aria-hidden="true" className="size-4 rtl:rotate-180" />
          {t('pagination.previous')}
        </span>
      )}
      <span className="text-sm text-zinc-300" aria-current="page">
        {t('pagination.pageOf', { page, total: totalPages })}
      </span>
      {page < totalPages ? (
        <Link to={hrefFor(page + 1)} rel="next" className={linkClass}>
          {t('pagination.next')}
          <ChevronRight aria-hidden="true" className="size-4 rtl:rotate-180" />
        </Link>
      ) : (
        <span className={disabledClass} aria-disabled="true">
          {t('pagination.next')}
          <ChevronRight aria-hidden="true" className="size-4 rtl:rotate-180" />
        </span>
      )}
      <Form method="get" action={action} className="flex items-center gap-2">
        {hidden.map(([name, value]) => (
          <input key={`${name}=${value}`} type="hidden" name={name} value={value} />
        ))}
        <label htmlFor={inputId} className="text-sm text-zinc-400">
          {t('pagination.jumpLabel')}
        </label>
        <input
          id={inputId}
          name="page"
          type="number"
          inputMode="numeric"
          min={1}
          max={totalPages}
          required
          defaultValue={page}
          key={page}
          className="h-8 w-20 rounded-lg border border-zinc-700 bg-zinc-900 px-2 text-sm"
        />
        <button type="submit" className="rounded-full bg-zinc-800 px-3 py-1.5 text-sm hover:bg-zinc-700">
          {t('pagination.go')}
        </button>
      </Form>
    </nav>
  )
}
