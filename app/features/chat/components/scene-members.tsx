import { UserPlus, X } from 'lucide-react'
import { useEffect, useState } from 'react'
import { Dialog, DialogTitle } from '#app/components/dialog.tsx'
import { getRoles } from '#app/features/catalogue/api/get-roles.ts'
import { listMyRoles } from '#app/features/characters/api/list-my-roles.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import type { Scene } from '#contracts/chat-scenes.ts'
import { imageVariantUrl } from '#contracts/images.ts'
import type { Locale } from '#contracts/locales.ts'

type Props = {
  scene: Scene
  locale: Locale
  busy: boolean
  onAdd: (roleId: string) => Promise<boolean>
  onRemove: (roleId: string) => Promise<boolean>
}

/** Under the chat's header: the scene's members (ADR 052), removing one, and "Add a character". */
export function SceneMembers({ scene, locale, busy, onAdd, onRemove }: Props) {
  const { t } = useTranslation('chat')
  const [adding, setAdding] = useState(false)
  const several = scene.members.length > 1
  const full = scene.members.length >= scene.maxMembers
  return (
    <section
      aria-label={t('scene.members')}
      className="flex flex-wrap items-center gap-2 border-b border-zinc-800 py-2"
    >
      {several ? (
        <ul className="flex flex-wrap items-center gap-2" data-testid="scene-members">
          {scene.members.map((member) => (
            <li key={member.id} className="flex items-center gap-1.5 rounded-full bg-zinc-800 py-0.5 ps-0.5 pe-1">
              <img
                src={imageVariantUrl(member.avatar, 'square-128') ?? '/default-avatar.svg'}
                alt=""
                width={24}
                height={24}
                className="size-6 rounded-full object-cover"
              />
              <span dir="auto" className="text-sm text-zinc-200">
                {member.name}
              </span>
              <button
                type="button"
                className="rounded-full p-0.5 text-zinc-400 hover:bg-zinc-700 hover:text-zinc-100 focus-visible:outline-2 focus-visible:outline-violet-400"
                aria-label={t('scene.remove', { name: member.name })}
                disabled={busy}
                onClick={() => void onRemove(member.id)}
              >
                <X aria-hidden="true" className="size-3.5" />
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <button
        type="button"
        className="button-ghost text-sm"
        disabled={busy || full}
        title={full ? t('scene.full') : undefined}
        onClick={() => setAdding(true)}
      >
        <UserPlus aria-hidden="true" className="size-4" />
        {t('scene.add')}
      </button>
      {adding ? (
        <AddCharacterDialog
          locale={locale}
          exclude={scene.members.map((m) => m.id)}
          onPick={async (roleId) => {
            if (await onAdd(roleId)) setAdding(false)
          }}
          onClose={() => setAdding(false)}
        />
      ) : null}
    </section>
  )
}

type Candidate = { roleId: string; name: string; avatarUrl: string | null }

/** Picks a character: the user's own first, then public ones found by name. */
function AddCharacterDialog({
  locale,
  exclude,
  onPick,
  onClose,
}: {
  locale: Locale
  exclude: readonly string[]
  onPick: (roleId: string) => Promise<void>
  onClose: () => void
}) {
  const { t } = useTranslation('chat')
  const [query, setQuery] = useState('')
  const [found, setFound] = useState<Candidate[] | null>(null)
  useEffect(() => {
    const controller = new AbortController()
    const timer = setTimeout(() => {
      const q = query.trim()
      Promise.all([
        q ? Promise.resolve({ roles: [] as Candidate[] }) : listMyRoles(locale, controller.signal),
        getRoles({ locale, q: q || undefined, pageSize: 12 }, controller.signal),
      ]).then(
        ([mine, listed]) => {
          const all = [...mine.roles, ...listed.items]
          const seen = new Set(exclude)
          setFound(all.filter((r) => !seen.has(r.roleId) && seen.add(r.roleId)))
        },
        () => {},
      )
    }, 250)
    return () => {
      clearTimeout(timer)
      controller.abort()
    }
  }, [query, locale, exclude])
  return (
    <Dialog onClose={onClose} size="md" described={false} testId="scene-add-dialog">
      <DialogTitle>{t('scene.addTitle')}</DialogTitle>
      <label className="mt-4 block text-sm text-zinc-300">
        {t('scene.search')}
        <input
          type="search"
          dir="auto"
          className="mt-1 w-full rounded-xl border border-zinc-700 bg-zinc-950 px-3 py-2 text-zinc-100"
          value={query}
          onChange={(event) => setQuery(event.target.value)}
        />
      </label>
      <ul className="mt-3 max-h-72 space-y-1 overflow-y-auto" aria-live="polite">
        {found?.length === 0 ? <li className="py-2 text-sm text-zinc-400">{t('scene.noResults')}</li> : null}
        {found?.map((role) => (
          <li key={role.roleId}>
            <button
              type="button"
              className="flex w-full items-center gap-2 rounded-lg px-2 py-1.5 text-start hover:bg-zinc-800 focus-visible:outline-2 focus-visible:outline-violet-400"
              onClick={() => void onPick(role.roleId)}
              aria-label={t('scene.addThis', { name: role.name })}
            >
              <img
                src={imageVariantUrl(role.avatarUrl, 'square-128') ?? '/default-avatar.svg'}
                alt=""
                width={28}
                height={28}
                className="size-7 rounded-full object-cover"
              />
              <span dir="auto">{role.name}</span>
            </button>
          </li>
        ))}
      </ul>
      <div className="mt-4 flex justify-end">
        <button type="button" className="button-secondary" onClick={onClose}>
          {t('scene.close')}
        </button>
      </div>
    </Dialog>
  )
}
