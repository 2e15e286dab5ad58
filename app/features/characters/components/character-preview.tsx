import { Lock } from 'lucide-react'
import type { ReactNode } from 'react'
import { CompactList } from '#app/components/compact-list.tsx'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { imageVariantUrl } from '#contracts/images.ts'
import { LOCALE_TAGS } from '#contracts/locales.ts'
import { type CharacterFormState, formTagKey } from '../form-state.ts'
import { imageSrc } from './image-field.tsx'

/** Tags shown before "+N more". */
const VISIBLE_TAGS = 8

/**
 * The character page as it will look, drawn from the form as the user types (same blocks and
 * styles as app/routes/character.tsx, at a smaller scale).
 */
export function CharacterPreview({ state }: { state: CharacterFormState }) {
  const { t } = useTranslation('characters-edit')
  const { t: tc } = useTranslation('catalogue')
  const banner = imageSrc(state.banner)
  const avatar = imageVariantUrl(imageSrc(state.avatar), 'card-320')
  const details = [state.personality.trim(), state.details.trim()].filter(Boolean).join('\n\n')
  const greetings = state.alternateGreetings.filter((g) => g.trim()).length
  // The character's texts are in its own language, whatever the page's.
  const lang = LOCALE_TAGS[state.sourceLanguage]
  return (
    <section aria-labelledby="preview-title" className="rounded-2xl border border-zinc-800 bg-zinc-950 p-3">
      <h2 id="preview-title" className="mb-3 px-1 text-sm font-semibold uppercase tracking-wide text-zinc-400">
        {t('preview.title')}
      </h2>
      <div className="overflow-hidden rounded-2xl bg-zinc-900" data-testid="character-preview">
        <div className="aspect-[3/1] w-full bg-gradient-to-br from-violet-900 to-zinc-900">
          {banner ? <img src={banner} alt="" className="size-full object-cover" /> : null}
        </div>
        <div className="p-4">
          <div className="-mt-16 aspect-[2/3] w-20 overflow-hidden rounded-xl border-4 border-zinc-900 bg-zinc-800">
            {avatar ? <img src={avatar} alt="" className="size-full object-cover object-top" /> : null}
          </div>
          <p className="mt-2 text-xl font-bold break-words">
            {state.name.trim() ? <bdi lang={lang}>{state.name.trim()}</bdi> : <bdi>{t('preview.unnamed')}</bdi>}
            {state.isAdult ? (
              <span className="ms-2 rounded-full bg-rose-600 px-2 py-0.5 align-middle text-xs font-bold">
                {tc('card.adultBadge')}
              </span>
            ) : null}
          </p>
          {state.tags.length > 0 ? (
            <CompactList
              items={state.tags}
              visible={VISIBLE_TAGS}
              keyOf={formTagKey}
              className="mt-2 flex flex-wrap gap-1.5"
              itemClassName={() => 'rounded-full bg-zinc-800 px-2.5 py-0.5 text-xs text-zinc-300'}
              render={(tag) => <bdi>{tag.name}</bdi>}
            />
          ) : null}
          {state.visibility === 'private' ? (
            <p className="mt-3 flex items-center gap-2 text-xs text-amber-300">
              <Lock aria-hidden="true" className="size-3.5" />
              {tc('role.private')}
            </p>
          ) : null}
        </div>
      </div>
      <div className="mt-3 space-y-4 px-1 pb-1">
        <Block title={tc('role.introduction')}>
          <Text lang={lang} text={state.introduction} empty={tc('role.noIntroduction')} />
        </Block>
        <Block title={tc('role.scenario')}>
          <Text lang={lang} text={state.scenario} empty={tc('role.noScenario')} />
        </Block>
        <Block title={tc('role.details')}>
          <Text lang={lang} text={details} empty={tc('role.noDetails')} />
        </Block>
        <Block title={tc('role.firstMessage')}>
          <Text lang={lang} text={state.firstMessage} empty={tc('role.noFirstMessage')} />
          {greetings > 0 ? (
            <p className="mt-1 text-xs text-zinc-400">{t('preview.greetings', { count: greetings })}</p>
          ) : null}
        </Block>
      </div>
    </section>
  )
}

function Block({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div>
      <h3 className="mb-1 text-xs font-semibold uppercase tracking-wide text-violet-300">{title}</h3>
      {children}
    </div>
  )
}

/** Plain text, never HTML; long texts are cut to keep the preview short. */
function Text({ text, empty, lang }: { text: string; empty: string; lang: string }) {
  const trimmed = text.trim()
  if (!trimmed) return <p className="text-sm italic text-zinc-400">{empty}</p>
  return (
    <p dir="auto" lang={lang} className="line-clamp-6 whitespace-pre-line text-start text-sm text-zinc-300">
      {trimmed}
    </p>
  )
}
