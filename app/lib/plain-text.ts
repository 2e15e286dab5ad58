/**
 * A short plain text (meta description, a card's summary): emphasis marks dropped, the words kept.
 * Apart from markdown.ts so that cards on every listing do not load the markdown renderer
 * (first-load JavaScript budget, tests/e2e/budgets.test.ts).
 */
export function withoutEmphasis(text: string): string {
  return text.replace(/(\*{1,3}|_{1,3})(?=\S)([^*_\n]*?\S)\1/g, '$2')
}
