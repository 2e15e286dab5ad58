import { useEffect, useSyncExternalStore } from 'react'
import { api } from '#app/lib/http.ts'
import { getAccessToken, onTokensChange, useIsLoggedIn } from '#app/lib/session.ts'

export type ChatSummary = {
  id: string
  role: { id: string; name: string; avatar: string | null } | null
  lastMessage: string | null
  updatedAt: string
}

type State = { sessions: ChatSummary[]; loaded: boolean; failed: boolean }

/**
 * My Chats (spec section 4): the signed-in user's sessions, newest first. Fetched when logged in,
 * emptied on logout and fetched again on login. `chatCreated` puts a new session at the top (as
 * 'New Chat' until its details load) unless it is already listed.
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
  inFlight ??= api<{ sessions: ChatSummary[] }>('/sessions', { method: 'POST' })
    .then(
      (data) => set({ sessions: data.sessions, loaded: true, failed: false }),
      () => set({ ...state, loaded: true, failed: true }),
    )
    .finally(() => {
      inFlight = null
    })
  return inFlight
}

export function chatCreated(session: Pick<ChatSummary, 'id'> & Partial<ChatSummary>) {
  if (state.sessions.some((s) => s.id === session.id)) return
  const entry: ChatSummary = {
    role: null,
    lastMessage: null,
    updatedAt: new Date().toISOString(),
    ...session,
  }
  set({ ...state, sessions: [entry, ...state.sessions] })
}

/** Moves a session to the top with its newest message, after a reply. */
export function chatUpdated(id: string, lastMessage: string) {
  const found = state.sessions.find((s) => s.id === id)
  if (!found) return
  const updated = { ...found, lastMessage, updatedAt: new Date().toISOString() }
  set({ ...state, sessions: [updated, ...state.sessions.filter((s) => s.id !== id)] })
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
