import { BookOpen, Lock, MessageCircle, Pencil, Plus } from 'lucide-react'
import { useCallback, useState } from 'react'
import { CompactList } from '#app/components/compact-list.tsx'
import { LocalizedLink } from '#app/components/localized-link.tsx'
import { PageMeta } from '#app/components/page-meta.tsx'
import { deleteRole } from '#app/features/characters/api/delete-role.ts'
import { listMyRoles } from '#app/features/characters/api/list-my-roles.ts'
import { ConfirmDelete, DeleteButton, OwnListStatus } from '#app/features/characters/components/own-list.tsx'
import { SignedInGate } from '#app/features/characters/components/signed-in-gate.tsx'
import { useOwnList } from '#app/features/characters/hooks/use-own-list.ts'
import { formatDate } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { notify } from '#app/lib/notify.tsx'
import { routeLocale } from '#app/lib/route-locale.ts'
import type { MyRole } from '#contracts/characters.ts'
import { imageVariantUrl } from '#contracts/images.ts'
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
        <div className="flex flex-wrap gap-2">
          <LocalizedLink to="/characters/lorebooks" className="button-secondary">
            <BookOpen aria-hidden="true" className="size-5" />
            {t('mine.lorebooks')}
          </LocalizedLink>
          <LocalizedLink to="/characters/edit/new" className="button-primary" data-testid="create-character">
            <Plus aria-hidden="true" className="size-5" />
            {t('mine.create')}
          </LocalizedLink>
        </div>
      </div>
      <SignedInGate>
        <MyRoleList locale={routeLocale(params)} />
      </SignedInGate>
    </div>
  )
}

/** Tags shown on a row before "+N more". */
const VISIBLE_TAGS = 5

function MyRoleList({ locale }: { locale: Locale }) {
  const { t } = useTranslation('characters-edit')
  const { load, reload, change } = useOwnList(
    useCallback((signal?: AbortSignal) => listMyRoles(locale, signal).then(({ roles }) => roles), [locale]),
  )
  const [deleting, setDeleting] = useState<MyRole | null>(null)

  if (load.kind !== 'ready' || load.items.length === 0) {
    return (
      <OwnListStatus
        load={load}
        loading={t('mine.loading')}
        failed={(reason) => t('mine.loadFailed', { reason })}
        empty={t('mine.empty')}
        onRetry={() => reload()}
      />
    )
  }
  return (
    <>
      <ul className="grid gap-4 sm:grid-cols-2 xl:grid-cols-3" data-testid="my-characters">
        {load.items.map((role) => (
          <MyRoleCard key={role.roleId} role={role} locale={locale} onDelete={() => setDeleting(role)} />
        ))}
      </ul>
      {deleting ? (
        <ConfirmDelete
          name={deleting.name}
          text={t('mine.confirmText')}
          remove={() => deleteRole(deleting.roleId)}
          testId="confirm-delete"
          onClose={() => setDeleting(null)}
          onDeleted={() => {
            notify(t('mine.deleted', { name: deleting.name }), { type: 'success' })
            change((roles) => roles.filter((r) => r.roleId !== deleting.roleId))
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
          src={imageVariantUrl(role.avatarUrl, 'square-128') ?? '/default-avatar.svg'}
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
        <CompactList
          items={role.tags}
          visible={VISIBLE_TAGS}
          keyOf={(tag) => tag.slug}
          className="mt-3 flex flex-wrap gap-1.5"
          itemClassName={() => 'rounded-full bg-zinc-800 px-2.5 py-0.5 text-xs text-zinc-300'}
          render={(tag) => <bdi>{tag.name}</bdi>}
        />
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
        <DeleteButton name={role.name} onClick={onDelete} />
      </div>
    </li>
  )
}
