import { useTranslation } from '#app/lib/i18n-react.tsx'

const badge = 'inline-block rounded-full border px-2 py-0.5 text-xs font-semibold whitespace-nowrap'

/** A character's state in the console: public or private, hidden by an operator, 18+. */
export function StateBadges({
  visibility,
  hidden,
  isAdult,
}: {
  visibility: string
  hidden: boolean
  isAdult: boolean
}) {
  const { t } = useTranslation('console-moderation')
  return (
    <span className="flex flex-wrap gap-1" data-testid="character-state">
      {hidden ? (
        <span className={`${badge} border-rose-400/60 text-rose-300`}>{t('state.hidden')}</span>
      ) : (
        <span
          className={`${badge} ${visibility === 'public' ? 'border-emerald-400/60 text-emerald-300' : 'border-zinc-600 text-zinc-300'}`}
        >
          {visibility === 'public' ? t('state.public') : t('state.private')}
        </span>
      )}
      {isAdult ? <span className={`${badge} border-amber-400/60 text-amber-300`}>{t('state.adult')}</span> : null}
    </span>
  )
}
