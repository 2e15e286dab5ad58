import { Pencil, Star, Trash2, UserRound } from 'lucide-react'
import { useCallback, useEffect, useState } from 'react'
import { ConfirmDialog } from '#app/components/confirm-dialog.tsx'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { notify } from '#app/lib/notify.tsx'
import { imageVariantUrl } from '#contracts/images.ts'
import { PERSONA_LIMITS, type Persona } from '#contracts/personas.ts'
import { deletePersona } from '../api/delete-persona.ts'
import { listMyPersonas } from '../api/list-my-personas.ts'
import { removePersonaAvatar, uploadPersonaAvatar } from '../api/persona-avatar.ts'
import { createPersona, updatePersona } from '../api/save-persona.ts'
import { setDefaultPersona } from '../api/set-default-persona.ts'
import { PersonaForm, type PersonaSubmit } from './persona-form.tsx'

type Load = { kind: 'loading' } | { kind: 'failed'; reason: string } | { kind: 'ready'; items: Persona[] }

/**
 * The user's personas (ADR 049): add one (up to 20), edit, delete, and pick the default a new chat
 * takes. The avatar goes up after the fields are saved; a refused picture keeps the persona.
 */
export function MyPersonas() {
  const { t } = useTranslation('personas')
  const { t: tCommon } = useTranslation()
  const [load, setLoad] = useState<Load>({ kind: 'loading' })
  /** The persona being edited, 'new' for the form of a new one, or null. */
  const [editing, setEditing] = useState<string | null>(null)
  const [deleting, setDeleting] = useState<Persona | null>(null)

  const fetchList = useCallback(
    (signal?: AbortSignal) => {
      setLoad({ kind: 'loading' })
      listMyPersonas(signal).then(
        ({ items }) => setLoad({ kind: 'ready', items }),
        (error: unknown) => {
          if (!signal?.aborted) setLoad({ kind: 'failed', reason: apiErrorMessage(tCommon, error) })
        },
      )
    },
    [tCommon],
  )
  useEffect(() => {
    const controller = new AbortController()
    fetchList(controller.signal)
    return () => controller.abort()
  }, [fetchList])

  const items = load.kind === 'ready' ? load.items : []
  const change = (update: (items: Persona[]) => Persona[]) =>
    setLoad((current) => (current.kind === 'ready' ? { kind: 'ready', items: update(current.items) } : current))
  const replace = (persona: Persona) =>
    change((list) =>
      list.map((p) =>
        p.id === persona.id ? persona : persona.isDefault && p.isDefault ? { ...p, isDefault: false } : p,
      ),
    )

  /** The avatar after the fields: a refused picture is said, and the persona stays saved. */
  async function saveAvatar(persona: Persona, values: PersonaSubmit): Promise<Persona> {
    try {
      if (values.avatar) return await uploadPersonaAvatar(persona.id, values.avatar)
      if (values.removeAvatar) return await removePersonaAvatar(persona.id)
    } catch (error) {
      notify(t('notices.avatarFailed', { reason: apiErrorMessage(tCommon, error) }), { type: 'error' })
    }
    return persona
  }

  const create = async (values: PersonaSubmit) => {
    const created = await saveAvatar(
      await createPersona({ name: values.name, description: values.description, isDefault: values.isDefault }),
      values,
    )
    change((list) => [...list.map((p) => (created.isDefault ? { ...p, isDefault: false } : p)), created])
    setEditing(null)
    notify(t('notices.created', { name: created.name }), { type: 'success' })
  }

  const update = async (persona: Persona, values: PersonaSubmit) => {
    const saved = await saveAvatar(
      await updatePersona(persona.id, { name: values.name, description: values.description }),
      values,
    )
    replace(saved)
    setEditing(null)
    notify(t('notices.saved', { name: saved.name }), { type: 'success' })
  }

  const toggleDefault = async (persona: Persona) => {
    const next = persona.isDefault ? null : persona.id
    try {
      await setDefaultPersona(next)
      change((list) => list.map((p) => ({ ...p, isDefault: p.id === next })))
      notify(next ? t('notices.defaultSet', { name: persona.name }) : t('notices.defaultCleared'), { type: 'success' })
    } catch (error) {
      notify(apiErrorMessage(tCommon, error), { type: 'error' })
    }
  }

  const full = items.length >= PERSONA_LIMITS.perUser
  return (
    <div>
      <section className="mb-6 rounded-2xl border border-dashed border-zinc-700 p-4">
        <p className="text-sm text-zinc-300">{t('intro')}</p>
        <div className="mt-3 flex flex-wrap items-center gap-3">
          <button
            type="button"
            className="button-primary"
            onClick={() => setEditing('new')}
            disabled={load.kind !== 'ready' || full || editing === 'new'}
            data-testid="new-persona"
          >
            {t('new')}
          </button>
          {load.kind === 'ready' ? (
            <span className="text-xs tabular-nums text-zinc-400" data-testid="persona-count">
              {t('kept', { count: items.length, limit: PERSONA_LIMITS.perUser })}
            </span>
          ) : null}
        </div>
      </section>
      {editing === 'new' ? (
        <div className="mb-6">
          <PersonaForm onSubmit={create} onCancel={() => setEditing(null)} />
        </div>
      ) : null}
      {load.kind === 'loading' ? (
        <p role="status" className="py-10 text-center text-zinc-400">
          {t('list.loading')}
        </p>
      ) : load.kind === 'failed' ? (
        <div role="alert" className="py-10 text-center">
          <p className="text-rose-300">{t('list.loadFailed', { reason: load.reason })}</p>
          <button type="button" className="button-secondary mt-4" onClick={() => fetchList()}>
            {t('list.retry')}
          </button>
        </div>
      ) : items.length === 0 ? (
        <p className="py-6 text-center text-zinc-400">{t('list.empty')}</p>
      ) : (
        <ul className="grid gap-3" data-testid="my-personas">
          {items.map((persona) =>
            editing === persona.id ? (
              <li key={persona.id}>
                <PersonaForm
                  persona={persona}
                  onSubmit={(values) => update(persona, values)}
                  onCancel={() => setEditing(null)}
                />
              </li>
            ) : (
              <PersonaRow
                key={persona.id}
                persona={persona}
                onEdit={() => setEditing(persona.id)}
                onDelete={() => setDeleting(persona)}
                onToggleDefault={() => toggleDefault(persona)}
              />
            ),
          )}
        </ul>
      )}
      {deleting ? (
        <ConfirmDialog
          title={t('list.deleteTitle', { name: deleting.name })}
          text={t('list.confirmDelete')}
          cancelLabel={t('form.cancel')}
          confirmLabel={t('list.delete')}
          busyLabel={t('list.deleting')}
          danger
          confirmTestId="confirm-delete-persona"
          onConfirm={async () => {
            await deletePersona(deleting.id)
            change((list) => list.filter((p) => p.id !== deleting.id))
            notify(t('notices.deleted', { name: deleting.name }), { type: 'success' })
            setDeleting(null)
          }}
          describeError={(error) => apiErrorMessage(tCommon, error)}
          onClose={() => setDeleting(null)}
        />
      ) : null}
    </div>
  )
}

function PersonaRow({
  persona,
  onEdit,
  onDelete,
  onToggleDefault,
}: {
  persona: Persona
  onEdit: () => void
  onDelete: () => void
  onToggleDefault: () => void
}) {
  const { t } = useTranslation('personas')
  return (
    <li
      className="flex flex-wrap items-start gap-4 rounded-2xl border border-zinc-800 bg-zinc-900 p-4"
      data-testid="persona-row"
    >
      {persona.avatarUrl ? (
        <img
          src={imageVariantUrl(persona.avatarUrl, 'square-128') ?? persona.avatarUrl}
          alt=""
          width={56}
          height={56}
          className="size-14 shrink-0 rounded-full object-cover"
        />
      ) : (
        <span className="flex size-14 shrink-0 items-center justify-center rounded-full bg-zinc-800 text-zinc-400">
          <UserRound aria-hidden="true" className="size-7" />
        </span>
      )}
      <div className="min-w-0 flex-1">
        <h2 className="flex flex-wrap items-center gap-2 font-semibold">
          <span dir="auto" className="truncate">
            {persona.name}
          </span>
          {persona.isDefault ? (
            <span className="rounded-full bg-violet-500/20 px-2 py-0.5 text-xs font-medium text-violet-200">
              {t('list.default')}
            </span>
          ) : null}
        </h2>
        <p dir="auto" className="mt-1 line-clamp-3 whitespace-pre-line text-sm text-zinc-400">
          {persona.description || t('list.noDescription')}
        </p>
      </div>
      <div className="flex flex-wrap items-center gap-1">
        <button
          type="button"
          className="button-ghost text-sm"
          aria-pressed={persona.isDefault}
          onClick={onToggleDefault}
          data-testid="persona-default"
        >
          <Star aria-hidden="true" className={`size-4 ${persona.isDefault ? 'fill-violet-300 text-violet-300' : ''}`} />
          {t('list.makeDefault')}
        </button>
        <button
          type="button"
          className="icon-button"
          aria-label={t('list.editLabel', { name: persona.name })}
          title={t('list.editLabel', { name: persona.name })}
          onClick={onEdit}
        >
          <Pencil aria-hidden="true" className="size-4" />
        </button>
        <button
          type="button"
          className="icon-button"
          aria-label={t('list.deleteLabel', { name: persona.name })}
          title={t('list.deleteLabel', { name: persona.name })}
          onClick={onDelete}
        >
          <Trash2 aria-hidden="true" className="size-4" />
        </button>
      </div>
    </li>
  )
}
