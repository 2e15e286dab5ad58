import type { BlogArticle, BlogList, BlogSummary } from '#contracts/blog.ts'
import { BLOG_RELATED_COUNT } from '#contracts/blog.ts'
import type { RoleSummary } from '#contracts/catalogue.ts'
import { DEFAULT_LOCALE, isLocale, LOCALES, type Locale } from '#contracts/locales.ts'
import { loadSharp } from '#server/lib/sharp.ts'
import type { ArticleText, BlogAsset, BlogContent, LoadedArticle } from './blog-content.ts'
import { socialFileOf } from './blog-content.ts'

/** What the blog needs from the catalogue. */
export type RelatedRoles = {
  listRelatedRoles(tagSlugs: string[], limit: number, locale: string): Promise<RoleSummary[]>
}

export type BlogServiceDeps = {
  content: BlogContent
  catalogue: RelatedRoles
  log: (info: Record<string, unknown>, msg: string) => void
}

/** Size of the PNG twin of an SVG cover: what Facebook, X and LinkedIn show best. */
const SOCIAL_WIDTH = 1200
const SOCIAL_HEIGHT = 630

/**
 * The blog, served from memory: the articles are read and rendered once at start
 * (`loadBlogContent`). A locale without its own text gets the English one, flagged `fallback`.
 */
export function createBlogService({ content, catalogue, log }: BlogServiceDeps) {
  const { articles } = content
  const bySlug = new Map(articles.map((article, index) => [article.slug, { article, index }]))
  const socialImages = new Map<string, Promise<Buffer>>()

  function textOf(article: LoadedArticle, locale: Locale): ArticleText {
    const text = article.texts.get(locale) ?? article.texts.get(DEFAULT_LOCALE)
    // loadBlogContent refuses an article without English, so this never happens.
    if (!text) throw new Error(`blog/${article.slug} has no English text`)
    return text
  }

  function summaryOf(article: LoadedArticle, locale: Locale): BlogSummary {
    const text = textOf(article, locale)
    return {
      slug: article.slug,
      title: text.title,
      description: text.description,
      author: text.author,
      tags: article.tags,
      date: article.date,
      updated: article.updated,
      cover: text.cover,
      readingMinutes: text.readingMinutes,
      contentLocale: text.locale,
      fallback: text.locale !== locale,
    }
  }

  const localeOf = (requested: string): Locale => (isLocale(requested) ? requested : DEFAULT_LOCALE)

  return {
    /** A page of articles, newest first; null when `page` is past the last one. */
    listArticles(query: { page: number; pageSize: number }, requestedLocale: string): BlogList | null {
      const locale = localeOf(requestedLocale)
      const total = articles.length
      const totalPages = Math.ceil(total / query.pageSize)
      if (query.page > Math.max(totalPages, 1)) return null
      const start = (query.page - 1) * query.pageSize
      return {
        items: articles.slice(start, start + query.pageSize).map((article) => summaryOf(article, locale)),
        page: query.page,
        pageSize: query.pageSize,
        total,
        totalPages,
      }
    },

    async getArticle(slug: string, requestedLocale: string): Promise<BlogArticle | null> {
      const found = bySlug.get(slug)
      if (!found) return null
      const { article, index } = found
      const locale = localeOf(requestedLocale)
      const text = textOf(article, locale)
      // Newest first: the article before this one in the list is the newer one.
      const newer = articles[index - 1]
      const older = articles[index + 1]
      const neighbour = (other: LoadedArticle | undefined) =>
        other ? { slug: other.slug, title: textOf(other, locale).title } : null
      let related: RoleSummary[] = []
      try {
        related = await catalogue.listRelatedRoles(article.tags, BLOG_RELATED_COUNT, locale)
      } catch (error) {
        // The article is worth showing without its related characters.
        log({ err: error, slug }, 'related characters of an article could not be loaded')
      }
      return {
        ...summaryOf(article, locale),
        html: text.html,
        toc: text.toc,
        translations: LOCALES.filter((l) => article.texts.has(l)),
        previous: neighbour(older),
        next: neighbour(newer),
        related,
      }
    },

    /** Every file an article may show (covers, images), for the routes that serve them. */
    assets(): { slug: string; asset: BlogAsset }[] {
      return articles.flatMap((article) => [...article.assets.values()].map((asset) => ({ slug: article.slug, asset })))
    },

    /** The SVG covers that get a PNG twin for social cards, as `{ slug, file }` of the twin. */
    socialImages(): { slug: string; file: string; source: BlogAsset }[] {
      const seen = new Set<string>()
      const list: { slug: string; file: string; source: BlogAsset }[] = []
      for (const article of articles) {
        for (const text of article.texts.values()) {
          const source = [...article.assets.values()].find((a) => a.url === text.cover.url)
          if (source?.contentType !== 'image/svg+xml') continue
          const file = socialFileOf(source.file)
          if (seen.has(`${article.slug}/${file}`)) continue
          seen.add(`${article.slug}/${file}`)
          list.push({ slug: article.slug, file, source })
        }
      }
      return list
    },

    /** The PNG twin of an SVG cover, drawn once on first request and kept. */
    socialImage(slug: string, source: BlogAsset): Promise<Buffer> {
      const key = `${slug}/${source.file}`
      let image = socialImages.get(key)
      if (!image) {
        image = loadSharp().then((sharp) =>
          sharp(source.body, { density: 144 })
            .resize(SOCIAL_WIDTH, SOCIAL_HEIGHT, { fit: 'cover' })
            .png({ compressionLevel: 9 })
            .toBuffer(),
        )
        image.catch(() => socialImages.delete(key))
        socialImages.set(key, image)
      }
      return image
    },

    /** Every article with the locales it is written in and its last change, for the sitemaps. */
    sitemapEntries(): { slug: string; path: string; lastmod: string; translations: Locale[] }[] {
      return articles.map((article) => ({
        slug: article.slug,
        path: `/blog/${article.slug}`,
        lastmod: article.updated ?? article.date,
        translations: LOCALES.filter((l) => article.texts.has(l)),
      }))
    },

    /** The date of the newest article or change, for the blog list's own `lastmod`. */
    lastModified(): string | null {
      return (
        articles
          .map((a) => a.updated ?? a.date)
          .sort()
          .at(-1) ?? null
      )
    },
  }
}

export type BlogService = ReturnType<typeof createBlogService>
