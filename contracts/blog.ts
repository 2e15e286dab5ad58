import type { z } from 'zod'
import type {
  blogArticleSchema,
  blogCoverSchema,
  blogListSchema,
  blogSummarySchema,
  blogTocEntrySchema,
} from './blog-schemas.ts'

export const BLOG_PAGE_SIZE_DEFAULT = 9
export const BLOG_PAGE_SIZE_MAX = 50
/** Related characters shown under an article. */
export const BLOG_RELATED_COUNT = 6
/** An article's folder name, which is also its URL: lowercase words joined by dashes. */
export const BLOG_SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/
export const BLOG_SLUG_MAX = 100

export type BlogCover = z.infer<typeof blogCoverSchema>
export type BlogTocEntry = z.infer<typeof blogTocEntrySchema>
export type BlogSummary = z.infer<typeof blogSummarySchema>
export type BlogList = z.infer<typeof blogListSchema>
export type BlogArticle = z.infer<typeof blogArticleSchema>

/** The blog as the pages' loaders use it (implemented by server/modules/blog). */
export type BlogReader = {
  /** A page of articles, newest first; `null` when `page` is past the last page. */
  listArticles(query: { page: number; pageSize: number }, locale: string): BlogList | null
  /** The article in `locale` (or in English, flagged `fallback`), or null for an unknown slug. */
  getArticle(slug: string, locale: string): Promise<BlogArticle | null>
}
