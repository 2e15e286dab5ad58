/**
 * What markdown-it needs of the `entities` package, for the browser build only (`vite.config.ts`,
 * `browserEntities`, ADR 071): a named character reference (`&copy;`) decoded by the browser's own
 * HTML parser instead of `entities`' table of every HTML5 name (16.5 kB gzip of every page that
 * shows markdown). The server keeps `entities`; both follow the HTML standard's list, so a text
 * renders alike on both sides.
 */

let parser: HTMLTextAreaElement | undefined

/**
 * `&name;` decoded, or returned as it came when `name` is no character reference: "strict", as
 * `entities`' function of this name, so `&notit;` is not read as `&not` followed by `it;`.
 */
export function decodeHTMLStrict(reference: string): string {
  if (!/^&[a-zA-Z][a-zA-Z0-9]*;$/.test(reference)) return reference
  // A textarea's content is parsed as text: character references are decoded, nothing else is.
  parser ??= document.createElement('textarea')
  parser.innerHTML = reference
  const decoded = parser.value
  // A name the parser did not take whole leaves its semicolon: no reference by that name.
  if (decoded.endsWith(';') && reference !== '&semi;') return reference
  return decoded
}
