import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { blogArticleQuery, blogArticleSchema, blogListQuery, blogListSchema } from '#contracts/blog-schemas.ts'
import { DEFAULT_LOCALE, isLocale, LOCALE_COOKIE } from '#contracts/locales.ts'
import { AppError } from '#server/lib/errors.ts'
import { ok, okSchema } from '#server/lib/reply.ts'
import type { BlogService } from './blog.service.ts'

function localeOf(request: FastifyRequest, requested: string | undefined): string {
  if (requested && isLocale(requested)) return requested
  const cookie = request.cookies[LOCALE_COOKIE]
  return isLocale(cookie) ? cookie : DEFAULT_LOCALE
}

/** The articles change only with a deploy; anyone may keep an answer for a few minutes. */
function cacheShared(reply: FastifyReply) {
  reply.header('cache-control', 'public, max-age=300, stale-while-revalidate=3600')
  reply.header('vary', 'Cookie')
}

/** `GET /api/blogs` and `GET /api/blog` (spec section 7). */
export function blogRoutes(blog: BlogService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['blog']

    app.get(
      '/blogs',
      {
        schema: {
          tags,
          summary: 'Articles, newest first, in the requested language (English where not translated)',
          querystring: blogListQuery,
          response: { 200: okSchema(blogListSchema) },
        },
      },
      async (request, reply) => {
        const { page, pageSize, locale } = request.query
        const list = blog.listArticles({ page, pageSize }, localeOf(request, locale))
        if (!list) {
          const lastPage = blog.listArticles({ page: 1, pageSize }, DEFAULT_LOCALE)?.totalPages ?? 1
          throw new AppError(400, 'VALIDATION_ERROR', `Page ${page} is past the last page (${lastPage}).`, [
            { path: 'page', message: `must be at most ${lastPage}`, in: 'querystring', lastPage },
          ])
        }
        cacheShared(reply)
        return ok(list)
      },
    )

    app.get(
      '/blog',
      {
        schema: {
          tags,
          summary: 'One article: sanitized HTML, table of contents, previous and next, related characters',
          querystring: blogArticleQuery,
          response: { 200: okSchema(blogArticleSchema) },
        },
      },
      async (request, reply) => {
        const article = await blog.getArticle(request.query.slug, localeOf(request, request.query.locale))
        if (!article) throw AppError.notFound('No such article')
        cacheShared(reply)
        return ok(article)
      },
    )
  }
}

/**
 * The articles' images at `/blog/<slug>/<file>`, one route per file that exists, so every other
 * path stays with the pages. Their URLs carry a content hash (`?v=`), so they are cached for a year.
 */
export function blogAssetRoutes(blog: BlogService): FastifyPluginAsyncZod {
  return async (app) => {
    const longCache = (reply: FastifyReply, contentType: string) =>
      reply
        .header('content-type', contentType)
        .header('cache-control', 'public, max-age=31536000, immutable')
        // Shown on other sites too when shared (social cards), unlike the app's own files.
        .header('cross-origin-resource-policy', 'cross-origin')

    for (const { slug, asset } of blog.assets()) {
      app.get(`/blog/${slug}/${asset.file}`, { schema: { hide: true } }, async (_request, reply) =>
        longCache(reply, asset.contentType).send(asset.body),
      )
    }
    for (const { slug, file, source } of blog.socialImages()) {
      app.get(`/blog/${slug}/${file}`, { schema: { hide: true } }, async (_request, reply) =>
        longCache(reply, 'image/png').send(await blog.socialImage(slug, source)),
      )
    }
  }
}
