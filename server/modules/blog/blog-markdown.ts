import MarkdownIt, { type StateCore, type Token } from 'markdown-it'
import type { BlogTocEntry } from '#contracts/blog.ts'
import { DEFAULT_LOCALE, type Locale, localizePath } from '#contracts/locales.ts'

/**
 * Articles are written by people we trust, but their markdown is still rendered as if it were not:
 * raw HTML is escaped (`html: false`), links are only http(s), mailto or paths of this site, and
 * images only files of the article's own folder (the page's CSP allows no other images anyway).
 */
const md = new MarkdownIt({ html: false, linkify: true, typographer: false })

const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:/i
const SAFE_SCHEME = /^(?:https?|mailto):/i
md.validateLink = (url: string) => {
  const trimmed = url.trim()
  return HAS_SCHEME.test(trimmed) ? SAFE_SCHEME.test(trimmed) : true
}

/** Ids the page around an article already uses; a heading never takes one of them. */
const RESERVED_IDS = [
  'main',
  'sidebar',
  'footer-about',
  'footer-contact',
  'my-chats-title',
  'blog-toc-title',
  'blog-related-title',
]

export type ArticleEnv = {
  /** The language the markdown is written in: its site links get that locale's prefix. */
  locale: Locale
  /** URL of each file of the article's folder (`diagram.svg` → `/blog/<slug>/diagram.svg?v=...`). */
  assetUrl: (file: string) => string | undefined
  /** Problems found while rendering (an image that is not in the folder, ...); the loader refuses them. */
  problems: string[]
}

export type RenderedArticle = { html: string; toc: BlogTocEntry[]; words: number; readingMinutes: number }

/** A heading's id: its words, lowercased, joined by dashes (letters of any script are kept). */
export function slugifyHeading(text: string): string {
  const slug = text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
  return [...slug].slice(0, 80).join('').replace(/-+$/, '') || 'section'
}

function inlineText(token: Token | undefined): string {
  if (!token?.children) return token?.content ?? ''
  return token.children
    .filter((child) => child.type === 'text' || child.type === 'code_inline')
    .map((child) => child.content)
    .join('')
}

/**
 * Headings start at h2 (the page's title is the h1), get unique ids, and h2/h3 make the table of
 * contents.
 */
function headingsRule(state: StateCore) {
  const { tokens } = state
  const env = state.env as ArticleEnv & { toc?: BlogTocEntry[] }
  const levels = tokens.filter((t) => t.type === 'heading_open').map((t) => Number(t.tag.slice(1)))
  const shift = levels.length > 0 ? Math.max(0, 2 - Math.min(...levels)) : 0
  const used = new Set(RESERVED_IDS)
  const toc: BlogTocEntry[] = []
  for (let i = 0; i < tokens.length; i++) {
    const open = tokens[i]
    if (!open || (open.type !== 'heading_open' && open.type !== 'heading_close')) continue
    const level = Math.min(6, Number(open.tag.slice(1)) + shift)
    open.tag = `h${level}`
    if (open.type === 'heading_close') continue
    const text = inlineText(tokens[i + 1]).trim()
    const base = slugifyHeading(text)
    let id = base
    for (let n = 2; used.has(id); n++) id = `${base}-${n}`
    used.add(id)
    open.attrSet('id', id)
    if (level <= 3) toc.push({ id, text, level })
  }
  env.toc = toc
}
md.core.ruler.push('article_headings', headingsRule)

md.renderer.rules.link_open = (tokens, idx, options, rawEnv, self) => {
  const env = rawEnv as ArticleEnv
  const token = tokens[idx]
  const href = String(token?.attrGet('href') ?? '')
  if (token) {
    if (/^https?:/i.test(href) || href.startsWith('//')) token.attrSet('rel', 'noopener noreferrer')
    else if (href.startsWith('/')) token.attrSet('href', localizePath(env.locale ?? DEFAULT_LOCALE, href))
    else if (!href.startsWith('#') && !/^mailto:/i.test(href)) {
      const url = env.assetUrl(href.replace(/^\.\//, ''))
      if (url) token.attrSet('href', url)
      else env.problems.push(`link to "${href}": not a file of the article's folder`)
    }
  }
  return self.renderToken(tokens, idx, options)
}

md.renderer.rules.image = (tokens, idx, options, rawEnv, self) => {
  const env = rawEnv as ArticleEnv
  const token = tokens[idx]
  if (!token) return ''
  const src = String(token.attrGet('src') ?? '')
  const url = HAS_SCHEME.test(src) || src.startsWith('/') ? undefined : env.assetUrl(src.replace(/^\.\//, ''))
  if (!url) env.problems.push(`image "${src}": images must be files of the article's folder`)
  token.attrSet('src', url ?? '')
  token.attrSet('loading', 'lazy')
  token.attrSet('decoding', 'async')
  // The alt text comes from the image's description in the markdown (`![alt](file)`).
  token.attrSet('alt', self.renderInlineAsText(token.children ?? [], options, env))
  return self.renderToken(tokens, idx, options)
}

// Wide tables scroll inside their own box instead of widening the page on a phone.
md.renderer.rules.table_open = () => '<div class="table-scroll" tabindex="0"><table>\n'
md.renderer.rules.table_close = () => '</table></div>\n'

/** Words of space-separated scripts, plus characters of scripts written without spaces. */
function countReading(tokens: Token[]): { words: number; characters: number } {
  let words = 0
  let characters = 0
  const visit = (list: Token[]) => {
    for (const token of list) {
      if (token.children) visit(token.children)
      else if (token.type === 'text' || token.type === 'code_inline' || token.type === 'fence') {
        const unspaced = token.content.match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/gu)
        characters += unspaced?.length ?? 0
        words +=
          token.content
            .replace(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/gu, ' ')
            .match(/[\p{L}\p{N}]+/gu)?.length ?? 0
      }
    }
  }
  visit(tokens)
  return { words, characters }
}

/** About 230 words a minute, or 500 characters of Chinese, Japanese or Thai; at least one minute. */
export function readingMinutes(words: number, characters: number): number {
  return Math.max(1, Math.round(words / 230 + characters / 500))
}

export function renderArticle(markdown: string, env: ArticleEnv): RenderedArticle {
  const state: ArticleEnv & { toc?: BlogTocEntry[] } = env
  const tokens = md.parse(markdown, state)
  const html = md.renderer.render(tokens, md.options, state)
  const { words, characters } = countReading(tokens)
  return { html, toc: state.toc ?? [], words, readingMinutes: readingMinutes(words, characters) }
}
