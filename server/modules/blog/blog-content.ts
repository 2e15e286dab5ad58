import { createHash } from 'node:crypto'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import matter from 'gray-matter'
import { z } from 'zod'
import { BLOG_SLUG_MAX, BLOG_SLUG_PATTERN, type BlogCover, type BlogTocEntry } from '#contracts/blog.ts'
import { DEFAULT_LOCALE, isLocale, type Locale } from '#contracts/locales.ts'
import { ConfigError } from '#server/config.ts'
import { renderArticle } from './blog-markdown.ts'

/** `content/blog`: one folder per article. */
export const BLOG_DIR = path.resolve(import.meta.dirname, '..', '..', '..', 'content', 'blog')

/** Files of an article's folder that may be shown: its cover and the images of its text. */
const ASSET_TYPES: Record<string, string> = {
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.gif': 'image/gif',
}
/** Covers must say their size (for width and height on the page and in social cards). */
const COVER_EXTENSIONS = ['.svg', '.png']

const isoDate = z
  .union([z.date(), z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be YYYY-MM-DD')])
  .transform((value) => (typeof value === 'string' ? value : value.toISOString().slice(0, 10)))
  .refine((value) => !Number.isNaN(Date.parse(value)), 'not a date')

/** The front matter of `content/blog/<slug>/<locale>.md`. */
export const frontMatterSchema = z.object({
  title: z.string().trim().min(1).max(200),
  description: z.string().trim().min(1).max(320),
  date: isoDate,
  /** Last substantial change, when there was one. */
  updated: isoDate.optional(),
  author: z.string().trim().min(1).max(100),
  tags: z.array(z.string().trim().min(1).max(40)).max(20).default([]),
  /** A file of the article's folder: `cover.svg`, `./cover.svg` or `/blog/<slug>/cover.svg`. */
  cover: z.string().trim().min(1),
  coverAlt: z.string().trim().min(1).max(300),
})

export type BlogAsset = { file: string; url: string; contentType: string; body: Buffer }

/** One article in one language, rendered. */
export type ArticleText = {
  locale: Locale
  title: string
  description: string
  author: string
  cover: BlogCover
  html: string
  toc: BlogTocEntry[]
  readingMinutes: number
}

export type LoadedArticle = {
  slug: string
  /** From the English file, which every article has: the date orders the list. */
  date: string
  updated: string | null
  /** Lowercased; related characters are those carrying one of these tags. */
  tags: string[]
  texts: Map<Locale, ArticleText>
  assets: Map<string, BlogAsset>
}

/** Every article, newest first. */
export type BlogContent = { articles: LoadedArticle[] }

/** Articles that cannot be published as they are; `problems` name the file and field of each. */
export class BlogContentError extends ConfigError {
  constructor(problems: string[]) {
    super(problems)
    this.name = 'BlogContentError'
  }
}

const hashOf = (body: Buffer) => createHash('sha256').update(body).digest('hex').slice(0, 12)

/**
 * Reads and renders every article of `dir` (`<slug>/<locale>.md` plus images) once, at start. Any
 * problem (bad front matter, a missing English text, an image that is not there) stops the start
 * with every problem listed, so a broken article never reaches readers.
 */
export function loadBlogContent(dir: string): BlogContent {
  const problems: string[] = []
  const articles: LoadedArticle[] = []
  let entries: string[] = []
  try {
    entries = readdirSync(dir).filter((name) => statSync(path.join(dir, name)).isDirectory())
  } catch {
    // No blog folder: an empty blog.
    return { articles }
  }
  for (const slug of entries.sort()) {
    // Named as the operator knows the folder: relative to the working directory, like BLOG_DIR.
    const where = path.relative(process.cwd(), path.join(dir, slug)) || slug
    if (!BLOG_SLUG_PATTERN.test(slug) || slug.length > BLOG_SLUG_MAX) {
      problems.push(`${where}: the folder name must be lowercase words joined by dashes (it is the URL)`)
      continue
    }
    const article = loadArticle(dir, slug, where, problems)
    if (article) articles.push(article)
  }
  if (problems.length > 0) throw new BlogContentError(problems)
  articles.sort((a, b) => b.date.localeCompare(a.date) || a.slug.localeCompare(b.slug))
  return { articles }
}

function loadArticle(dir: string, slug: string, where: string, problems: string[]): LoadedArticle | null {
  const folder = path.join(dir, slug)
  const assets = new Map<string, BlogAsset>()
  const markdownFiles: { locale: Locale; file: string }[] = []
  for (const file of readdirSync(folder).sort()) {
    const extension = path.extname(file).toLowerCase()
    if (extension === '.md') {
      const locale = file.slice(0, -3)
      if (isLocale(locale)) markdownFiles.push({ locale, file })
      else problems.push(`${where}/${file}: not a locale of the site (expected en.md, fr.md, zh-cn.md, ...)`)
    } else if (ASSET_TYPES[extension]) {
      // The name becomes a route and a URL as it is.
      if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(file)) {
        problems.push(`${where}/${file}: file names may only hold letters, digits, dots, dashes and underscores`)
        continue
      }
      const body = readFileSync(path.join(folder, file))
      const contentType = ASSET_TYPES[extension] ?? 'application/octet-stream'
      // The hash makes the URL change with the file, so it may be cached for a year.
      assets.set(file, { file, url: `/blog/${slug}/${file}?v=${hashOf(body)}`, contentType, body })
    }
  }
  if (!markdownFiles.some((m) => m.locale === DEFAULT_LOCALE)) {
    problems.push(`${where}: no en.md (English is the text every other language falls back to)`)
    return null
  }
  const assetUrl = (reference: string) => {
    const prefix = `/blog/${slug}/`
    const file = reference.startsWith(prefix) ? reference.slice(prefix.length) : reference.replace(/^\.\//, '')
    return assets.get(file)?.url
  }

  const texts = new Map<Locale, ArticleText>()
  let english: z.infer<typeof frontMatterSchema> | null = null
  for (const { locale, file } of markdownFiles) {
    const source = readFileSync(path.join(folder, file), 'utf8')
    // gray-matter caches by content; a fresh options object keeps each file's result its own.
    const { data, content } = matter(source, {})
    const parsed = frontMatterSchema.safeParse(data)
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        problems.push(`${where}/${file}: ${issue.path.join('.') || 'front matter'}: ${issue.message}`)
      }
      continue
    }
    const front = parsed.data
    if (locale === DEFAULT_LOCALE) english = front
    const cover = coverOf(front, assets, assetUrl, slug)
    if (typeof cover === 'string') {
      problems.push(`${where}/${file}: cover: ${cover}`)
      continue
    }
    const env = { locale, assetUrl, problems: [] as string[] }
    const rendered = renderArticle(content, env)
    for (const problem of env.problems) problems.push(`${where}/${file}: ${problem}`)
    texts.set(locale, {
      locale,
      title: front.title,
      description: front.description,
      author: front.author,
      cover,
      html: rendered.html,
      toc: rendered.toc,
      readingMinutes: rendered.readingMinutes,
    })
  }
  if (!english) return null
  return {
    slug,
    date: english.date,
    updated: english.updated ?? null,
    tags: [...new Set(english.tags.map((tag) => tag.toLowerCase()))],
    texts,
    assets,
  }
}

function coverOf(
  front: z.infer<typeof frontMatterSchema>,
  assets: Map<string, BlogAsset>,
  assetUrl: (reference: string) => string | undefined,
  slug: string,
): BlogCover | string {
  const url = assetUrl(front.cover)
  const asset = [...assets.values()].find((a) => a.url === url)
  if (!url || !asset) return `"${front.cover}" is not a file of the article's folder`
  const extension = path.extname(asset.file).toLowerCase()
  if (!COVER_EXTENSIONS.includes(extension)) return `"${front.cover}" must be an SVG or PNG file`
  const size = extension === '.svg' ? svgSize(asset.body) : pngSize(asset.body)
  if (!size) return `"${front.cover}" does not say its size (an SVG needs width and height, or a viewBox)`
  return {
    url,
    // A PNG cover serves social cards itself; an SVG one gets a PNG twin (see blog.routes.ts).
    socialUrl: extension === '.png' ? url : `/blog/${slug}/${socialFileOf(asset.file)}?v=${hashOf(asset.body)}`,
    alt: front.coverAlt,
    width: size.width,
    height: size.height,
  }
}

/** `cover.svg` → `cover.social.png`: the PNG twin of an SVG cover, for social cards. */
export function socialFileOf(file: string): string {
  return `${file.replace(/\.[^.]+$/, '')}.social.png`
}

function svgSize(body: Buffer): { width: number; height: number } | null {
  const root = /<svg\b[^>]*>/i.exec(body.toString('utf8'))?.[0]
  if (!root) return null
  const attribute = (name: string) => new RegExp(`\\s${name}\\s*=\\s*["']([^"']+)["']`, 'i').exec(root)?.[1]
  const width = Number.parseFloat(attribute('width') ?? '')
  const height = Number.parseFloat(attribute('height') ?? '')
  if (width > 0 && height > 0) return { width: Math.round(width), height: Math.round(height) }
  const box = (attribute('viewBox') ?? '').split(/[\s,]+/).map(Number)
  if (box.length === 4 && (box[2] ?? 0) > 0 && (box[3] ?? 0) > 0) {
    return { width: Math.round(box[2] ?? 0), height: Math.round(box[3] ?? 0) }
  }
  return null
}

function pngSize(body: Buffer): { width: number; height: number } | null {
  const signature = '89504e470d0a1a0a'
  if (body.length < 24 || body.subarray(0, 8).toString('hex') !== signature) return null
  return { width: body.readUInt32BE(16), height: body.readUInt32BE(20) }
}
