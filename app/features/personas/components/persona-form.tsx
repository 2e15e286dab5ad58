import { useId, useState } from 'react'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { imageVariantUrl } from '#contracts/images.ts'
import {
  checkPersonaFields,
  PERSONA_LIMITS,
  type Persona,
  type PersonaFieldProblem,
  type PersonaFields,
} from '#contracts/personas.ts'
import { personaFieldError, refusedFields } from '../field-error.ts'

const inputClass =
  'w-full rounded-lg border border-zinc-700 bg-zinc-950 px-3 text-zinc-100 focus:border-violet-400 focus:outline-none aria-[invalid=true]:border-rose-400'

export type PersonaSubmit = PersonaFields & { isDefault: boolean; avatar: File | null; removeAvatar: boolean }

/**
 * A persona's name, description and avatar, new or edited. The limits are checked here as on the
 * server (`checkPersonaFields`); what the server refuses comes back on the same fields.
 */
export function PersonaForm({
  persona,
  onSubmit,
  onCancel,
}: {
  /** The persona edited; none: a new one. */
  persona?: Persona
  onSubmit: (values: PersonaSubmit) => Promise<void>
  onCancel: () => void
}) {
  const { t } = useTranslation('personas')
  const { t: tCommon } = useTranslation()
  const id = useId()
  const [name, setName] = useState(persona?.name ?? '')
  const [description, setDescription] = useState(persona?.description ?? '')
  const [isDefault, setIsDefault] = useState(false)
  const [avatar, setAvatar] = useState<File | null>(null)
  const [removeAvatar, setRemoveAvatar] = useState(false)
  const [problems, setProblems] = useState<PersonaFieldProblem[]>([])
  const [failure, setFailure] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)

  const problemOf = (path: PersonaFieldProblem['path']) => problems.find((p) => p.path === path)
  const submit = async (event: React.FormEvent) => {
    event.preventDefault()
    setFailure(null)
    const found = checkPersonaFields({ name, description })
    setProblems(found)
    if (found.length > 0) return
    setBusy(true)
    try {
      await onSubmit({ name, description, isDefault, avatar, removeAvatar })
    } catch (error) {
      const refused = refusedFields(error)
      setProblems(refused)
      if (refused.length === 0) setFailure(apiErrorMessage(tCommon, error))
      setBusy(false)
    }
  }

  const nameProblem = problemOf('name')
  const descriptionProblem = problemOf('description')
  const countProblem = problemOf('personas')
  const shownAvatar = removeAvatar ? null : persona?.avatarUrl
  return (
    <form
      onSubmit={submit}
      noValidate
      className="rounded-2xl border border-violet-500/40 bg-zinc-900 p-5"
      data-testid="persona-form"
    >
      <div className="mb-4">
        <label htmlFor={`${id}-name`} className="mb-1 block text-sm font-medium">
          {t('form.name')}
        </label>
        <input
          id={`${id}-name`}
          name="name"
          dir="auto"
          className={`${inputClass} h-11`}
          value={name}
          onChange={(e) => setName(e.target.value)}
          aria-invalid={nameProblem ? true : undefined}
          aria-describedby={`${id}-name-hint${nameProblem ? ` ${id}-name-error` : ''}`}
          maxLength={PERSONA_LIMITS.name * 2}
          required
        />
        <p id={`${id}-name-hint`} className="mt-1 text-xs text-zinc-400">
          {t('form.nameHint')}
        </p>
        {nameProblem ? (
          <p id={`${id}-name-error`} className="mt-1 text-sm text-rose-300" data-testid="persona-name-error">
            {personaFieldError(t, nameProblem)}
          </p>
        ) : null}
      </div>
      <div className="mb-4">
        <label htmlFor={`${id}-description`} className="mb-1 block text-sm font-medium">
          {t('form.description')}
        </label>
        <textarea
          id={`${id}-description`}
          name="description"
          dir="auto"
          rows={5}
          className={`${inputClass} py-2 leading-relaxed`}
          value={description}
          onChange={(e) => setDescription(e.target.value)}
          aria-invalid={descriptionProblem ? true : undefined}
          aria-describedby={`${id}-description-hint${descriptionProblem ? ` ${id}-description-error` : ''}`}
        />
        <p id={`${id}-description-hint`} className="mt-1 text-xs text-zinc-400">
          {t('form.descriptionHint', { limit: PERSONA_LIMITS.description })}
        </p>
        {descriptionProblem ? (
          <p
            id={`${id}-description-error`}
            className="mt-1 text-sm text-rose-300"
            data-testid="persona-description-error"
          >
            {personaFieldError(t, descriptionProblem)}
          </p>
        ) : null}
      </div>
      <div className="mb-4">
        <label htmlFor={`${id}-avatar`} className="mb-1 block text-sm font-medium">
          {t('form.avatar')}
        </label>
        <div className="flex flex-wrap items-center gap-3">
          {shownAvatar ? (
            <img
              src={imageVariantUrl(shownAvatar, 'square-128') ?? shownAvatar}
              alt=""
              width={48}
              height={48}
              className="size-12 rounded-full object-cover"
            />
          ) : null}
          <input
            id={`${id}-avatar`}
            type="file"
            accept="image/jpeg,image/png,image/webp,image/gif,image/avif"
            aria-describedby={`${id}-avatar-hint`}
            className="text-sm text-zinc-300 file:me-3 file:rounded-lg file:border-0 file:bg-zinc-800 file:px-3 file:py-1.5 file:text-zinc-100"
            onChange={(e) => {
              setAvatar(e.target.files?.[0] ?? null)
              setRemoveAvatar(false)
            }}
          />
          {persona?.avatarUrl && !removeAvatar ? (
            <button type="button" className="button-ghost text-sm" onClick={() => setRemoveAvatar(true)}>
              {t('form.removeAvatar')}
            </button>
          ) : null}
        </div>
        <p id={`${id}-avatar-hint`} className="mt-1 text-xs text-zinc-400">
          {t('form.avatarHint')}
        </p>
      </div>
      {persona ? null : (
        <label className="mb-4 flex items-center gap-2 text-sm">
          <input
            type="checkbox"
            checked={isDefault}
            onChange={(e) => setIsDefault(e.target.checked)}
            className="size-4 accent-violet-500"
          />
          {t('form.makeDefault')}
        </label>
      )}
      {countProblem ? (
        <p role="alert" className="mb-3 text-sm text-rose-300">
          {personaFieldError(t, countProblem)}
        </p>
      ) : null}
      {failure ? (
        <p role="alert" className="mb-3 text-sm text-rose-300">
          {failure}
        </p>
      ) : null}
      <div className="flex flex-wrap justify-end gap-2">
        <button type="button" className="button-ghost" onClick={onCancel}>
          {t('form.cancel')}
        </button>
        <button type="submit" className="button-primary" disabled={busy} data-testid="persona-save">
          {busy ? t('form.saving') : persona ? t('form.save') : t('form.create')}
        </button>
      </div>
    </form>
  )
}
