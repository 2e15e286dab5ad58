import { useId, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Dialog, DialogActions, DialogDescription, DialogTitle } from '#app/components/dialog.tsx'
import { updateMemory } from '#app/features/chat/api.ts'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { notify } from '#app/lib/notify.tsx'
import { type ChatSessionDetail, MEMORY_NOTE_MAX_LENGTH } from '#contracts/chat.ts'

type Memory = ChatSessionDetail['memory']

/** The running memory note of a chat: what the model summarised, readable and editable. */
export function MemoryPanel({
  sessionId,
  memory,
  onSaved,
  onClose,
}: {
  sessionId: string
  memory: Memory
  onSaved: (memory: Memory) => void
  onClose: () => void
}) {
  const { t } = useTranslation('chat')
  const { t: tCommon } = useTranslation()
  const [note, setNote] = useState(memory.note)
  const [busy, setBusy] = useState(false)
  const id = useId()

  const save = async () => {
    setBusy(true)
    try {
      onSaved(await updateMemory(sessionId, note))
      notify(t('memory.saved'), { type: 'success' })
      onClose()
    } catch (error) {
      notify(apiErrorMessage(tCommon, error), { type: 'error' })
    } finally {
      setBusy(false)
    }
  }

  return (
    <Dialog onClose={onClose} size="xl">
      <DialogTitle>{t('memory.title')}</DialogTitle>
      <DialogDescription className="mt-2 text-sm text-zinc-300">{t('memory.explain')}</DialogDescription>
      {memory.note === '' ? <p className="mt-2 text-sm text-zinc-400">{t('memory.empty')}</p> : null}
      <label htmlFor={`${id}-note`} className="mt-4 block text-sm font-medium">
        {t('memory.label')}
      </label>
      <textarea
        id={`${id}-note`}
        value={note}
        maxLength={MEMORY_NOTE_MAX_LENGTH}
        onChange={(event) => setNote(event.target.value)}
        rows={10}
        className="mt-1 w-full rounded-xl border border-zinc-700 bg-zinc-950 p-3 text-sm text-zinc-100"
      />
      <DialogActions className="mt-4 flex">
        <button type="button" className="button-ghost" onClick={onClose}>
          {t('memory.close')}
        </button>
        <button type="button" className="button-primary px-4 py-2" onClick={save} disabled={busy}>
          {t('memory.save')}
        </button>
      </DialogActions>
    </Dialog>
  )
}
