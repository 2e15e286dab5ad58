import { useEffect, useSyncExternalStore } from 'react'
import { api } from '#app/lib/http.ts'
import { getAccessToken, onTokensChange, useIsLoggedIn } from '#app/lib/session.ts'
import { splitLocalePath } from '#contracts/locales.ts'

export type ChatSummary = {
  id: string
  role: { id: string; name: string; avatar: string | null } | null
  lastMessage: string | null
  /** The user's name for the chat; null: the character's (ADR 048). */
  title: string | null
  pinned: boolean
  updatedAt: string
  /** A scene's members by name (ADR 052); absent for a chat of one character. */
  members?: string[]
}

type State = { sessions: ChatSummary[]; loaded: boolean; failed: boolean }

/**
 * My Chats (spec section 4): the signed-in user's sessions, pinned first, then newest first. Fetched
 * when logged in, emptied on logout and fetched again on login. A new chat holding only the greeting
 * is not history (ADR 048): it joins the list with its first reply.
 */
let state: State = { sessions: [], loaded: false, failed: false }
let inFlight: Promise<void> | null = null
const listeners = new Set<() => void>()
const set = (next: State) => {
  state = next
  for (const listener of listeners) listener()
}

onTokensChange(() => set({ sessions: [], loaded: false, failed: false }))

export function refreshMyChats(): Promise<void> {
  if (!getAccessToken()) return Promise.resolve()
  // The page's language: characters named as their pages name them (ADR 039).
  const { locale } = splitLocalePath(window.location.pathname)
  inFlight ??= api<{ sessions: ChatSummary[] }>('/sessions', { method: 'POST', body: { locale } })
    .then(
      (data) => set({ sessions: data.sessions, loaded: true, failed: false }),
      () => set({ ...state, loaded: true, failed: true }),
    )
    .finally(() => {
      inFlight = null
    })
  return inFlight
}

/** The server's order: pinned first, then the most recently active. */
const inOrder = (sessions: ChatSummary[]) =>
  [...sessions].sort((a, b) => Number(b.pinned) - Number(a.pinned) || b.updatedAt.localeCompare(a.updatedAt))

/** Moves a session up with its newest message, after a reply; a chat not listed yet (its first reply) is fetched. */
export function chatUpdated(id: string, lastMessage: string) {
  const found = state.sessions.find((s) => s.id === id)
  if (!found) {
    void refreshMyChats()
    return
  }
  const updated = { ...found, lastMessage, updatedAt: new Date().toISOString() }
  set({ ...state, sessions: inOrder([updated, ...state.sessions.filter((s) => s.id !== id)]) })
}

/** A chat renamed or pinned (`changes` as the server answered). */
export function chatTidied(id: string, changes: Pick<ChatSummary, 'title' | 'pinned'>) {
  set({ ...state, sessions: inOrder(state.sessions.map((s) => (s.id === id ? { ...s, ...changes } : s))) })
}

export function chatDeleted(id: string) {
  set({ ...state, sessions: state.sessions.filter((s) => s.id !== id) })
}

export function useMyChats(): State {
  const loggedIn = useIsLoggedIn()
  const value = useSyncExternalStore(
    (listener) => {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    () => state,
    () => state,
  )
  useEffect(() => {
    if (loggedIn && !state.loaded) void refreshMyChats()
  }, [loggedIn])
  return value
}
