import { Trash2 } from 'lucide-react'
import { useState } from 'react'
import { Dialog, DialogActions, DialogDescription, DialogTitle } from '#app/components/dialog.tsx'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { notify } from '#app/lib/notify.tsx'
import type { OwnList } from '../hooks/use-own-list.ts'

/** What a list of one's own things shows until it has items: loading, a failure with Retry, or its empty words. */
export function OwnListStatus({
  load,
  loading,
  failed,
  empty,
  onRetry,
}: {
  load: OwnList<unknown>
  loading: string
  failed: (reason: string) => string
  empty: string
  onRetry: () => void
}) {
  const { t } = useTranslation('characters-edit')
  if (load.kind === 'loading') {
    return (
      <p role="status" className="py-10 text-center text-zinc-400">
        {loading}
      </p>
    )
  }
  if (load.kind === 'failed') {
    return (
      <div role="alert" className="py-10 text-center">
        <p className="text-rose-300">{failed(load.reason)}</p>
        <button type="button" className="button-secondary mt-4" onClick={onRetry}>
          {t('mine.retry')}
        </button>
      </div>
    )
  }
  return <p className="rounded-2xl border border-zinc-800 p-10 text-center text-zinc-400">{empty}</p>
}

/** The Delete button of one item of the list. */
export function DeleteButton({ name, onClick }: { name: string; onClick: () => void }) {
  const { t } = useTranslation('characters-edit')
  return (
    <button
      type="button"
      className="button-ghost text-rose-300"
      aria-label={t('mine.deleteLabel', { name })}
      onClick={onClick}
    >
      <Trash2 aria-hidden="true" className="size-4" />
      {t('mine.delete')}
    </button>
  )
}

/** "Delete <name>?": `remove` on confirm, then `onDeleted`; a failure is notified and the dialog stays. */
export function ConfirmDelete({
  name,
  text,
  remove,
  testId,
  onClose,
  onDeleted,
}: {
  name: string
  text: string
  remove: () => Promise<unknown>
  testId: string
  onClose: () => void
  onDeleted: () => void
}) {
  const { t } = useTranslation('characters-edit')
  const { t: tCommon } = useTranslation()
  const [busy, setBusy] = useState(false)
  const confirm = async () => {
    setBusy(true)
    try {
      await remove()
      onDeleted()
    } catch (error) {
      notify(apiErrorMessage(tCommon, error), { type: 'error' })
      setBusy(false)
    }
  }
  return (
    <Dialog onClose={onClose}>
      <DialogTitle>{t('mine.confirmTitle', { name })}</DialogTitle>
      <DialogDescription className="mt-2 text-zinc-300">{text}</DialogDescription>
      <DialogActions>
        <button type="button" className="button-ghost" onClick={onClose}>
          {t('mine.cancel')}
        </button>
        <button
          type="button"
          className="button-primary bg-rose-700 hover:bg-rose-800"
          disabled={busy}
          onClick={confirm}
          data-testid={testId}
        >
          {t('mine.confirmDelete')}
        </button>
      </DialogActions>
    </Dialog>
  )
}
