import { useState } from 'react'
import { useNavigate } from 'react-router'
import { LocalizedLink, useLocalizePath } from '#app/components/localized-link.tsx'
import { CharacterText } from '#app/features/catalogue/components/character-text.tsx'
import { Loading, ProblemRetry } from '#app/features/console/components/load-state.tsx'
import { useConsoleState } from '#app/features/console/console-state.ts'
import { useAdminData } from '#app/features/console/use-admin-data.ts'
import { ActionForm, type Choice } from '#app/features/console-moderation/components/action-form.tsx'
import { CharacterPreview } from '#app/features/console-moderation/components/character-preview.tsx'
import { ClosedReports, OpenReports } from '#app/features/console-moderation/components/report-lists.tsx'
import {
  actOnCharacter,
  getReportedCharacter,
  handleReports,
  suspendCreator,
} from '#app/features/console-moderation/moderation-api.ts'
import { formatNumber } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { routeLocale } from '#app/lib/route-locale.ts'
import type { CharacterAction, ReportHandling } from '#contracts/admin-moderation.ts'
import type { ReportOutcome } from '#contracts/characters.ts'
import { LOCALE_TAGS } from '#contracts/locales.ts'
import { USER_STAND_IN } from '#contracts/user-stand-in.ts'
import type { Route } from './+types/console-reports-character.ts'

export const handle = { i18n: ['console-moderation', 'characters-edit'] }

/** Console pages are one person's: never stored by a shared cache. */
export const headers = () => ({ 'Cache-Control': 'private, no-store' })

type Handling = ReportHandling | 'suspend'
const OUTCOME: Record<Handling, ReportOutcome> = {
  dismiss: 'dismissed',
  hide: 'hidden',
  mark_adult: 'marked_adult',
  warn: 'warned',
  suspend: 'suspended',
}

/**
 * `/console/reports/:characterId` (moderators and admins, ADR 058): the character as users see it,
 * its reports, and two forms: handle the open reports with one outcome (then back to the queue
 * with the result), or act on the character directly (the result shows here). Suspending the
 * creator is offered to admins only.
 */
export default function ConsoleReportsCharacter({ params }: Route.ComponentProps) {
  const { t } = useTranslation('console-moderation')
  const locale = routeLocale(params)
  const { me } = useConsoleState()
  const navigate = useNavigate()
  const localize = useLocalizePath()
  const characterId = params.characterId
  const { data, problem, reload } = useAdminData(
    (signal) => getReportedCharacter(characterId, locale, signal),
    `${characterId}:${locale}`,
  )
  const [done, setDone] = useState<string | null>(null)
  const character = data?.character

  const handleChoices: Choice<Handling>[] = character
    ? [
        { value: 'dismiss', label: t('handle.dismiss') },
        { value: 'hide', label: t('handle.hide') },
        { value: 'mark_adult', label: t('handle.mark_adult') },
        { value: 'warn', label: t('handle.warn'), disabled: !character.creator },
        { value: 'suspend', label: t('handle.suspend'), disabled: !character.creator || me.role !== 'admin' },
      ]
    : []
  const hiddenByModerator = character?.hiddenCauses.includes('moderation') ?? false
  const actChoices: Choice<CharacterAction>[] = character
    ? [
        hiddenByModerator ? { value: 'restore', label: t('act.restore') } : { value: 'hide', label: t('act.hide') },
        character.isAdult
          ? { value: 'unmark_adult', label: t('act.unmark_adult') }
          : { value: 'mark_adult', label: t('act.mark_adult') },
      ]
    : []

  return (
    <section>
      <LocalizedLink to="/console/reports" className="text-sm text-violet-300 underline hover:text-violet-200">
        {t('character.back')}
      </LocalizedLink>
      <h1 className="mt-2 mb-4 text-2xl font-bold break-words" dir="auto">
        {character ? <bdi lang={LOCALE_TAGS[character.language]}>{character.name}</bdi> : characterId}
      </h1>
      {done ? (
        <p
          role="status"
          className="mb-4 rounded-xl border border-emerald-500/40 bg-emerald-950/40 p-3 text-emerald-200"
          data-testid="moderation-done"
        >
          {done}
        </p>
      ) : null}
      <ProblemRetry problem={problem} retryLabel={t('retry')} onRetry={reload} />
      {!data || !character ? (
        problem ? null : (
          <Loading label={t('loading')} />
        )
      ) : (
        <div className="grid gap-6 xl:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
          <div className="min-w-0 space-y-6">
            <CharacterPreview
              locale={locale}
              character={character}
              renderText={(text, empty) => (
                <CharacterText
                  text={text}
                  empty={empty}
                  names={{ char: character.name, user: USER_STAND_IN[character.language] }}
                  lang={LOCALE_TAGS[character.language]}
                />
              )}
            />
            <OpenReports locale={locale} reports={data.openReports} />
            <ClosedReports locale={locale} reports={data.closedReports} />
          </div>
          <div className="min-w-0 space-y-6">
            {data.openReports.length > 0 ? (
              <ActionForm
                key={`handle:${data.openReports.length}`}
                testId="handle-form"
                title={t('handle.title')}
                intro={t('handle.intro')}
                choices={handleChoices}
                notes={[
                  ...(me.role !== 'admin' ? [t('handle.adminOnly')] : []),
                  ...(character.creator ? [] : [t('handle.noCreator')]),
                ]}
                confirmText={(choice) =>
                  t('handle.confirmText', {
                    reports: formatNumber(locale, data.openReports.length),
                    action: choice.label,
                  })
                }
                run={async (action, note) => {
                  const { closed } =
                    action === 'suspend'
                      ? await suspendCreator(characterId, note)
                      : await handleReports(characterId, action, note)
                  return t('done.handled', {
                    outcome: t(`outcome.${OUTCOME[action]}`),
                    closed: formatNumber(locale, closed),
                  })
                }}
                onDone={(message) => void navigate(localize('/console/reports'), { state: { done: message } })}
              />
            ) : null}
            <ActionForm
              key={`act:${hiddenByModerator}:${character.isAdult}`}
              testId="character-actions"
              title={t('act.title')}
              intro={t('act.intro')}
              choices={actChoices}
              confirmText={(choice) => t('act.confirmText', { action: choice.label, name: character.name })}
              run={async (action, note) => {
                const { changed } = await actOnCharacter(characterId, action, note)
                const label = actChoices.find((choice) => choice.value === action)?.label ?? action
                return changed ? t('done.changed', { action: label }) : t('done.unchanged')
              }}
              onDone={(message) => void reload().then(() => setDone(message))}
            />
          </div>
        </div>
      )}
    </section>
  )
}
