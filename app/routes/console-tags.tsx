import { type FormEvent, useCallback, useEffect, useId, useState } from 'react'
import type { z } from 'zod'
import { adminApi } from '#app/features/console/admin-api.ts'
import { inputClass } from '#app/features/console/components/code-field.tsx'
import { NoteDialog } from '#app/features/console/components/note-dialog.tsx'
import { useConsoleState } from '#app/features/console/console-state.ts'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { formatNumber } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { notify } from '#app/lib/notify.tsx'
import { routeLocale } from '#app/lib/route-locale.ts'
import type { AdminTag, TagState, tagPolicySchema, tagsPageSchema } from '#contracts/admin-tags.ts'
import { isLocale, LOCALE_NAMES, type Locale } from '#contracts/locales.ts'
import type { Route } from './+types/console-tags.ts'

export const handle = { i18n: ['console-tags'] }

/** Console pages are one person's: never stored by a shared cache. */
export const headers = () => ({ 'Cache-Control': 'private, no-store' })

type TagsPage = z.infer<typeof tagsPageSchema>
type Policy = z.infer<typeof tagPolicySchema>
type Action = 'hide' | 'unhide' | 'approve' | 'rename' | 'merge'
type Ask = { action: Action; tag: AdminTag }
const STATES: TagState[] = ['pending', 'visible', 'hidden']

/**
 * `/console/tags` (moderators, ADR 059): the tags with their names, maker, character count and
 * state, pending ones first; hide, show again, approve, rename (names per language, the slug stays)
 * and merge into another tag, each with a note; the policy for new user-made tags (admins switch it).
 */
export default function ConsoleTags({ params }: Route.ComponentProps) {
  const { t } = useTranslation('console-tags')
  const { t: tc } = useTranslation()
  const locale = routeLocale(params)
  const { me } = useConsoleState()
  const id = useId()
  const [filter, setFilter] = useState<{ q: string; state: TagState | '' }>({ q: '', state: '' })
  const [draft, setDraft] = useState(filter)
  const [page, setPage] = useState(1)
  const [data, setData] = useState<TagsPage | null>(null)
  const [policy, setPolicy] = useState<Policy | null>(null)
  const [problem, setProblem] = useState<string | null>(null)
  const [ask, setAsk] = useState<Ask | null>(null)

  const load = useCallback(async () => {
    const query = new URLSearchParams({ page: String(page) })
    if (filter.q) query.set('q', filter.q)
    if (filter.state) query.set('state', filter.state)
    try {
      const [tags, current] = await Promise.all([
        adminApi<TagsPage>(`/admin/tags?${query}`),
        adminApi<Policy>('/admin/tags/policy'),
      ])
      setData(tags)
      setPolicy(current)
      setProblem(null)
    } catch (error) {
      setProblem(apiErrorMessage(tc, error))
    }
  }, [filter, page, tc])
  useEffect(() => {
    void load()
  }, [load])

  const search = (event: FormEvent) => {
    event.preventDefault()
    setPage(1)
    setFilter({ q: draft.q.trim(), state: draft.state })
  }

  return (
    <section>
      <h1 className="mb-4 text-2xl font-bold">{t('tags.title')}</h1>
      {policy ? <PolicySwitch policy={policy} canSwitch={me.role === 'admin'} onChanged={setPolicy} /> : null}
      <form onSubmit={search} className="mb-4 flex flex-wrap items-end gap-3">
        <div className="min-w-48 flex-1">
          <label htmlFor={`${id}-q`} className="mb-1 block text-sm font-medium">
            {t('tags.search')}
          </label>
          <input
            id={`${id}-q`}
            type="search"
            dir="auto"
            value={draft.q}
            onChange={(event) => setDraft({ ...draft, q: event.target.value })}
            className={`${inputClass} h-10`}
          />
        </div>
        <div>
          <label htmlFor={`${id}-state`} className="mb-1 block text-sm font-medium">
            {t('tags.state')}
          </label>
          <select
            id={`${id}-state`}
            value={draft.state}
            onChange={(event) => setDraft({ ...draft, state: STATES.find((s) => s === event.target.value) ?? '' })}
            className={`${inputClass} h-10`}
          >
            <option value="">{t('tags.any')}</option>
            {STATES.map((state) => (
              <option key={state} value={state}>
                {t(`tags.states.${state}`)}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="button-primary h-10">
          {t('tags.apply')}
        </button>
      </form>
      {problem ? (
        <p role="alert" className="mb-3 text-rose-300">
          {problem}
        </p>
      ) : null}
      {!data ? (
        <p role="status" className="text-zinc-400">
          {t('loading')}
        </p>
      ) : data.items.length === 0 ? (
        <p className="text-zinc-400">{t('tags.empty')}</p>
      ) : (
        <div className="overflow-x-auto rounded-2xl border border-zinc-800">
          <table className="w-full text-sm" data-testid="tags-table">
            <caption className="sr-only">{t('tags.title')}</caption>
            <thead className="bg-zinc-900 text-zinc-300">
              <tr>
                <th scope="col" className="p-3 text-start">
                  {t('tags.tag')}
                </th>
                <th scope="col" className="p-3 text-start">
                  {t('tags.madeBy')}
                </th>
                <th scope="col" className="p-3 text-end">
                  {t('tags.characters')}
                </th>
                <th scope="col" className="p-3 text-start">
                  {t('tags.state')}
                </th>
                <th scope="col" className="p-3 text-start">
                  {t('tags.actions')}
                </th>
              </tr>
            </thead>
            <tbody>
              {data.items.map((tag) => (
                <tr key={tag.slug} className="border-t border-zinc-800" data-testid={`tag-row-${tag.slug}`}>
                  <td className="p-3">
                    <bdi dir="auto" className="block font-medium">
                      {nameIn(tag, locale)}
                    </bdi>
                    <bdi dir="ltr" className="block text-xs text-zinc-400">
                      {tag.slug}
                    </bdi>
                  </td>
                  <td className="p-3">{tag.creator ? <bdi dir="auto">{tag.creator.username}</bdi> : t('tags.site')}</td>
                  <td className="p-3 text-end tabular-nums">{formatNumber(locale, tag.characterCount)}</td>
                  <td className="p-3 whitespace-nowrap">{t(`tags.states.${tag.state}`)}</td>
                  <td className="p-3">
                    <div className="flex flex-wrap gap-2">
                      {actionsFor(tag).map((action) => (
                        <button
                          key={action}
                          type="button"
                          className={`button-ghost whitespace-nowrap ${action === 'hide' ? 'text-rose-300' : ''}`}
                          onClick={() => setAsk({ action, tag })}
                          aria-label={`${t(`tags.do.${action}`)}: ${nameIn(tag, locale)}`}
                          data-testid={`tag-${action}-${tag.slug}`}
                        >
                          {t(`tags.do.${action}`)}
                        </button>
                      ))}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {data && (page > 1 || data.hasMore) ? (
        <div className="mt-4 flex gap-2">
          <button type="button" className="button-ghost" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            {t('previous')}
          </button>
          <button type="button" className="button-ghost" disabled={!data.hasMore} onClick={() => setPage(page + 1)}>
            {t('next')}
          </button>
        </div>
      ) : null}
      {ask ? <TagActionDialog ask={ask} locale={locale} onClose={() => setAsk(null)} onDone={load} /> : null}
    </section>
  )
}

function nameIn(tag: AdminTag, locale: Locale): string {
  return tag.names[locale] ?? tag.names.en ?? Object.values(tag.names)[0] ?? tag.slug
}

function actionsFor(tag: AdminTag): Action[] {
  const state: Action[] = tag.state === 'pending' ? ['approve', 'hide'] : tag.state === 'hidden' ? ['unhide'] : ['hide']
  return [...state, 'rename', 'merge']
}

function PolicySwitch(props: { policy: Policy; canSwitch: boolean; onChanged: (policy: Policy) => void }) {
  const { t } = useTranslation('console-tags')
  const { t: tc } = useTranslation()
  const [asking, setAsking] = useState(false)
  const on = props.policy.userTagsStartHidden
  return (
    <div className="mb-5 rounded-2xl border border-zinc-800 bg-zinc-900 p-4" data-testid="tag-policy">
      <h2 className="font-semibold">{t('policy.title')}</h2>
      <p className="mt-1 text-sm text-zinc-300">{t(on ? 'policy.on' : 'policy.off')}</p>
      {props.canSwitch ? (
        <button type="button" className="button-ghost mt-3" onClick={() => setAsking(true)}>
          {t(on ? 'policy.turnOff' : 'policy.turnOn')}
        </button>
      ) : (
        <p className="mt-2 text-xs text-zinc-400">{t('policy.adminOnly')}</p>
      )}
      {asking ? (
        <NoteDialog
          title={t(on ? 'policy.turnOff' : 'policy.turnOn')}
          text={t(on ? 'policy.offText' : 'policy.onText')}
          noteLabel={t('note')}
          cancelLabel={t('cancel')}
          confirmLabel={t(on ? 'policy.turnOff' : 'policy.turnOn')}
          busyLabel={t('busy')}
          onConfirm={async (note) => {
            props.onChanged(
              await adminApi<Policy>('/admin/tags/policy', {
                method: 'POST',
                body: { userTagsStartHidden: !on, note },
              }),
            )
            setAsking(false)
            notify(t('done'))
          }}
          describeError={(error) => apiErrorMessage(tc, error)}
          onClose={() => setAsking(false)}
        />
      ) : null}
    </div>
  )
}

function TagActionDialog(props: { ask: Ask; locale: Locale; onClose: () => void; onDone: () => Promise<void> }) {
  const { t } = useTranslation('console-tags')
  const { t: tc } = useTranslation()
  const id = useId()
  const { action, tag } = props.ask
  // The names the tag has, and the console's language when it has none in it.
  const [names, setNames] = useState<Partial<Record<Locale, string>>>(() => ({
    [props.locale]: '',
    ...Object.fromEntries(Object.entries(tag.names).filter(([l]) => isLocale(l))),
  }))
  const [into, setInto] = useState('')
  const name = nameIn(tag, props.locale)

  const run = async (note: string) => {
    const path = `/admin/tags/${encodeURIComponent(tag.slug)}/${action}`
    if (action === 'rename') {
      const written = Object.fromEntries(Object.entries(names).filter(([, v]) => v?.trim()))
      await adminApi(path, { method: 'POST', body: { names: written, note } })
    } else if (action === 'merge') {
      await adminApi(path, { method: 'POST', body: { into: into.trim(), note } })
    } else {
      await adminApi(path, { method: 'POST', body: { note } })
    }
    props.onClose()
    notify(t('done'))
    await props.onDone()
  }

  return (
    <NoteDialog
      title={`${t(`tags.do.${action}`)}: ${name}`}
      text={t(`tags.explain.${action}`)}
      noteLabel={t('note')}
      cancelLabel={t('cancel')}
      confirmLabel={t(`tags.do.${action}`)}
      busyLabel={t('busy')}
      danger={action === 'hide' || action === 'merge'}
      onConfirm={run}
      describeError={(error) => apiErrorMessage(tc, error)}
      onClose={props.onClose}
    >
      {action === 'rename'
        ? (Object.keys(names) as Locale[]).map((l) => (
            <div key={l}>
              <label htmlFor={`${id}-${l}`} className="mb-1 block text-sm font-medium">
                {LOCALE_NAMES[l]}
              </label>
              <input
                id={`${id}-${l}`}
                dir="auto"
                lang={l}
                maxLength={30}
                value={names[l] ?? ''}
                onChange={(event) => setNames({ ...names, [l]: event.target.value })}
                className={`${inputClass} h-10`}
              />
            </div>
          ))
        : null}
      {action === 'merge' ? (
        <div>
          <label htmlFor={`${id}-into`} className="mb-1 block text-sm font-medium">
            {t('tags.mergeInto')}
          </label>
          <input
            id={`${id}-into`}
            dir="ltr"
            value={into}
            onChange={(event) => setInto(event.target.value)}
            className={`${inputClass} h-10`}
            data-testid="merge-into"
          />
        </div>
      ) : null}
    </NoteDialog>
  )
}
