import { useEffect, useId, useState } from 'react'
import { Dialog, DialogActions, DialogDescription, DialogTitle } from '#app/components/dialog.tsx'
import { updateMemory } from '#app/features/chat/api.ts'
import { getMemory, retrySummary } from '#app/features/chat/memory-api.ts'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { formatDateTime } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { notify } from '#app/lib/notify.tsx'
import { type ChatSessionDetail, MEMORY_NOTE_MAX_LENGTH } from '#contracts/chat.ts'
import type { Locale } from '#contracts/locales.ts'

type Memory = ChatSessionDetail['memory']
type Problem = NonNullable<Memory['summaryProblem']>

/**
 * Summaries that keep failing (ADR 034): since when and why, in plain words, and "Try again", which
 * runs the summary now.
 */
function SummaryProblem({ locale, sessionId, problem }: { locale: Locale; sessionId: string; problem: Problem }) {
  const { t } = useTranslation('chat')
  const { t: tCommon } = useTranslation()
  const [busy, setBusy] = useState(false)
  const retry = async () => {
    setBusy(true)
    try {
      const { queued } = await retrySummary(sessionId)
      notify(t(queued ? 'memory.retryQueued' : 'memory.retryNotQueued'), { type: queued ? 'success' : 'info' })
    } catch (error) {
      notify(apiErrorMessage(tCommon, error), { type: 'error' })
    } finally {
      setBusy(false)
    }
  }
  return (
    <div
      role="status"
      data-testid="memory-summary-problem"
      className="mt-3 rounded-xl border border-amber-600/60 bg-amber-950/40 p-3 text-sm text-amber-100"
    >
      <p>
        {t('memory.failing', {
          date: formatDateTime(locale, problem.lastFailedAt),
          reason: t(`memory.failure.${problem.code}`),
        })}
      </p>
      {problem.gaveUp ? <p className="mt-1 text-amber-200/80">{t('memory.gaveUp')}</p> : null}
      <button type="button" className="button-ghost mt-2" onClick={retry} disabled={busy}>
        {t('memory.retry')}
      </button>
    </div>
  )
}

/** The running memory note of a chat: what the model summarised, readable and editable. */
export function MemoryPanel({
  locale,
  sessionId,
  memory,
  onSaved,
  onClose,
}: {
  locale: Locale
  sessionId: string
  memory: Memory
  onSaved: (memory: Memory) => void
  onClose: () => void
}) {
  const { t } = useTranslation('chat')
  const { t: tCommon } = useTranslation()
  const [note, setNote] = useState(memory.note)
  const [busy, setBusy] = useState(false)
  const [problem, setProblem] = useState(memory.summaryProblem)
  const id = useId()

  // The session was loaded earlier: whether summaries fail is asked again when the panel opens.
  useEffect(() => {
    let live = true
    getMemory(sessionId).then(
      (fresh) => live && setProblem(fresh.summaryProblem),
      () => {},
    )
    return () => {
      live = false
    }
  }, [sessionId])

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
      {memory.note === '' && !problem ? <p className="mt-2 text-sm text-zinc-400">{t('memory.empty')}</p> : null}
      {problem ? <SummaryProblem locale={locale} sessionId={sessionId} problem={problem} /> : null}
      <label htmlFor={`${id}-note`} className="mt-4 block text-sm font-medium">
        {t('memory.label')}
      </label>
      <textarea
        id={`${id}-note`}
        dir="auto"
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
