import { CalendarDays, Lock, MessageCircle, MessageCirclePlus, Pencil, Star } from 'lucide-react'
import { type ReactNode, useEffect, useState } from 'react'
import { data, Link, useLocation, useNavigate, useRevalidator } from 'react-router'
import { CompactList } from '#app/components/compact-list.tsx'
import { ErrorPage } from '#app/components/error-page.tsx'
import { PageMeta } from '#app/components/page-meta.tsx'
import { AgeGateDialog } from '#app/features/catalogue/components/age-gate-dialog.tsx'
import { CharacterText } from '#app/features/catalogue/components/character-text.tsx'
import { MoreCharacters } from '#app/features/catalogue/components/more-characters.tsx'
import { getOwnRole } from '#app/features/characters/api/get-own-role.ts'
import { ExportButtons } from '#app/features/characters/components/export-buttons.tsx'
import { ReportButton } from '#app/features/characters/components/report-dialog.tsx'
import { useHydrated } from '#app/features/characters/components/signed-in-gate.tsx'
import { CharacterChatList, useCharacterChats } from '#app/features/chat/components/character-chats.tsx'
import { ImportChatButton } from '#app/features/chat/components/import-chat-button.tsx'
import { formatDate, formatLanguage, formatRating } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { appLoadContext } from '#app/lib/load-context.ts'
import { useNonce } from '#app/lib/nonce.tsx'
import { withoutEmphasis } from '#app/lib/plain-text.ts'
import { routeLocale } from '#app/lib/route-locale.ts'
import { useIsLoggedIn } from '#app/lib/session.ts'
import { useUserInfo } from '#app/lib/user-info.ts'
import type { RoleDetail, RoleSummary } from '#contracts/catalogue.ts'
import { cardSrcSet, imageVariantUrl } from '#contracts/images.ts'
import { LOCALE_TAGS, type Locale, localizePath } from '#contracts/locales.ts'
import { replaceMacros } from '#contracts/macros.ts'
import { USER_STAND_IN } from '#contracts/user-stand-in.ts'
import type { Route } from './+types/character.ts'

export const handle = { i18n: ['catalogue', 'characters-edit', 'chat'] }

const MORE_COUNT = 6
/** Tags shown before "+N more" (cards from card sites carry 20 and more). */
const VISIBLE_TAGS = 8

export async function loader({ request, params, context }: Route.LoaderArgs) {
  const { catalogue, viewer } = context.get(appLoadContext)
  const locale = routeLocale(params)
  const url = new URL(request.url)
  // `?original=1`: the character's own texts rather than the locale's translation (ADR 039).
  const role = await catalogue.getRole(params.id, viewer, locale, {
    original: url.searchParams.get('original') === '1',
  })
  const origin = url.origin
  // Unknown, or a private character: only its creator may see it, and the server renders without
  // the browser's session (the token lives in localStorage). The page answers 404 here and asks
  // again from the browser, with the token (OwnCharacter below).
  if (!role) return data({ role: null, more: [], moreTag: null, hasMore: false, origin }, { status: 404 })
  const tag = role.tags[0]?.slug ?? null
  const similar = await catalogue.listRoles(
    { page: 1, pageSize: MORE_COUNT + 1, sort: 'popularity', tags: tag ? [tag] : [], q: undefined },
    viewer,
    locale,
  )
  const more = similar.items.filter((r) => r.roleId !== role.roleId).slice(0, MORE_COUNT)
  return { role, more, moreTag: tag, hasMore: similar.totalPages > 1, origin }
}

export default function Character({ loaderData, params }: Route.ComponentProps) {
  const locale = routeLocale(params)
  if (!loaderData.role) return <OwnCharacter key={params.id} roleId={params.id} locale={locale} />
  return (
    <CharacterView
      role={loaderData.role}
      more={loaderData.more}
      moreTag={loaderData.moreTag}
      hasMore={loaderData.hasMore}
      origin={loaderData.origin}
      locale={locale}
    />
  )
}

/**
 * A character the server could not show: the 404 page, unless the signed-in user is its creator
 * (a private character), whose browser loads it with their token.
 */
function OwnCharacter({ roleId, locale }: { roleId: string; locale: Locale }) {
  const { t } = useTranslation('characters-edit')
  const hydrated = useHydrated()
  const loggedIn = useIsLoggedIn()
  const { pathname } = useLocation()
  const root = typeof window === 'undefined' ? '' : window.location.origin
  const [state, setState] = useState<{ kind: 'loading' } | { kind: 'missing' } | { kind: 'ready'; role: RoleDetail }>({
    kind: 'loading',
  })
  useEffect(() => {
    if (!hydrated || !loggedIn) return
    const controller = new AbortController()
    getOwnRole(roleId, locale, controller.signal).then(
      ({ role }) => setState({ kind: 'ready', role }),
      () => {
        if (!controller.signal.aborted) setState({ kind: 'missing' })
      },
    )
    return () => controller.abort()
  }, [hydrated, loggedIn, roleId, locale])

  if (!hydrated || !loggedIn || state.kind === 'missing') return <ErrorPage kind="not-found" path={pathname} />
  if (state.kind === 'loading') {
    return (
      <p role="status" className="py-16 text-center text-zinc-400">
        {t('owner.loading')}
      </p>
    )
  }
  return <CharacterView role={state.role} more={[]} moreTag={null} hasMore={false} origin={root} locale={locale} own />
}

function CharacterView({
  role,
  more,
  moreTag,
  hasMore,
  origin,
  locale,
  own = false,
}: {
  role: RoleDetail
  more: RoleSummary[]
  moreTag: string | null
  hasMore: boolean
  origin: string
  locale: Locale
  /** Loaded from the browser as the creator's own (private) character. */
  own?: boolean
}) {
  const { t } = useTranslation('catalogue')
  const { t: te } = useTranslation('characters-edit')
  const { t: tc } = useTranslation('chat')
  const user = useUserInfo()
  // "Continue" opens the latest of the user's chats with the character; "New chat" starts another
  // (or reuses an empty one, ADR 048). Known only in the browser.
  const chats = useCharacterChats(role.roleId, locale)
  const latest = chats.sessions[0] ?? null
  const isCreator = own || (user !== null && role.creator !== null && user.username === role.creator.username)
  const loggedIn = useIsLoggedIn()
  const revalidator = useRevalidator()
  const navigate = useNavigate()
  const nonce = useNonce()
  const path = localizePath(locale, `/characters/${role.roleId}`)
  const chatHref = loggedIn
    ? localizePath(locale, `/chat/new?roleId=${encodeURIComponent(role.roleId)}`)
    : localizePath(locale, `/login?redirect_url=${encodeURIComponent(path)}`)
  // The texts are in `role.language`: the page's when translated, else the character's own (ADR
  // 039). A text in another language than the page's says so (`lang`); details (personality,
  // description) are never translated. {{user}} is the signed-in visitor's name (after loading),
  // else "you" in the TEXT's language, as in the meta texts.
  const textLang = role.language === locale ? undefined : LOCALE_TAGS[role.language]
  const detailsLang = role.sourceLanguage === locale ? undefined : LOCALE_TAGS[role.sourceLanguage]
  const standIn = USER_STAND_IN[role.language]
  const names = { char: role.name, user: user?.username ?? standIn }
  const detailNames = { char: role.name, user: user?.username ?? USER_STAND_IN[role.sourceLanguage] }
  const summary = withoutEmphasis(replaceMacros(role.summary, { char: role.name, user: standIn }))
  const showingOriginal = role.translation !== null && role.language === role.sourceLanguage
  // A page in a locale the character has no text of its own in shows its source text: for search
  // engines a duplicate of the source-language page, which is therefore its canonical URL.
  const canonicalLocale = showingOriginal || !role.languages.includes(locale) ? role.sourceLanguage : locale
  const description = role.gated ? t('ageGate.text') : summary || t('role.noIntroduction')
  const details = [role.personality, role.description].filter(Boolean).join('\n\n')
  const hidden = role.gated ? <Hidden text={t('ageGate.blurred')} /> : null
  const jsonLd = role.gated
    ? null
    : {
        '@context': 'https://schema.org',
        '@type': 'CreativeWork',
        name: role.name,
        description: summary,
        inLanguage: LOCALE_TAGS[role.language],
        url: origin + path,
        image: role.avatarUrl ? origin + role.avatarUrl : undefined,
        dateCreated: role.createdAt,
        dateModified: role.updatedAt,
        genre: role.tags.map((tag) => tag.name),
        author: role.creator ? { '@type': 'Person', name: role.creator.username } : undefined,
        aggregateRating:
          role.rating.count > 0
            ? {
                '@type': 'AggregateRating',
                ratingValue: role.rating.average,
                ratingCount: role.rating.count,
                bestRating: 5,
              }
            : undefined,
        interactionStatistic: {
          '@type': 'InteractionCounter',
          interactionType: 'https://schema.org/CommentAction',
          userInteractionCount: role.chatCount,
        },
      }

  return (
    <article>
      <PageMeta
        title={role.name}
        description={description}
        type="profile"
        locales={role.visibility === 'private' ? undefined : role.languages}
        canonicalLocale={canonicalLocale}
        image={
          role.avatarUrl && !role.gated
            ? { url: imageVariantUrl(role.avatarUrl, 'card-640'), alt: role.name }
            : undefined
        }
      />
      {role.gated || role.visibility === 'private' ? <meta name="robots" content="noindex" /> : null}
      {jsonLd ? (
        <script
          type="application/ld+json"
          nonce={nonce}
          suppressHydrationWarning
          // biome-ignore lint/security/noDangerouslySetInnerHtml: JSON-LD with `<` escaped.
          dangerouslySetInnerHTML={{ __html: JSON.stringify(jsonLd).replace(/</g, '\\u003c') }}
        />
      ) : null}

      <div className="relative overflow-hidden rounded-3xl bg-zinc-900">
        <div className="aspect-[3/1] max-h-72 w-full bg-gradient-to-br from-violet-900 to-zinc-900">
          {role.bannerUrl ? (
            // The page's largest picture: fetched first, ahead of the cards further down (LCP).
            <img
              src={role.bannerUrl}
              alt=""
              width={1500}
              height={500}
              fetchPriority="high"
              className="size-full object-cover"
            />
          ) : null}
        </div>
        <div className="flex flex-col gap-4 p-5 sm:flex-row sm:items-end">
          {/* The whole picture of a 2:3 portrait, as the card sites show it (ADR 042). */}
          <div className="-mt-20 aspect-[2/3] w-32 shrink-0 overflow-hidden rounded-2xl border-4 border-zinc-900 bg-zinc-800 sm:-mt-36 sm:w-40">
            {role.avatarUrl ? (
              <img
                src={imageVariantUrl(role.avatarUrl, 'card-320')}
                srcSet={cardSrcSet(role.avatarUrl)}
                sizes="(min-width: 640px) 160px, 128px"
                alt={role.name}
                width={320}
                height={480}
                // Without a banner the portrait is the largest picture above the fold.
                fetchPriority={role.bannerUrl ? undefined : 'high'}
                data-testid="character-picture"
                className={`size-full object-cover object-top ${role.gated ? 'scale-110 blur-xl' : ''}`}
              />
            ) : null}
          </div>
          <div className="min-w-0 flex-1">
            <h1 className="text-2xl font-bold sm:text-4xl">
              <bdi lang={textLang}>{role.name}</bdi>
              {role.isAdult ? (
                <span className="ms-3 rounded-full bg-rose-600 px-2 py-0.5 align-middle text-sm font-bold">
                  {t('card.adultBadge')}
                </span>
              ) : null}
            </h1>
            <CompactList
              items={role.tags}
              visible={VISIBLE_TAGS}
              keyOf={(tag) => tag.slug}
              className="mt-2 flex flex-wrap gap-1.5"
              testId="role-tags"
              render={(tag) => (
                <Link
                  to={localizePath(locale, `/characters?tags=${tag.slug}`)}
                  className="rounded-full bg-zinc-800 px-2.5 py-0.5 text-xs text-zinc-300 hover:bg-zinc-700"
                >
                  <bdi>{tag.name}</bdi>
                </Link>
              )}
            />
            <ul className="mt-3 flex flex-wrap gap-x-5 gap-y-1 text-sm text-zinc-400">
              <li className="flex items-center gap-1.5">
                <MessageCircle aria-hidden="true" className="size-4" />
                {t('role.chatCount', { count: role.chatCount })}
              </li>
              <li className="flex items-center gap-1.5">
                <CalendarDays aria-hidden="true" className="size-4" />
                <time dateTime={role.createdAt}>
                  {t('role.createdOn', { date: formatDate(locale, role.createdAt) })}
                </time>
              </li>
              <li className="flex items-center gap-1.5">
                <Star aria-hidden="true" className="size-4" />
                {role.rating.count > 0
                  ? t('card.rating', { rating: formatRating(locale, role.rating.average), count: role.rating.count })
                  : t('card.notRated')}
              </li>
              {role.creator ? <li>{t('role.createdBy', { name: role.creator.username })}</li> : null}
            </ul>
          </div>
          <div className="flex shrink-0 flex-wrap gap-2">
            {latest ? (
              <Link
                to={localizePath(locale, `/chat/${latest.id}`)}
                className="button-primary"
                data-testid="continue-chat"
              >
                <MessageCircle aria-hidden="true" className="size-5" />
                {tc('tidy.continue')}
              </Link>
            ) : null}
            <Link to={chatHref} className={latest ? 'button-secondary' : 'button-primary'} data-testid="start-chat">
              {latest ? (
                <MessageCirclePlus aria-hidden="true" className="size-5" />
              ) : (
                <MessageCircle aria-hidden="true" className="size-5" />
              )}
              {latest ? tc('tidy.newChat') : t('role.startChat')}
            </Link>
          </div>
        </div>
      </div>
      <div className="mt-4 flex flex-wrap items-center justify-between gap-3">
        <div className="flex flex-col gap-1">
          {role.visibility === 'private' ? (
            <p className="flex items-center gap-2 text-sm text-amber-300">
              <Lock aria-hidden="true" className="size-4" />
              {t('role.private')}
            </p>
          ) : null}
          <TranslationNote role={role} locale={locale} path={path} showingOriginal={showingOriginal} />
        </div>
        <div className="flex flex-wrap items-center gap-2">
          {isCreator ? (
            <Link
              to={localizePath(locale, `/characters/edit/form?id=${encodeURIComponent(role.roleId)}`)}
              className="button-ghost"
              data-testid="edit-character"
            >
              <Pencil aria-hidden="true" className="size-4" />
              {te('owner.edit')}
            </Link>
          ) : null}
          {role.gated ? null : <ExportButtons roleId={role.roleId} name={role.name} />}
          {loggedIn && !role.gated ? (
            <ImportChatButton
              roleId={role.roleId}
              onImported={(result) => navigate(localizePath(locale, `/chat/${result.sessionId}`))}
            />
          ) : null}
          <ReportButton roleId={role.roleId} name={role.name} />
        </div>
      </div>

      <CharacterChatList sessions={chats.sessions} total={chats.total} locale={locale} />

      <div className="mt-8 grid gap-8 lg:grid-cols-[2fr_1fr]">
        <section aria-labelledby="introduction">
          <h2 id="introduction" className="mb-3 text-xl font-semibold">
            {t('role.introduction')}
          </h2>
          {hidden ?? (
            <CharacterText text={role.introduction} empty={t('role.noIntroduction')} names={names} lang={textLang} />
          )}
        </section>
        <section aria-labelledby="information" className="rounded-2xl bg-zinc-900 p-5">
          <h2 id="information" className="mb-4 text-xl font-semibold">
            {t('role.information')}
          </h2>
          <InfoBlock title={t('role.scenario')}>
            {hidden ?? (
              <CharacterText text={role.scenario} empty={t('role.noScenario')} names={names} lang={textLang} />
            )}
          </InfoBlock>
          <InfoBlock title={t('role.details')}>
            {hidden ?? (
              <CharacterText text={details} empty={t('role.noDetails')} names={detailNames} lang={detailsLang} />
            )}
          </InfoBlock>
          <InfoBlock title={t('role.firstMessage')}>
            {hidden ?? (
              <CharacterText text={role.firstMessage} empty={t('role.noFirstMessage')} names={names} lang={textLang} />
            )}
          </InfoBlock>
        </section>
      </div>

      {own ? null : (
        <MoreCharacters
          key={role.roleId}
          locale={locale}
          excludeId={role.roleId}
          tag={moreTag}
          initial={more}
          hasMore={hasMore}
        />
      )}

      {role.gated ? (
        <AgeGateDialog
          onConfirmed={() => revalidator.revalidate()}
          onCancel={() => navigate(localizePath(locale, '/characters'))}
        />
      ) : null}
    </article>
  )
}

/**
 * Where the texts come from: "Translated automatically · Show original" (or by the creator), with
 * a note when the original changed since; on `?original=1`, "Original text (English) · Show
 * translation". Nothing for a character shown in its own language with no translation here.
 */
function TranslationNote({
  role,
  locale,
  path,
  showingOriginal,
}: {
  role: RoleDetail
  locale: Locale
  path: string
  showingOriginal: boolean
}) {
  const { t } = useTranslation('catalogue')
  if (!role.translation) return null
  if (showingOriginal) {
    return (
      <p className="text-sm text-zinc-400" data-testid="translation-note">
        {t('translation.original', { language: formatLanguage(locale, role.sourceLanguage) })}
        <span aria-hidden="true"> · </span>
        <Link to={path} className="text-violet-300 underline-offset-2 hover:underline">
          {t('translation.showTranslation')}
        </Link>
      </p>
    )
  }
  return (
    <p className="text-sm text-zinc-400" data-testid="translation-note">
      {role.translation.origin === 'machine' ? t('translation.machine') : t('translation.author')}
      <span aria-hidden="true"> · </span>
      <Link to={`${path}?original=1`} className="text-violet-300 underline-offset-2 hover:underline">
        {t('translation.showOriginal')}
      </Link>
      {role.translation.stale ? <span className="block text-amber-300/90">{t('translation.stale')}</span> : null}
    </p>
  )
}

function InfoBlock({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="mb-5 last:mb-0">
      <h3 className="mb-1.5 text-sm font-semibold uppercase tracking-wide text-violet-300">{title}</h3>
      {children}
    </div>
  )
}

function Hidden({ text }: { text: string }) {
  return (
    <p className="flex items-center gap-2 rounded-lg bg-zinc-800/60 p-3 text-sm text-zinc-400">
      <Lock aria-hidden="true" className="size-4" />
      {text}
    </p>
  )
}
