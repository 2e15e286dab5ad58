import { useEffect, useRef, useState } from 'react'
import type { ChatMessage } from '#contracts/chat.ts'

/** Pages of earlier messages loaded at most while looking for the message a search result links to. */
const MAX_PAGES = 40
const HIGHLIGHT_MS = 4000

/**
 * A search result opens its chat at the message it found (`?message=<id>`): earlier pages are
 * loaded until it is there, then it is scrolled to and outlined for a moment. `onMissing` when the
 * chat no longer holds it.
 */
export function useJumpToMessage(options: {
  messageId: number | null
  loaded: boolean
  messages: ChatMessage[]
  hasEarlier: boolean
  loadEarlier: () => Promise<void>
  onMissing: () => void
}) {
  const { messageId, loaded, messages, hasEarlier, loadEarlier, onMissing } = options
  const state = useRef({ pages: 0, done: false, loading: false })
  // Bumped when a page arrived: a render, so the look goes on with the page in the list.
  const [, setPagesLoaded] = useState(0)
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new target starts a new search.
  useEffect(() => {
    state.current = { pages: 0, done: false, loading: false }
  }, [messageId])
  useEffect(() => {
    const search = state.current
    if (messageId === null || !loaded || search.done || search.loading) return
    if (messages.some((m) => m.id === messageId)) {
      search.done = true
      // After the list has painted (and after the chat's own scroll to its newest message). Not
      // cancelled by the next render (another part of the page may render the list again at once,
      // and the search is done): the element is looked up when the time comes.
      setTimeout(() => {
        const element = document.getElementById(`message-${messageId}`)
        if (!element) return
        element.scrollIntoView({ block: 'center' })
        element.dataset.found = 'true'
        setTimeout(() => delete element.dataset.found, HIGHLIGHT_MS)
      }, 50)
      return
    }
    if (!hasEarlier || search.pages >= MAX_PAGES) {
      search.done = true
      onMissing()
      return
    }
    search.loading = true
    search.pages += 1
    loadEarlier().then(
      () => {
        search.loading = false
        setPagesLoaded((n) => n + 1)
      },
      () => {
        search.done = true
      },
    )
  }, [messageId, loaded, messages, hasEarlier, loadEarlier, onMissing])
}
