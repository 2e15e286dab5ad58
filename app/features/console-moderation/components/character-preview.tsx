import type { ReactNode } from 'react'
import { LocalizedLink } from '#app/components/localized-link.tsx'
import { formatDate, formatLanguage } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import type { ReportedCharacter } from '#contracts/admin-moderation.ts'
import { LOCALE_TAGS, type Locale } from '#contracts/locales.ts'
import { StateBadges } from './state-badges.tsx'

type Character = ReportedCharacter['character']

/**
 * The reported character as users see it on its page: picture, name, creator, tags, introduction
 * and greeting, in its own language (`lang`, `dir="auto"`). `renderText` draws a text as the
 * character page does (the route hands in the catalogue's renderer); then its state for staff.
 */
export function CharacterPreview({
  locale,
  character,
  renderText,
}: {
  locale: Locale
  character: Character
  renderText: (text: string, empty: string) => ReactNode
}) {
  const { t } = useTranslation('console-moderation')
  const lang = LOCALE_TAGS[character.language]
  return (
    <section aria-labelledby="preview-title" className="rounded-2xl border border-zinc-800 bg-zinc-900 p-5">
      <h2 id="preview-title" className="mb-4 text-sm font-semibold tracking-wide text-zinc-400 uppercase">
        {t('character.preview')}
      </h2>
      <div className="flex flex-col gap-5 sm:flex-row">
        {character.avatarUrl ? (
          <img
            src={character.avatarUrl}
            alt=""
            className="size-32 shrink-0 rounded-2xl object-cover"
            data-testid="preview-avatar"
          />
        ) : (
          <span aria-hidden="true" className="size-32 shrink-0 rounded-2xl bg-zinc-800" />
        )}
        <div className="min-w-0 flex-1">
          <p className="text-2xl font-bold" dir="auto" lang={lang}>
            {character.name}
          </p>
          <dl className="mt-1 flex gap-2 text-sm">
            <dt className="text-zinc-400">{t('queue.creator')}</dt>
            <dd data-testid="preview-creator">
              {character.creator ? (
                <bdi dir="auto">{character.creator.username}</bdi>
              ) : (
                <span className="text-zinc-400">{t('state.noCreator')}</span>
              )}
            </dd>
          </dl>
          <div className="mt-3">
            {character.tags.length === 0 ? (
              <p className="text-sm text-zinc-400">{t('character.noTags')}</p>
            ) : (
              <ul className="flex flex-wrap gap-2" aria-label={t('character.tags')}>
                {character.tags.map((tag) => (
                  <li key={tag.slug} className="rounded-full bg-zinc-800 px-3 py-1 text-xs text-zinc-200" dir="auto">
                    {tag.name}
                  </li>
                ))}
              </ul>
            )}
          </div>
        </div>
      </div>
      <h3 className="mt-6 mb-2 font-semibold">{t('character.introduction')}</h3>
      <div data-testid="preview-introduction">{renderText(character.introduction, t('character.noIntroduction'))}</div>
      <h3 className="mt-6 mb-2 font-semibold">{t('character.greeting')}</h3>
      <div data-testid="preview-greeting" className="rounded-xl bg-zinc-950 p-4">
        {renderText(character.greeting, t('character.noGreeting'))}
      </div>

      <div className="mt-6 flex flex-wrap items-center gap-x-4 gap-y-2 border-t border-zinc-800 pt-4 text-sm text-zinc-400">
        <StateBadges
          visibility={character.visibility}
          hidden={character.hiddenCauses.length > 0}
          isAdult={character.isAdult}
        />
        {character.hiddenCauses.map((cause) => (
          <span key={cause} className="text-rose-300">
            {t(`character.hiddenBecause.${cause}`)}
          </span>
        ))}
        <span>{t('character.writtenIn', { language: formatLanguage(locale, character.language) })}</span>
        <span>{t('character.created', { date: formatDate(locale, character.createdAt, 'medium') })}</span>
        <LocalizedLink to={`/characters/${encodeURIComponent(character.id)}`} className="text-violet-300 underline">
          {t('character.openPage')}
        </LocalizedLink>
      </div>
    </section>
  )
}
