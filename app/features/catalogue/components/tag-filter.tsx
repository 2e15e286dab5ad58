import { Filter, X } from 'lucide-react'
import { useEffect, useRef } from 'react'
import { Form, Link, useLocation } from 'react-router'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import type { Tag } from '#contracts/catalogue.ts'

/**
 * 'Filter Roles': tick tags, Apply. Chosen tags show as chips that remove themselves. A GET form,
 * so the filter is in the URL like everything else on the list.
 */
export function TagFilter({
  tags,
  selected,
  action,
  hidden,
  hrefWithout,
  clearHref,
}: {
  tags: Tag[]
  selected: string[]
  action: string
  hidden: [string, string][]
  hrefWithout: (slug: string) => string
  clearHref: string
}) {
  const { t } = useTranslation('catalogue')
  const chosen = tags.filter((tag) => selected.includes(tag.slug))
  const details = useRef<HTMLDetailsElement>(null)
  const { key } = useLocation()
  // Applying (or any other navigation) closes the panel so it never covers the results.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs on every navigation.
  useEffect(() => {
    if (details.current) details.current.open = false
  }, [key])
  return (
    <div className="flex flex-wrap items-center gap-2">
      <details ref={details} className="relative">
        <summary className="inline-flex cursor-pointer list-none items-center gap-2 rounded-full border border-zinc-700 px-3 py-1.5 text-sm hover:bg-zinc-800">
          <Filter aria-hidden="true" className="size-4" />
          {t('list.filterRoles')}
          {selected.length > 0 ? (
            <span className="rounded-full bg-violet-600 px-1.5 text-xs text-white">{selected.length}</span>
          ) : null}
        </summary>
        <Form
          method="get"
          action={action}
          className="absolute start-0 z-20 mt-2 w-[min(92vw,28rem)] rounded-xl border border-zinc-700 bg-zinc-900 p-4 shadow-2xl"
        >
          {hidden.map(([name, value]) => (
            <input key={`${name}=${value}`} type="hidden" name={name} value={value} />
          ))}
          <fieldset>
            <legend className="mb-3 text-sm font-semibold">{t('list.filterRoles')}</legend>
            <div className="flex flex-wrap gap-2">
              {tags.map((tag) => (
                <label
                  key={tag.slug}
                  className="cursor-pointer rounded-full border border-zinc-700 px-3 py-1 text-sm has-[:checked]:border-violet-400 has-[:checked]:bg-violet-600/30 has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-violet-400 has-[:focus-visible]:outline"
                >
                  <input
                    type="checkbox"
                    name="tags"
                    value={tag.slug}
                    defaultChecked={selected.includes(tag.slug)}
                    className="sr-only"
                  />
                  {tag.name}
                </label>
              ))}
            </div>
          </fieldset>
          <div className="mt-4 flex justify-end gap-2">
            <Link to={clearHref} className="rounded-full px-3 py-1.5 text-sm text-zinc-300 hover:bg-zinc-800">
              {t('list.clearFilter')}
            </Link>
            <button type="submit" className="button-primary px-4 py-1.5 text-sm">
              {t('list.applyFilter')}
            </button>
          </div>
        </Form>
      </details>
      {chosen.map((tag) => (
        <Link
          key={tag.slug}
          to={hrefWithout(tag.slug)}
          className="inline-flex items-center gap-1 rounded-full bg-violet-600/30 px-3 py-1 text-sm text-violet-100 hover:bg-violet-600/50"
          aria-label={t('list.removeTag', { tag: tag.name })}
        >
          {tag.name}
          <X aria-hidden="true" className="size-3.5" />
        </Link>
      ))}
    </div>
  )
}
