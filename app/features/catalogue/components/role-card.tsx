import { MessageCircle, Star } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { Link, useLocation } from 'react-router'
import { formatRating } from '#app/lib/format.ts'
import { withoutEmphasis } from '#app/lib/plain-text.ts'
import type { RoleSummary } from '#contracts/catalogue.ts'
import { splitLocalePath } from '#contracts/locales.ts'
import { replaceMacros } from '#contracts/macros.ts'

/**
 * A character in a grid: avatar, name, tags, summary, chats and rating. Adult ones stay blurred.
 * The name is a heading one level below the grid's own (`h2` when the page title is the only one).
 */
export function RoleCard({
  role,
  href,
  eager = false,
  headingLevel = 3,
}: {
  role: RoleSummary
  href: string
  eager?: boolean
  headingLevel?: 2 | 3
}) {
  const { t } = useTranslation('catalogue')
  const { locale } = splitLocalePath(useLocation().pathname)
  const Heading = headingLevel === 2 ? 'h2' : 'h3'
  const rating = formatRating(locale, role.rating.average)
  return (
    <li className="group relative flex flex-col overflow-hidden rounded-2xl border border-zinc-800 bg-zinc-900 transition hover:border-violet-500/60">
      <div className="relative aspect-square overflow-hidden bg-zinc-800">
        {role.avatarUrl ? (
          <img
            src={role.avatarUrl}
            alt=""
            width={512}
            height={512}
            loading={eager ? 'eager' : 'lazy'}
            decoding="async"
            className={`size-full object-cover transition group-hover:scale-105 ${role.gated ? 'scale-110 blur-xl' : ''}`}
          />
        ) : null}
        {role.isAdult ? (
          <span className="absolute end-2 top-2 rounded-full bg-rose-600 px-2 py-0.5 text-xs font-bold text-white">
            {t('card.adultBadge')}
          </span>
        ) : null}
      </div>
      <div className="flex flex-1 flex-col gap-2 p-3">
        <Heading className="font-semibold leading-tight">
          <Link
            to={href}
            dir="auto"
            className="after:absolute after:inset-0 focus-visible:outline-none"
            prefetch="intent"
          >
            {role.name}
          </Link>
        </Heading>
        {role.tags.length > 0 ? (
          <ul className="flex flex-wrap gap-1" aria-label={t('list.filterRoles')}>
            {role.tags.slice(0, 3).map((tag) => (
              <li key={tag.slug} className="rounded-full bg-zinc-800 px-2 py-0.5 text-xs text-zinc-300">
                {tag.name}
              </li>
            ))}
          </ul>
        ) : null}
        {role.gated ? (
          <p className="line-clamp-3 text-sm text-zinc-400">{t('card.adultHidden')}</p>
        ) : (
          // Characters are written in any language: the text takes its direction from its content.
          <p dir="auto" className="line-clamp-3 text-start text-sm text-zinc-400">
            {withoutEmphasis(replaceMacros(role.summary, { char: role.name, user: t('role.userStandIn') }))}
          </p>
        )}
        <div className="mt-auto flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-zinc-400">
          <span className="flex items-center gap-1">
            <MessageCircle aria-hidden="true" className="size-3.5" />
            {t('card.chats', { count: role.chatCount })}
          </span>
          {role.rating.count > 0 ? (
            <span
              className="flex items-center gap-1"
              role="img"
              aria-label={t('card.rating', { rating, count: role.rating.count })}
            >
              <Star aria-hidden="true" className="size-3.5 fill-amber-400 text-amber-400" />
              {rating}
            </span>
          ) : null}
        </div>
      </div>
    </li>
  )
}

export function RoleGrid({ children, label }: { children: React.ReactNode; label?: string }) {
  return (
    <ul
      aria-label={label}
      className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-4 xl:grid-cols-5 2xl:grid-cols-6"
    >
      {children}
    </ul>
  )
}
