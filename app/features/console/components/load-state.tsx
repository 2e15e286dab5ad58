/**
 * The blocks every console page shows around its data: the problem with "Try again", "Loading…"
 * and the pager of a list. Words come from the caller's namespace, so each page keeps its own.
 */

/** A failed load in the user's words, with the button that loads again; nothing without a problem. */
export function ProblemRetry({
  problem,
  retryLabel,
  onRetry,
}: {
  problem: string | null
  retryLabel: string
  onRetry: () => void
}) {
  if (!problem) return null
  return (
    <div className="mb-4">
      <p role="alert" className="text-rose-300">
        {problem}
      </p>
      <button type="button" className="button-secondary mt-3" onClick={onRetry}>
        {retryLabel}
      </button>
    </div>
  )
}

/** "Loading…" while a page or a part of it waits for its data. */
export function Loading({ label }: { label: string }) {
  return (
    <p role="status" className="py-6 text-zinc-400">
      {label}
    </p>
  )
}

export type PagerWords = { label: string; previous: string; next: string; current: string }

/** Previous, "Page n" (the current page) and Next under a console list. */
export function Pager({
  words,
  page,
  hasMore,
  onPage,
}: {
  words: PagerWords
  page: number
  hasMore: boolean
  onPage: (page: number) => void
}) {
  return (
    <nav aria-label={words.label} className="mt-4 flex flex-wrap items-center gap-3">
      <button type="button" className="button-secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        {words.previous}
      </button>
      <span className="text-sm text-zinc-400" aria-current="page">
        {words.current}
      </span>
      <button type="button" className="button-secondary" disabled={!hasMore} onClick={() => onPage(page + 1)}>
        {words.next}
      </button>
    </nav>
  )
}
