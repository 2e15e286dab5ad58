import MarkdownIt from 'markdown-it'

/**
 * Markdown for text written by models and users: raw HTML is escaped (`html: false`), links are
 * only http(s)/mailto (markdown-it refuses javascript: and data: by default) and open in a new tab
 * without handing over the page. The output is safe to set as HTML.
 */
const md = new MarkdownIt({ html: false, linkify: true, breaks: true })

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
