import { z } from 'zod'
import { BLOG_PAGE_SIZE_DEFAULT, BLOG_PAGE_SIZE_MAX, BLOG_SLUG_MAX, BLOG_SLUG_PATTERN } from './blog.ts'
import { roleSummarySchema } from './catalogue-schemas.ts'

// zod schemas of the blog API, for the server, the OpenAPI document and loaders.

const locale = z.string().max(10).optional()

export const blogListQuery = z.object({
  page: z.coerce.number().int().min(1).max(10_000).default(1),
  pageSize: z.coerce.number().int().min(1).max(BLOG_PAGE_SIZE_MAX).default(BLOG_PAGE_SIZE_DEFAULT),
  locale,
})

export const blogArticleQuery = z.object({
  slug: z.string().max(BLOG_SLUG_MAX).regex(BLOG_SLUG_PATTERN, 'not an article slug'),
  locale,
})

export const blogCoverSchema = z.object({
  /** The cover as written (SVG or raster), with a content hash so it can be cached for a year. */
  url: z.string(),
  /** A 1200×630 PNG of the cover for social cards (services that do not read SVG). */
  socialUrl: z.string(),
  alt: z.string(),
  width: z.number().int(),
  height: z.number().int(),
})

export const blogSummarySchema = z.object({
  slug: z.string(),
  title: z.string(),
  description: z.string(),
  author: z.string(),
  tags: z.array(z.string()),
  /** First publication, `YYYY-MM-DD`. */
  date: z.string(),
  /** Last substantial change, `YYYY-MM-DD`, or null. */
  updated: z.string().nullable(),
  cover: blogCoverSchema,
  readingMinutes: z.number().int(),
  /** The language the text is written in: the requested one, or English when it is not translated. */
  contentLocale: z.string(),
  fallback: z.boolean(),
})

export const blogListSchema = z.object({
  items: z.array(blogSummarySchema),
  page: z.number().int(),
  pageSize: z.number().int(),
  total: z.number().int(),
  totalPages: z.number().int(),
})

export const blogTocEntrySchema = z.object({ id: z.string(), text: z.string(), level: z.number().int() })

const neighbourSchema = z.object({ slug: z.string(), title: z.string() }).nullable()

export const blogArticleSchema = blogSummarySchema.extend({
  /** Sanitized HTML: raw HTML in the markdown is escaped, links are http(s), mailto or relative. */
  html: z.string(),
  toc: z.array(blogTocEntrySchema),
  /** Locales the article is written in (the others show English). */
  translations: z.array(z.string()),
  /** The article published before this one, and the one after. */
  previous: neighbourSchema,
  next: neighbourSchema,
  /** Public characters for everyone (never adult) sharing a tag with the article, else popular ones. */
  related: z.array(roleSummarySchema),
})

/** `GET /api/sitemap/blogs`. */
export const sitemapBlogsSchema = z.object({
  items: z.array(
    z.object({
      slug: z.string(),
      /** The English path; other locales prefix it (`/fr/blog/...`). */
      path: z.string(),
      lastmod: z.string(),
      translations: z.array(z.string()),
    }),
  ),
})

/** `GET /api/sitemap/pages`. */
export const sitemapPagesQuery = z.object({
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  pageSize: z.coerce.number().int().min(1).max(50_000).default(1000),
})
export const sitemapPagesSchema = z.object({
  items: z.array(z.object({ path: z.string(), lastmod: z.string().nullable() })),
  page: z.number().int(),
  pageSize: z.number().int(),
  total: z.number().int(),
  totalPages: z.number().int(),
})
