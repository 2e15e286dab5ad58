import { UserRound } from 'lucide-react'
import { useEffect, useId, useState } from 'react'
import { LocalizedLink } from '#app/components/localized-link.tsx'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { notify } from '#app/lib/notify.tsx'
import type { Persona } from '#contracts/personas.ts'
import { getChatPersona, setChatPersona } from '../api/chat-persona.ts'
import { listMyPersonas } from '../api/list-my-personas.ts'

type State = { personas: Persona[]; personaId: string | null }

/**
 * Who the user is in this chat (ADR 049): one of their personas, or the account name. A change
 * holds from the next reply on; what was written stays as it was.
 */
export function PersonaPicker({ sessionId, disabled }: { sessionId: string; disabled?: boolean }) {
  const { t } = useTranslation('personas')
  const { t: tCommon } = useTranslation()
  const id = useId()
  const [state, setState] = useState<State | null>(null)
  const [saving, setSaving] = useState(false)

  useEffect(() => {
    const controller = new AbortController()
    Promise.all([listMyPersonas(controller.signal), getChatPersona(sessionId, controller.signal)]).then(
      ([list, chat]) => setState({ personas: list.items, personaId: chat.personaId }),
      // The chat works without it: the picker stays hidden.
      () => {},
    )
    return () => controller.abort()
  }, [sessionId])

  if (!state) return null
  if (state.personas.length === 0) {
    return (
      <LocalizedLink
        to="/personas"
        className="button-ghost hidden text-sm sm:inline-flex"
        data-testid="persona-manage"
        title={t('picker.manage')}
      >
        <UserRound aria-hidden="true" className="size-4" />
        {t('picker.add')}
      </LocalizedLink>
    )
  }

  const choose = async (value: string) => {
    const personaId = value === '' ? null : value
    const before = state.personaId
    setState({ ...state, personaId })
    setSaving(true)
    try {
      await setChatPersona(sessionId, personaId)
      const name = state.personas.find((p) => p.id === personaId)?.name
      notify(name ? t('picker.changed', { name }) : t('picker.changedToAccount'), { type: 'success' })
    } catch (error) {
      setState((s) => s && { ...s, personaId: before })
      notify(t('picker.failed', { reason: apiErrorMessage(tCommon, error) }), { type: 'error' })
    } finally {
      setSaving(false)
    }
  }

  return (
    <div className="flex min-w-0 items-center gap-1.5" data-testid="persona-picker">
      <label htmlFor={id} className="flex items-center gap-1 text-xs text-zinc-400">
        <UserRound aria-hidden="true" className="size-4" />
        <span className="hidden sm:inline">{t('picker.label')}</span>
        <span className="sr-only sm:hidden">{t('picker.label')}</span>
      </label>
      <select
        id={id}
        dir="auto"
        className="max-w-32 truncate rounded-lg border border-zinc-700 bg-zinc-950 px-2 py-1 text-sm text-zinc-100 sm:max-w-44"
        value={state.personaId ?? ''}
        disabled={disabled || saving}
        onChange={(event) => void choose(event.target.value)}
        data-testid="persona-select"
      >
        <option value="">{t('picker.none')}</option>
        {state.personas.map((persona) => (
          <option key={persona.id} value={persona.id}>
            {persona.name}
          </option>
        ))}
      </select>
    </div>
  )
}
