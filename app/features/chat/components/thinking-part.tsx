import { Brain } from 'lucide-react'
import { useTranslation } from '#app/lib/i18n-react.tsx'

/**
 * The model's thinking (reasoning events) above its reply: collapsed, muted, opened on demand.
 * It is never stored, so it shows only while the reply streams and, for replies written in this
 * page view, until the page is left. The words are not announced as they come (`aria-live="off"`
 * inside the conversation's polite live region); the summary changing once is.
 */
export function ThinkingPart({ text, active }: { text: string; active: boolean }) {
  const { t } = useTranslation('chat')
  return (
    <details className="group mt-1 max-w-full text-sm text-zinc-400" data-testid="thinking">
      <summary className="inline-flex cursor-pointer select-none items-center gap-1.5 rounded-lg px-1 py-0.5 hover:text-zinc-200">
        <Brain aria-hidden="true" className={`size-4 ${active ? 'animate-pulse text-violet-300' : ''}`} />
        {active ? t('thinking.active') : t('thinking.done')}
      </summary>
      <div
        dir="auto"
        aria-live="off"
        className="mt-1 max-h-64 overflow-y-auto whitespace-pre-wrap break-words border-s-2 border-zinc-700 ps-3 text-zinc-400 italic"
      >
        {text}
      </div>
    </details>
  )
}
