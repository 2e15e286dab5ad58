import { FileUp } from 'lucide-react'
import { useId, useRef, useState } from 'react'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { notify } from '#app/lib/notify.tsx'
import type { ChatImportResult } from '#contracts/chat-transfer.ts'
import { refreshMyChats } from '../my-chats.ts'
import { importChat } from '../transfer-api.ts'
import { chatImportProblem } from '../transfer-problem.ts'

/**
 * "Import a SillyTavern chat" on a character's page (ADR 051): a `.jsonl` chat file picked here
 * becomes a new chat with this character; `onImported` opens it. A refused file is said under the
 * button, in the user's words.
 */
export function ImportChatButton({
  roleId,
  onImported,
}: {
  roleId: string
  onImported: (result: ChatImportResult) => void
}) {
  const { t } = useTranslation('chat')
  const { t: tCommon } = useTranslation()
  const input = useRef<HTMLInputElement>(null)
  const [busy, setBusy] = useState(false)
  const [problem, setProblem] = useState<string | null>(null)
  const hintId = useId()

  const pick = async (file: File | undefined) => {
    if (!file) return
    setBusy(true)
    setProblem(null)
    try {
      const result = await importChat(roleId, file)
      notify(t('transfer.imported'), { type: 'success' })
      if (result.leftOut > 0) notify(t('transfer.leftOut', { number: result.leftOut }))
      void refreshMyChats()
      onImported(result)
    } catch (failure) {
      setProblem(chatImportProblem(t, tCommon, failure))
    } finally {
      setBusy(false)
      if (input.current) input.current.value = ''
    }
  }

  return (
    <div className="flex flex-col items-start gap-1">
      <input
        ref={input}
        type="file"
        accept=".jsonl,application/jsonl,application/x-ndjson"
        className="sr-only"
        // The button below opens it: one control for assistive technology, not two.
        tabIndex={-1}
        aria-hidden="true"
        onChange={(event) => pick(event.target.files?.[0])}
        data-testid="import-chat-file"
      />
      <button
        type="button"
        className="button-ghost"
        disabled={busy}
        onClick={() => input.current?.click()}
        aria-describedby={hintId}
      >
        <FileUp aria-hidden="true" className="size-4" />
        {busy ? t('transfer.importing') : t('transfer.importChat')}
      </button>
      <p id={hintId} className="sr-only">
        {t('transfer.importHint')}
      </p>
      {problem ? (
        <p
          role="alert"
          className="rounded-lg bg-rose-950/60 p-3 text-sm text-rose-200"
          data-testid="import-chat-problem"
        >
          {problem}
        </p>
      ) : null}
    </div>
  )
}
