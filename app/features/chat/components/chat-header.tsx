import { Brain, SlidersHorizontal, Trash2 } from 'lucide-react'
import type { ReactNode } from 'react'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import type { ContextUsage } from '#contracts/chat.ts'
import { imageVariantUrl } from '#contracts/images.ts'

type Props = {
  /** The character's name, or null while the chat loads. */
  name: string | null
  avatar: string | null
  busy: boolean
  context: ContextUsage | null | undefined
  canOpenMemory: boolean
  onOpenMemory: () => void
  /** The chat's temperature and reply length (chat-settings-dialog.tsx). */
  onOpenSettings: () => void
  onDelete: () => void
  /** Who the user is in this chat (the personas picker, composed by the route). */
  persona?: ReactNode
  /** The download menu (chat-export-menu.tsx), before Delete. */
  exportMenu?: ReactNode
}

/** The chat's top line: who, whether a reply is being written, how full the context is, memory and delete. */
export function ChatHeader({
  name,
  avatar,
  busy,
  context,
  canOpenMemory,
  onOpenMemory,
  onOpenSettings,
  onDelete,
  persona,
  exportMenu,
}: Props) {
  const { t } = useTranslation('chat')
  return (
    <header className="flex items-center gap-3 border-b border-zinc-800 pb-3">
      <img
        src={imageVariantUrl(avatar, 'square-128') ?? '/default-avatar.svg'}
        alt=""
        width={44}
        height={44}
        className="size-11 rounded-full object-cover"
      />
      <div className="min-w-0 flex-1">
        <h1 dir="auto" className="truncate text-lg font-semibold text-zinc-50">
          {name ?? t('loading')}
        </h1>
        <p className="flex items-center gap-1.5 text-xs text-zinc-400" data-testid="chat-status">
          <span aria-hidden="true" className={`size-2 rounded-full ${busy ? 'bg-amber-400' : 'bg-emerald-400'}`} />
          {busy ? t('status.typing') : t('status.online')}
        </p>
      </div>
      {context ? (
        <div className="hidden w-40 sm:block" title={context.trimmed ? t('context.trimmed') : undefined}>
          <label htmlFor="context-gauge" className="block text-xs text-zinc-400">
            {t('context.label')}
          </label>
          <progress
            id="context-gauge"
            className="context-gauge h-1.5 w-full"
            max={context.budgetTokens}
            value={Math.min(context.usedTokens, context.budgetTokens)}
          />
          <span className="block text-xs tabular-nums text-zinc-400">
            {t('context.value', { used: context.usedTokens, count: context.budgetTokens })}
          </span>
        </div>
      ) : null}
      {persona}
      <button type="button" className="button-ghost" onClick={onOpenMemory} disabled={!canOpenMemory}>
        <Brain aria-hidden="true" className="size-4" />
        {t('memory.open')}
      </button>
      <button
        type="button"
        className="icon-button"
        aria-label={t('settings.open')}
        title={t('settings.open')}
        onClick={onOpenSettings}
        disabled={!canOpenMemory}
        data-testid="open-chat-settings"
      >
        <SlidersHorizontal aria-hidden="true" className="size-4" />
      </button>
      {exportMenu}
      <button
        type="button"
        className="icon-button"
        aria-label={t('deleteChat')}
        title={t('deleteChat')}
        onClick={onDelete}
      >
        <Trash2 aria-hidden="true" className="size-4" />
      </button>
    </header>
  )
}
