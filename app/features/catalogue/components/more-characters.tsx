import { Loader2 } from 'lucide-react'
import { useState } from 'react'
import { getRoles } from '#app/features/catalogue/api/get-roles.ts'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { notify } from '#app/lib/notify.tsx'
import type { RoleSummary } from '#contracts/catalogue.ts'
import { type Locale, localizePath } from '#contracts/locales.ts'
import { RoleCard, RoleGrid } from './role-card.tsx'

const PAGE_SIZE = 6

/** Characters like this one (same first tag); 'Show more characters' fetches the next few. */
export function MoreCharacters({
  locale,
  excludeId,
  tag,
  initial,
  hasMore: initialHasMore,
}: {
  locale: Locale
  excludeId: string
  tag: string | null
  initial: RoleSummary[]
  hasMore: boolean
}) {
  const { t } = useTranslation(['catalogue', 'common'])
  const { t: tCommon } = useTranslation()
  const [roles, setRoles] = useState(initial)
  const [page, setPage] = useState(1)
  const [hasMore, setHasMore] = useState(initialHasMore)
  const [loading, setLoading] = useState(false)

  const loadMore = async () => {
    setLoading(true)
    try {
      const next = await getRoles({
        locale,
        page: page + 1,
        pageSize: PAGE_SIZE + 1,
        sort: 'popularity',
        tags: tag ? [tag] : [],
      })
      const seen = new Set(roles.map((r) => r.roleId))
      setRoles([...roles, ...next.items.filter((r) => r.roleId !== excludeId && !seen.has(r.roleId))])
      setPage(page + 1)
      setHasMore(next.page < next.totalPages)
    } catch (error) {
      notify(apiErrorMessage(tCommon, error), { type: 'error', group: 'more-characters' })
    } finally {
      setLoading(false)
    }
  }

  if (roles.length === 0) return null
  return (
    <section aria-labelledby="more-characters" className="mt-12">
      <h2 id="more-characters" className="mb-4 text-xl font-semibold">
        {t('catalogue:role.moreCharacters')}
      </h2>
      <RoleGrid>
        {roles.map((role) => (
          <RoleCard key={role.roleId} role={role} href={localizePath(locale, `/characters/${role.roleId}`)} />
        ))}
      </RoleGrid>
      <div className="mt-6 text-center">
        {hasMore ? (
          <button type="button" className="button-ghost border border-zinc-700" onClick={loadMore} disabled={loading}>
            {loading ? <Loader2 aria-hidden="true" className="size-4 animate-spin" /> : null}
            {t('catalogue:role.getMore')}
          </button>
        ) : (
          <p className="text-sm text-zinc-400">{t('catalogue:role.noMore')}</p>
        )}
      </div>
    </section>
  )
}
