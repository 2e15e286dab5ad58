import MarkdownIt from 'markdown-it'

/**
 * Markdown for text written by models and users: raw HTML is escaped (`html: false`), links are
 * only absolute http(s) and mailto URLs and open in a new tab without handing over the page. The
 * output is safe to set as HTML.
 */
const md = new MarkdownIt({ html: false, linkify: true, breaks: true })

// markdown-it's own check refuses only javascript:, vbscript:, file: and most data: URLs; any other
// scheme (tel:, intent:, ms-…:, a custom app's) and relative or protocol-relative links (`/logout`,
// `//evil.example`) would still become links. Only these three, parsed as a browser would.
const LINK_PROTOCOLS: ReadonlySet<string> = new Set(['http:', 'https:', 'mailto:'])
md.validateLink = (url: string) => {
  try {
    return LINK_PROTOCOLS.has(new URL(url.trim()).protocol)
  } catch {
    return false
  }
}

const defaultLinkOpen =
  md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options))
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  const token = tokens[idx]
  if (token) {
    token.attrSet('target', '_blank')
    token.attrSet('rel', 'noopener noreferrer nofollow ugc')
  }
  return defaultLinkOpen(tokens, idx, options, env, self)
}
// Images in chat would load from anywhere (tracking pixels) and the CSP blocks them anyway: show the alt text.
md.renderer.rules.image = (tokens, idx) => md.utils.escapeHtml(tokens[idx]?.content ?? '')

export function renderMarkdown(text: string): string {
  return md.render(text)
}
