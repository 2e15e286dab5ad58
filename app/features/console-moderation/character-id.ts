/**
 * A typed character id, or the address of its page (`…/characters/<id>`, any locale prefix), as
 * the id; null when nothing usable was typed.
 */
export function characterIdFrom(text: string): string | null {
  const trimmed = text.trim()
  const fromPage = /\/characters\/([^/?#\s]+)/.exec(trimmed)?.[1]
  const id = fromPage ?? trimmed
  return /^[\w-]{1,40}$/.test(id) ? id : null
}
