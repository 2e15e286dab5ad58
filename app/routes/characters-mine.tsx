import { Lock, MessageCircle, Pencil, Plus, Trash2 } from 'lucide-react'
import { useCallback, useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Dialog, DialogActions, DialogDescription, DialogTitle } from '#app/components/dialog.tsx'
import { LocalizedLink } from '#app/components/localized-link.tsx'
import { PageMeta } from '#app/components/page-meta.tsx'
import { deleteRole } from '#app/features/characters/api/delete-role.ts'
import { listMyRoles } from '#app/features/characters/api/list-my-roles.ts'
import { SignedInGate } from '#app/features/characters/components/signed-in-gate.tsx'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { formatDate } from '#app/lib/format.ts'
import { notify } from '#app/lib/notify.tsx'
import { routeLocale } from '#app/lib/route-locale.ts'
import type { MyRole } from '#contracts/characters.ts'
import type { Locale } from '#contracts/locales.ts'
import type { Route } from './+types/characters-mine.ts'

export const handle = { i18n: ['characters-edit', 'catalogue'] }

/** `/characters/mine`: the signed-in user's characters, private ones included, with Edit and Delete. */
export default function MyCharacters({ params }: Route.ComponentProps) {
  const { t } = useTranslation('characters-edit')
  return (
    <div>
      <PageMeta title={t('meta.mineTitle')} description={t('meta.mineDescription')} />
      <meta name="robots" content="noindex" />
      <div className="mb-6 flex flex-wrap items-center justify-between gap-3">
        <h1 className="text-2xl font-bold sm:text-3xl">{t('mine.title')}</h1>
        <LocalizedLink to="/characters/edit/new" className="button-primary" data-testid="create-character">
          <Plus aria-hidden="true" className="size-5" />
          {t('mine.create')}
        </LocalizedLink>
      </div>
      <SignedInGate>
        <MyRoleList locale={routeLocale(params)} />
      </SignedInGate>
    </div>
  )
}

type Load = { kind: 'loading' } | { kind: 'failed'; reason: string } | { kind: 'ready'; roles: MyRole[] }

function MyRoleList({ locale }: { locale: Locale }) {
  const { t } = useTranslation('characters-edit')
  const { t: tCommon } = useTranslation()
  const [load, setLoad] = useState<Load>({ kind: 'loading' })
  const [deleting, setDeleting] = useState<MyRole | null>(null)

  const fetchList = useCallback(
    (signal?: AbortSignal) => {
      setLoad({ kind: 'loading' })
      listMyRoles(locale, signal).then(
        ({ roles }) => setLoad({ kind: 'ready', roles }),
        (error: unknown) => {
          if (!signal?.aborted) setLoad({ kind: 'failed', reason: apiErrorMessage(tCommon, error) })
        },
      )
    },
    [locale, tCommon],
  )
  useEffect(() => {
    const controller = new AbortController()
    fetchList(controller.signal)
    return () => controller.abort()
  }, [fetchList])

  if (load.kind === 'loading') {
    return (
      <p role="status" className="py-10 text-center text-zinc-400">
        {t('mine.loading')}
      </p>
    )
  }
  if (load.kind === 'failed') {
    return (
      <div role="alert" className="py-10 text-center">
        <p className="text-rose-300">{t('mine.loadFailed', { reason: load.reason })}</p>
        <button type="button" className="button-secondary mt-4" onClick={() => fetchList()}>
          {t('mine.retry')}
        </button>
      </div>
    )
  }
  if (load.roles.length === 0) {
    return <p className="rounded-2xl border border-zinc-800 p-10 text-center text-zinc-400">{t('mine.empty')}</p>
  }
  return (
    <>
      <ul className="grid gap-4 sm:grid-cols-2 xl:grid-cols-3" data-testid="my-characters">
        {load.roles.map((role) => (
          <MyRoleCard key={role.roleId} role={role} locale={locale} onDelete={() => setDeleting(role)} />
        ))}
      </ul>
      {deleting ? (
        <ConfirmDelete
          role={deleting}
          onClose={() => setDeleting(null)}
          onDeleted={() => {
            notify(t('mine.deleted', { name: deleting.name }), { type: 'success' })
            setLoad({ kind: 'ready', roles: load.roles.filter((r) => r.roleId !== deleting.roleId) })
            setDeleting(null)
          }}
        />
      ) : null}
    </>
  )
}

function MyRoleCard({ role, locale, onDelete }: { role: MyRole; locale: Locale; onDelete: () => void }) {
  const { t } = useTranslation('characters-edit')
  const { t: tc } = useTranslation('catalogue')
  return (
    <li className="flex flex-col rounded-2xl border border-zinc-800 bg-zinc-900 p-4">
      <div className="flex gap-3">
        <img
          src={role.avatarUrl ?? '/default-avatar.svg'}
          alt=""
          width={64}
          height={64}
          className="size-16 shrink-0 rounded-xl bg-zinc-800 object-cover"
        />
        <div className="min-w-0 flex-1">
          <h2 className="truncate text-lg font-semibold">
            <LocalizedLink to={`/characters/${role.roleId}`} className="hover:text-violet-300">
              <bdi>{role.name}</bdi>
            </LocalizedLink>
          </h2>
          <p className="mt-1 flex flex-wrap items-center gap-1.5 text-xs">
            <span
              className={`inline-flex items-center gap-1 rounded-full px-2 py-0.5 ${role.visibility === 'private' ? 'bg-amber-950 text-amber-200' : 'bg-emerald-950 text-emerald-200'}`}
            >
              {role.visibility === 'private' ? <Lock aria-hidden="true" className="size-3" /> : null}
              {role.visibility === 'private' ? t('mine.private') : t('mine.public')}
            </span>
            {role.isAdult ? (
              <span className="rounded-full bg-rose-600 px-2 py-0.5 font-bold text-white">{tc('card.adultBadge')}</span>
            ) : null}
          </p>
          <p className="mt-1.5 flex flex-wrap gap-x-3 text-xs text-zinc-400">
            <span className="flex items-center gap-1">
              <MessageCircle aria-hidden="true" className="size-3.5" />
              {t('mine.chats', { count: role.chatCount })}
            </span>
            <time dateTime={role.updatedAt}>{t('mine.updated', { date: formatDate(locale, role.updatedAt) })}</time>
          </p>
        </div>
      </div>
      {role.tags.length > 0 ? (
        <ul className="mt-3 flex flex-wrap gap-1.5">
          {role.tags.map((tag) => (
            <li key={tag.slug} className="rounded-full bg-zinc-800 px-2.5 py-0.5 text-xs text-zinc-300">
              <bdi>{tag.name}</bdi>
            </li>
          ))}
        </ul>
      ) : null}
      <div className="mt-auto flex justify-end gap-1 pt-3">
        <LocalizedLink
          to={`/characters/edit/form?id=${encodeURIComponent(role.roleId)}`}
          className="button-ghost"
          aria-label={t('mine.editLabel', { name: role.name })}
        >
          <Pencil aria-hidden="true" className="size-4" />
          {t('mine.edit')}
        </LocalizedLink>
        <button
          type="button"
          className="button-ghost text-rose-300"
          aria-label={t('mine.deleteLabel', { name: role.name })}
          onClick={onDelete}
        >
          <Trash2 aria-hidden="true" className="size-4" />
          {t('mine.delete')}
        </button>
      </div>
    </li>
  )
}

function ConfirmDelete({ role, onClose, onDeleted }: { role: MyRole; onClose: () => void; onDeleted: () => void }) {
  const { t } = useTranslation('characters-edit')
  const { t: tCommon } = useTranslation()
  const [busy, setBusy] = useState(false)
  const confirm = async () => {
    setBusy(true)
    try {
      await deleteRole(role.roleId)
      onDeleted()
    } catch (error) {
      notify(apiErrorMessage(tCommon, error), { type: 'error' })
      setBusy(false)
    }
  }
  return (
    <Dialog onClose={onClose}>
      <DialogTitle>{t('mine.confirmTitle', { name: role.name })}</DialogTitle>
      <DialogDescription className="mt-2 text-zinc-300">{t('mine.confirmText')}</DialogDescription>
      <DialogActions>
        <button type="button" className="button-ghost" onClick={onClose}>
          {t('mine.cancel')}
        </button>
        <button
          type="button"
          className="button-primary bg-rose-700 hover:bg-rose-800"
          disabled={busy}
          onClick={confirm}
          data-testid="confirm-delete"
        >
          {t('mine.confirmDelete')}
        </button>
      </DialogActions>
    </Dialog>
  )
}
