/**
 * A short plain text (meta description, a card's summary): emphasis marks dropped, the words kept.
 * Apart from markdown.ts so that cards on every listing do not load the markdown renderer
 * (first-load JavaScript budget, tests/e2e/budgets.test.ts).
 */
export function withoutEmphasis(text: string): string {
  return text.replace(/(\*{1,3}|_{1,3})(?=\S)([^*_\n]*?\S)\1/g, '$2')
}

/**
 * The start of a message, cut short (the chat list's preview): as `withoutEmphasis`, and a mark
 * whose other half the cut took away is dropped too.
 */
export function previewText(text: string): string {
  return withoutEmphasis(text).replace(/(?<=^|\s)(\*{1,3}|_{1,3})(?=\S)|(?<=\S)(\*{1,3}|_{1,3})(?=\s|$)/g, '')
}
