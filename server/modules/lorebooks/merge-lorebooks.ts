import type { Lorebook } from '#contracts/characters.ts'
import { DEFAULT_SCAN_DEPTH } from '#server/modules/chat/lorebook.ts'

/**
 * What the chat reads for a character (ADR 043): the card's own lorebook, then the enabled entries
 * of the books attached to it, in their attached order, as one `Lorebook` (the prompt's input).
 *
 * The books' settings become one: the card's own name and recursive scanning (else the first
 * attached book's); the deepest `scanDepth` any of them asks for (the chat's default for one that
 * asks none), so no book's keys are looked for in fewer messages than it wants; a `tokenBudget` only when every book has one (their sum), since
 * a book without a budget leaves its entries to the prompt's own cap.
 */
export function mergeLorebooks(own: Lorebook | null | undefined, attached: readonly Lorebook[]): Lorebook | null {
  if (attached.length === 0) return own ?? null
  const books = own ? [own, ...attached] : [...attached]
  const first = books[0] as Lorebook
  const merged: Lorebook = {
    extensions: first.extensions,
    entries: [...(own?.entries ?? []), ...attached.flatMap((book) => book.entries.filter((entry) => entry.enabled))],
  }
  if (first.name !== undefined) merged.name = first.name
  if (first.recursiveScanning !== undefined) merged.recursiveScanning = first.recursiveScanning
  const depths = books.map((book) => (book.scanDepth && book.scanDepth > 0 ? book.scanDepth : DEFAULT_SCAN_DEPTH))
  if (books.some((book) => book.scanDepth !== undefined)) merged.scanDepth = Math.max(...depths)
  const budgets = books.map((book) => book.tokenBudget)
  if (budgets.every((budget): budget is number => budget !== undefined && budget > 0)) {
    merged.tokenBudget = budgets.reduce((sum, budget) => sum + budget, 0)
  }
  return merged
}
