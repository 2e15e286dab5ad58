import { MessageCircle, Star } from 'lucide-react'
import { Link, useLocation } from 'react-router'
import { formatRating } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { withoutEmphasis } from '#app/lib/plain-text.ts'
import type { RoleSummary } from '#contracts/catalogue.ts'
import { cardSrcSet, imageVariantUrl } from '#contracts/images.ts'
import { LOCALE_TAGS, splitLocalePath } from '#contracts/locales.ts'
import { replaceMacros } from '#contracts/macros.ts'
import { USER_STAND_IN } from '#contracts/user-stand-in.ts'

/** How wide a card is in the grid of RoleGrid (2 to 6 columns), for the picture's `srcset`. */
const CARD_SIZES =
  '(min-width: 1536px) 16vw, (min-width: 1280px) 20vw, (min-width: 1024px) 25vw, (min-width: 640px) 33vw, 50vw'

/**
 * A character in a grid: its picture in a 2:3 frame as card sites show it (a 2:3 portrait whole;
 * ADR 042), name, tags, summary, chats and rating. Adult ones stay blurred.
 * The name is a heading one level below the grid's own (`h2` when the page title is the only one).
 * Name and summary are in the page's language when the character has a translation, else in its
 * own: then they carry that `lang` (ADR 039), and `{{user}}` is "you" in that language.
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
  const lang = role.language === locale ? undefined : LOCALE_TAGS[role.language]
  const names = { char: role.name, user: USER_STAND_IN[role.language] }
  return (
    <li className="group relative flex flex-col overflow-hidden rounded-2xl border border-zinc-800 bg-zinc-900 transition hover:border-violet-500/60">
      <div className="relative aspect-[2/3] overflow-hidden bg-zinc-800">
        {role.avatarUrl ? (
          <img
            src={imageVariantUrl(role.avatarUrl, 'card-320')}
            srcSet={cardSrcSet(role.avatarUrl)}
            sizes={CARD_SIZES}
            alt=""
            width={320}
            height={480}
            loading={eager ? 'eager' : 'lazy'}
            decoding="async"
            data-testid="role-card-picture"
            className={`size-full object-cover object-top transition group-hover:scale-105 ${role.gated ? 'scale-110 blur-xl' : ''}`}
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
            lang={lang}
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
          <p dir="auto" lang={lang} className="line-clamp-3 text-start text-sm text-zinc-400">
            {withoutEmphasis(replaceMacros(role.summary, names))}
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
