import { GitBranch } from 'lucide-react'
import { LocalizedLink } from '#app/components/localized-link.tsx'
import { formatDateTime } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import type { ChatBranchLinks } from '#contracts/chat-branches.ts'
import type { Locale } from '#contracts/locales.ts'

/**
 * Under the chat's header: "Branched from …", a link to the chat this one was branched from, and
 * this chat's own branches, folded. Nothing for a chat with neither.
 */
export function BranchLinks({ links, locale }: { links: ChatBranchLinks | null; locale: Locale }) {
  const { t } = useTranslation('chat')
  if (!links || (!links.parent && links.branches.length === 0)) return null
  const { parent, branches } = links
  return (
    <nav
      aria-label={t('branches.label')}
      className="flex flex-wrap items-start gap-x-6 gap-y-1 border-b border-zinc-800 py-2 text-sm text-zinc-400"
    >
      {parent ? (
        <LocalizedLink
          to={`/chat/${parent.sessionId}`}
          className="inline-flex items-center gap-1.5 text-violet-300 hover:text-violet-200"
          data-testid="branched-from"
        >
          <GitBranch aria-hidden="true" className="size-4 shrink-0" />
          {t('branches.branchedFrom', { date: formatDateTime(locale, parent.createdAt) })}
        </LocalizedLink>
      ) : null}
      {branches.length > 0 ? (
        <details className="min-w-0" data-testid="chat-branches">
          <summary className="inline-flex cursor-pointer items-center gap-1.5 hover:text-zinc-200">
            <GitBranch aria-hidden="true" className="size-4 shrink-0" />
            {t('branches.list', { n: branches.length })}
          </summary>
          <ul className="mt-1 space-y-1 ps-6">
            {branches.map((branch) => (
              <li key={branch.sessionId}>
                <LocalizedLink
                  to={`/chat/${branch.sessionId}`}
                  className="flex min-w-0 gap-2 text-zinc-300 hover:text-violet-200"
                >
                  <span className="shrink-0 tabular-nums text-zinc-400">
                    {formatDateTime(locale, branch.createdAt)}
                  </span>
                  <span dir="auto" className="truncate">
                    {branch.lastMessage ?? t('branches.empty')}
                  </span>
                </LocalizedLink>
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </nav>
  )
}
