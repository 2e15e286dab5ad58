import { Download } from 'lucide-react'
import { useEffect, useId, useRef, useState } from 'react'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { notify } from '#app/lib/notify.tsx'
import { CHAT_EXPORT_FORMATS, type ChatExportFormat } from '#contracts/chat-transfer.ts'
import { downloadChat } from '../transfer-api.ts'

/**
 * The chat header's download menu (ADR 051): "Export (SillyTavern)", the JSONL SillyTavern imports
 * with every swipe, and "Export (Markdown)" to read. A disclosure of two buttons: Escape or a
 * click elsewhere closes it, and focus goes back to the button that opened it.
 */
export function ChatExportMenu({ sessionId, disabled }: { sessionId: string; disabled: boolean }) {
  const { t } = useTranslation('chat')
  const [open, setOpen] = useState(false)
  const [busy, setBusy] = useState(false)
  const root = useRef<HTMLDivElement>(null)
  const toggle = useRef<HTMLButtonElement>(null)
  const listId = useId()

  useEffect(() => {
    if (!open) return
    const onPointer = (event: PointerEvent) => {
      if (!root.current?.contains(event.target as Node)) setOpen(false)
    }
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return
      setOpen(false)
      toggle.current?.focus()
    }
    document.addEventListener('pointerdown', onPointer)
    document.addEventListener('keydown', onKey)
    return () => {
      document.removeEventListener('pointerdown', onPointer)
      document.removeEventListener('keydown', onKey)
    }
  }, [open])

  const download = async (format: ChatExportFormat) => {
    setBusy(true)
    try {
      await downloadChat(sessionId, format)
      setOpen(false)
    } catch {
      notify(t('transfer.failed'), { type: 'error' })
    } finally {
      setBusy(false)
    }
  }

  return (
    <div ref={root} className="relative">
      <button
        ref={toggle}
        type="button"
        className="icon-button"
        aria-label={t('transfer.menu')}
        title={t('transfer.menu')}
        aria-expanded={open}
        aria-controls={listId}
        onClick={() => setOpen((value) => !value)}
        disabled={disabled}
        data-testid="chat-export-menu"
      >
        <Download aria-hidden="true" className="size-4" />
      </button>
      {open ? (
        <ul
          id={listId}
          className="absolute end-0 top-full z-20 mt-2 w-56 rounded-xl border border-zinc-700 bg-zinc-900 p-1 shadow-xl"
        >
          {CHAT_EXPORT_FORMATS.map((format) => (
            <li key={format}>
              <button
                type="button"
                className="w-full rounded-lg px-3 py-2 text-start text-sm text-zinc-100 hover:bg-zinc-800 focus-visible:bg-zinc-800 disabled:opacity-60"
                disabled={busy}
                onClick={() => download(format)}
                data-testid={`chat-export-${format}`}
              >
                {t(format === 'sillytavern' ? 'transfer.sillytavern' : 'transfer.markdown')}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  )
}
