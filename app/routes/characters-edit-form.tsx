import { useCallback, useEffect, useMemo, useState } from 'react'
import { useNavigate, useSearchParams } from 'react-router'
import { LocalizedLink } from '#app/components/localized-link.tsx'
import { PageMeta } from '#app/components/page-meta.tsx'
import { getOwnRole } from '#app/features/characters/api/get-own-role.ts'
import { CharacterForm } from '#app/features/characters/components/character-form.tsx'
import { SignedInGate } from '#app/features/characters/components/signed-in-gate.tsx'
import { formOfEditable } from '#app/features/characters/form-state.ts'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { isApiError } from '#app/lib/http.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { appLoadContext } from '#app/lib/load-context.ts'
import { routeLocale } from '#app/lib/route-locale.ts'
import type { Tag } from '#contracts/catalogue.ts'
import type { EditableRole } from '#contracts/characters.ts'
import { type Locale, localizePath } from '#contracts/locales.ts'
import type { Route } from './+types/characters-edit-form.ts'

export const handle = { i18n: ['characters-edit', 'catalogue'] }

export async function loader({ params, context }: Route.LoaderArgs) {
  const { catalogue } = context.get(appLoadContext)
  return { tags: await catalogue.listTags(routeLocale(params)) }
}

/**
 * `/characters/edit/form?id=<roleId>` (spec: "Character edit form"): the same form as
 * `/characters/edit/new`, filled with one of the user's own characters. The character loads in
 * the browser, with the user's token; without `id` the page points to My characters.
 */
export default function EditCharacter({ loaderData, params }: Route.ComponentProps) {
  const { t } = useTranslation('characters-edit')
  const [search] = useSearchParams()
  const roleId = search.get('id')?.trim() ?? ''
  return (
    <div>
      <PageMeta title={t('meta.editTitle')} description={t('meta.editDescription')} />
      <meta name="robots" content="noindex" />
      <h1 className="mb-6 text-2xl font-bold sm:text-3xl">{t('meta.editTitle')}</h1>
      {roleId ? (
        <SignedInGate>
          <EditLoader key={roleId} roleId={roleId} tags={loaderData.tags} locale={routeLocale(params)} />
        </SignedInGate>
      ) : (
        <Choose text={t('edit.noId')} />
      )}
    </div>
  )
}

type Load =
  | { kind: 'loading' }
  | { kind: 'missing' }
  | { kind: 'failed'; reason: string }
  | { kind: 'ready'; role: EditableRole }

function EditLoader({ roleId, tags, locale }: { roleId: string; tags: Tag[]; locale: Locale }) {
  const { t } = useTranslation('characters-edit')
  const { t: tCommon } = useTranslation()
  const navigate = useNavigate()
  const [load, setLoad] = useState<Load>({ kind: 'loading' })
  const fetchRole = useCallback(
    (signal?: AbortSignal) => {
      setLoad({ kind: 'loading' })
      getOwnRole(roleId, locale, signal).then(
        ({ form }) => setLoad({ kind: 'ready', role: form }),
        (error: unknown) => {
          if (signal?.aborted) return
          // Not there, or not this user's: the same "not found" either way.
          if (isApiError(error, 'NOT_FOUND', 'FORBIDDEN')) setLoad({ kind: 'missing' })
          else setLoad({ kind: 'failed', reason: apiErrorMessage(tCommon, error) })
        },
      )
    },
    [roleId, locale, tCommon],
  )
  useEffect(() => {
    const controller = new AbortController()
    fetchRole(controller.signal)
    return () => controller.abort()
  }, [fetchRole])

  const initial = useMemo(() => (load.kind === 'ready' ? formOfEditable(load.role) : null), [load])

  if (load.kind === 'loading') {
    return (
      <p role="status" className="py-10 text-center text-zinc-400">
        {t('gate.loading')}
      </p>
    )
  }
  if (load.kind === 'missing') return <Choose text={t('edit.notFound')} />
  if (load.kind === 'failed' || !initial) {
    return (
      <div role="alert" className="py-10 text-center">
        <p className="text-rose-300">{t('edit.loadFailed', { reason: load.kind === 'failed' ? load.reason : '' })}</p>
        <button type="button" className="button-secondary mt-4" onClick={() => fetchRole()}>
          {t('edit.retry')}
        </button>
      </div>
    )
  }
  return (
    <CharacterForm
      roleId={roleId}
      initial={initial}
      knownTags={tags}
      locale={locale}
      onSaved={(role) => navigate(localizePath(locale, `/characters/${role.roleId}`))}
      onCancel={() => navigate(localizePath(locale, '/characters/mine'))}
    />
  )
}

function Choose({ text }: { text: string }) {
  const { t } = useTranslation('characters-edit')
  return (
    <section className="mx-auto mt-6 max-w-md rounded-2xl border border-zinc-800 bg-zinc-900 p-6 text-center">
      <p className="text-zinc-300">{text}</p>
      <div className="mt-6 flex flex-wrap justify-center gap-2">
        <LocalizedLink to="/characters/mine" className="button-secondary">
          {t('edit.toMine')}
        </LocalizedLink>
        <LocalizedLink to="/characters/edit/new" className="button-primary">
          {t('edit.toNew')}
        </LocalizedLink>
      </div>
    </section>
  )
}
