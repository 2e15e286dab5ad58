import { ArrowDown, ArrowUp } from 'lucide-react'
import { type FormEvent, useCallback, useEffect, useId, useState } from 'react'
import { LocalizedLink } from '#app/components/localized-link.tsx'
import { adminApi } from '#app/features/console/admin-api.ts'
import { inputClass } from '#app/features/console/components/code-field.tsx'
import { NoteDialog } from '#app/features/console/components/note-dialog.tsx'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { notify } from '#app/lib/notify.tsx'
import type { FeaturedItem } from '#contracts/admin-featured.ts'
import type { Route } from './+types/console-featured.ts'

export const handle = { i18n: ['console-tags'] }

/** Console pages are one person's: never stored by a shared cache. */
export const headers = () => ({ 'Cache-Control': 'private, no-store' })

type Ask = { kind: 'add'; roleId: string } | { kind: 'remove'; item: FeaturedItem } | { kind: 'order' }

/** A character's id from what was pasted: the id itself or a link to its page. */
function roleIdFrom(text: string): string {
  const trimmed = text.trim()
  const match = /\/characters\/([^/?#]+)/.exec(trimmed)
  return match?.[1] ? decodeURIComponent(match[1]) : trimmed
}

/**
 * `/console/featured` (moderators, ADR 059): the characters the home page features, in their
 * order; add one by its id or page address, move them up and down and save the order, take one
 * off; each with a note. A private or hidden character stays listed, marked, and is not shown.
 */
export default function ConsoleFeatured(_props: Route.ComponentProps) {
  const { t } = useTranslation('console-tags')
  const { t: tc } = useTranslation()
  const id = useId()
  const [items, setItems] = useState<FeaturedItem[] | null>(null)
  const [order, setOrder] = useState<FeaturedItem[]>([])
  const [problem, setProblem] = useState<string | null>(null)
  const [adding, setAdding] = useState('')
  const [ask, setAsk] = useState<Ask | null>(null)

  const show = useCallback((list: FeaturedItem[]) => {
    setItems(list)
    setOrder(list)
  }, [])
  const load = useCallback(async () => {
    try {
      show((await adminApi<{ items: FeaturedItem[] }>('/admin/featured')).items)
    } catch (error) {
      setProblem(apiErrorMessage(tc, error))
    }
  }, [show, tc])
  useEffect(() => {
    void load()
  }, [load])

  const moved = items !== null && order.some((item, i) => item.roleId !== items[i]?.roleId)
  const move = (from: number, to: number) => {
    const next = [...order]
    const [item] = next.splice(from, 1)
    if (!item) return
    next.splice(to, 0, item)
    setOrder(next)
  }
  const add = (event: FormEvent) => {
    event.preventDefault()
    const roleId = roleIdFrom(adding)
    if (roleId) setAsk({ kind: 'add', roleId })
  }

  const run = async (note: string) => {
    if (!ask) return
    const answer =
      ask.kind === 'add'
        ? await adminApi<{ items: FeaturedItem[] }>('/admin/featured', {
            method: 'POST',
            body: { roleId: ask.roleId, note },
          })
        : ask.kind === 'remove'
          ? await adminApi<{ items: FeaturedItem[] }>('/admin/featured/remove', {
              method: 'POST',
              body: { roleId: ask.item.roleId, note },
            })
          : await adminApi<{ items: FeaturedItem[] }>('/admin/featured/order', {
              method: 'POST',
              body: { roleIds: order.map((item) => item.roleId), note },
            })
    if (ask.kind === 'add') setAdding('')
    setAsk(null)
    show(answer.items)
    notify(t('done'))
  }

  const title =
    ask?.kind === 'add'
      ? t('featured.add')
      : ask?.kind === 'remove'
        ? `${t('featured.remove')}: ${ask.item.name}`
        : t('featured.saveOrder')

  return (
    <section>
      <h1 className="mb-2 text-2xl font-bold">{t('featured.title')}</h1>
      <p className="mb-4 text-sm text-zinc-300">{t('featured.intro')}</p>
      <form onSubmit={add} className="mb-5 flex flex-wrap items-end gap-3">
        <div className="min-w-56 flex-1">
          <label htmlFor={`${id}-add`} className="mb-1 block text-sm font-medium">
            {t('featured.addLabel')}
          </label>
          <input
            id={`${id}-add`}
            dir="ltr"
            value={adding}
            onChange={(event) => setAdding(event.target.value)}
            className={`${inputClass} h-10`}
            data-testid="featured-add-field"
          />
        </div>
        <button type="submit" className="button-primary h-10" disabled={!adding.trim()} data-testid="featured-add">
          {t('featured.add')}
        </button>
      </form>
      {problem ? (
        <p role="alert" className="mb-3 text-rose-300">
          {problem}
        </p>
      ) : null}
      {!items ? (
        <p role="status" className="text-zinc-400">
          {t('loading')}
        </p>
      ) : order.length === 0 ? (
        <p className="text-zinc-400">{t('featured.empty')}</p>
      ) : (
        <ol className="grid gap-2" data-testid="featured-list">
          {order.map((item, index) => (
            <li
              key={item.roleId}
              className="flex flex-wrap items-center gap-3 rounded-xl border border-zinc-800 bg-zinc-900 p-3"
            >
              <span className="w-6 text-end tabular-nums text-zinc-400">{index + 1}</span>
              <div className="min-w-40 flex-1">
                <LocalizedLink to={`/characters/${item.roleId}`} className="font-medium hover:underline">
                  <bdi dir="auto">{item.name}</bdi>
                </LocalizedLink>
                <span className="block text-xs text-zinc-400">
                  {item.visibility === 'public' ? t('featured.shown') : t('featured.notShown')}
                  {item.isAdult ? ` · ${t('featured.adult')}` : ''}
                </span>
              </div>
              <div className="flex gap-1">
                <button
                  type="button"
                  className="button-ghost"
                  disabled={index === 0}
                  onClick={() => move(index, index - 1)}
                  aria-label={`${t('featured.up')}: ${item.name}`}
                >
                  <ArrowUp aria-hidden="true" className="size-4" />
                </button>
                <button
                  type="button"
                  className="button-ghost"
                  disabled={index === order.length - 1}
                  onClick={() => move(index, index + 1)}
                  aria-label={`${t('featured.down')}: ${item.name}`}
                >
                  <ArrowDown aria-hidden="true" className="size-4" />
                </button>
                <button
                  type="button"
                  className="button-ghost text-rose-300"
                  onClick={() => setAsk({ kind: 'remove', item })}
                  aria-label={`${t('featured.remove')}: ${item.name}`}
                >
                  {t('featured.remove')}
                </button>
              </div>
            </li>
          ))}
        </ol>
      )}
      {moved ? (
        <div className="mt-4 flex gap-2">
          <button type="button" className="button-primary" onClick={() => setAsk({ kind: 'order' })}>
            {t('featured.saveOrder')}
          </button>
          <button type="button" className="button-ghost" onClick={() => setOrder(items ?? [])}>
            {t('cancel')}
          </button>
        </div>
      ) : null}
      {ask ? (
        <NoteDialog
          title={title}
          text={t(`featured.explain.${ask.kind}`)}
          noteLabel={t('note')}
          cancelLabel={t('cancel')}
          confirmLabel={
            ask.kind === 'add'
              ? t('featured.add')
              : ask.kind === 'remove'
                ? t('featured.remove')
                : t('featured.saveOrder')
          }
          busyLabel={t('busy')}
          danger={ask.kind === 'remove'}
          onConfirm={run}
          describeError={(error) => apiErrorMessage(tc, error)}
          onClose={() => setAsk(null)}
        />
      ) : null}
    </section>
  )
}
