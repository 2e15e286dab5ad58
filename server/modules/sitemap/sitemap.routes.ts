import type { FastifyReply } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { sitemapBlogsSchema, sitemapPagesQuery, sitemapPagesSchema } from '#contracts/blog-schemas.ts'
import { isLocale } from '#contracts/locales.ts'
import { ok, okSchema } from '#server/lib/reply.ts'
import type { SitemapService } from './sitemap.service.ts'

/** `GET /api/sitemap/pages` and `GET /api/sitemap/blogs`: the data behind the sitemaps (spec section 6). */
export function sitemapApiRoutes(sitemap: SitemapService): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['sitemap']
    app.get(
      '/sitemap/pages',
      {
        schema: {
          tags,
          summary: 'Pages for search engines: static pages, then every public character that is not adult',
          querystring: sitemapPagesQuery,
          response: { 200: okSchema(sitemapPagesSchema) },
        },
      },
      async (request, reply) => {
        reply.header('cache-control', 'public, max-age=3600')
        return ok(await sitemap.pages(request.query.page, request.query.pageSize))
      },
    )
    app.get(
      '/sitemap/blogs',
      {
        schema: {
          tags,
          summary: 'Every article with its last change and the locales it is written in',
          response: { 200: okSchema(sitemapBlogsSchema) },
        },
      },
      async (_request, reply) => {
        reply.header('cache-control', 'public, max-age=3600')
        return ok(sitemap.blogs())
      },
    )
  }
}

function sendXml(reply: FastifyReply, xml: string) {
  return reply
    .header('content-type', 'application/xml; charset=utf-8')
    .header('cache-control', 'public, max-age=3600')
    .send(xml)
}

/**
 * `/robots.txt`, the sitemap index `/sitemap.xml` and each locale's sitemaps
 * (`/<locale>/sitemap.xml`, then `/<locale>/sitemap-2.xml`, ... when split). English's is
 * `/en/sitemap.xml`, since `/sitemap.xml` is the index.
 */
export function sitemapFileRoutes(sitemap: SitemapService): FastifyPluginAsyncZod {
  return async (app) => {
    const hide = { hide: true }
    app.get('/robots.txt', { schema: hide }, async (_request, reply) =>
      reply
        .header('content-type', 'text/plain; charset=utf-8')
        .header('cache-control', 'public, max-age=3600')
        .send(sitemap.robotsTxt()),
    )
    app.get('/sitemap.xml', { schema: hide }, async (_request, reply) => sendXml(reply, await sitemap.indexXml()))

    const localeFile = async (locale: string, part: number, reply: FastifyReply) => {
      const xml = isLocale(locale) ? await sitemap.localeXml(locale, part) : null
      return xml === null ? reply.callNotFound() : sendXml(reply, xml)
    }
    app.get(
      '/:locale/sitemap.xml',
      { schema: { ...hide, params: z.object({ locale: z.string() }) } },
      async (request, reply) => localeFile(request.params.locale, 1, reply),
    )
    app.get(
      '/:locale/sitemap-:part.xml',
      { schema: { ...hide, params: z.object({ locale: z.string(), part: z.string() }) } },
      async (request, reply) => {
        const part = /^[1-9]\d{0,5}$/.test(request.params.part) ? Number(request.params.part) : 0
        // `sitemap-1.xml` is `sitemap.xml`: one URL per file.
        if (part < 2) return reply.callNotFound()
        return localeFile(request.params.locale, part, reply)
      },
    )
  }
}
