import { PageMeta } from '#app/components/page-meta.tsx'
import { SignedInGate } from '#app/features/characters/components/signed-in-gate.tsx'
import { ChatRow } from '#app/features/chat/components/chat-row.tsx'
import { ChatSearch } from '#app/features/chat/components/chat-search.tsx'
import { useMyChats } from '#app/features/chat/my-chats.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { routeLocale } from '#app/lib/route-locale.ts'
import type { Locale } from '#contracts/locales.ts'
import type { Route } from './+types/chats.ts'

export const handle = { i18n: ['chat', 'characters-edit'] }

/** `/chats`: My Chats in full (ADR 048): search over every message, then the chats, pinned first. */
export default function Chats({ params }: Route.ComponentProps) {
  const { t: tCommon } = useTranslation()
  const locale = routeLocale(params)
  return (
    <div className="mx-auto max-w-3xl">
      <PageMeta title={tCommon('nav.myChats')} description={tCommon('nav.myChats')} />
      <meta name="robots" content="noindex" />
      <h1 className="mb-6 text-2xl font-bold sm:text-3xl">{tCommon('nav.myChats')}</h1>
      <SignedInGate>
        <ChatSearch locale={locale} />
        <ChatList locale={locale} />
      </SignedInGate>
    </div>
  )
}

function ChatList({ locale }: { locale: Locale }) {
  const { t: tCommon } = useTranslation()
  const { sessions, loaded, failed } = useMyChats()
  if (failed && sessions.length === 0) return <p className="mt-6 text-red-300">{tCommon('nav.sessionsFailed')}</p>
  if (!loaded && sessions.length === 0) return null
  if (sessions.length === 0) return <p className="mt-6 text-zinc-400">{tCommon('nav.noChatHistory')}</p>
  return (
    <ul className="mt-6 space-y-3" data-testid="chat-rows">
      {sessions.map((session) => (
        <ChatRow key={session.id} session={session} locale={locale} />
      ))}
    </ul>
  )
}
