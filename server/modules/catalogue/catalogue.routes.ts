import etag from '@fastify/etag'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { ADULT_COOKIE, ADULT_COOKIE_MAX_AGE_SECONDS, type Viewer } from '#contracts/catalogue.ts'
import {
  roleDetailSchema,
  roleListQuery,
  roleListSchema,
  roleQuery,
  roleSummarySchema,
  tagSchema,
} from '#contracts/catalogue-schemas.ts'
import { DEFAULT_LOCALE, isLocale, LOCALE_COOKIE } from '#contracts/locales.ts'
import { AppError } from '#server/lib/errors.ts'
import { ok, okSchema } from '#server/lib/reply.ts'
import type { CatalogueService } from './catalogue.service.ts'

export function catalogueRoutes(catalogue: CatalogueService): FastifyPluginAsyncZod {
  return async (app) => {
    // Weak ETags on the public reads: a client or proxy that has the page gets a 304.
    await app.register(etag, { weak: true })

    async function viewerOf(request: FastifyRequest): Promise<Viewer> {
      const cookieConfirmed = request.cookies[ADULT_COOKIE] === '1'
      return {
        userId: request.userId,
        adultConfirmed: await catalogue.adultConfirmed(request.userId, cookieConfirmed),
      }
    }
    function localeOf(request: FastifyRequest, requested: string | undefined): string {
      if (requested && isLocale(requested)) return requested
      const cookie = request.cookies[LOCALE_COOKIE]
      return isLocale(cookie) ? cookie : DEFAULT_LOCALE
    }
    /** Anonymous answers are shared for a minute; personal ones are revalidated every time. */
    function cacheFor(request: FastifyRequest, reply: FastifyReply) {
      const personal = Boolean(request.headers.authorization) || request.cookies[ADULT_COOKIE] !== undefined
      reply.header('vary', 'Cookie, Authorization')
      reply.header('cache-control', personal ? 'private, no-cache' : 'public, max-age=60, stale-while-revalidate=300')
    }

    app.get(
      '/roles',
      {
        schema: {
          tags: ['catalogue'],
          summary: 'List characters: sort, tag filter (all tags must match), search, pages',
          querystring: roleListQuery,
          response: { 200: okSchema(roleListSchema) },
        },
      },
      async (request, reply) => {
        const list = await catalogue.listRoles(
          request.query,
          await viewerOf(request),
          localeOf(request, request.query.locale),
        )
        cacheFor(request, reply)
        return ok(list)
      },
    )

    app.get(
      '/role',
      {
        schema: {
          tags: ['catalogue'],
          summary: 'One character. Adult ones come without their texts until the viewer confirms their age',
          querystring: roleQuery,
          response: { 200: okSchema(roleDetailSchema) },
        },
      },
      async (request, reply) => {
        const role = await catalogue.getRole(
          request.query.roleId,
          await viewerOf(request),
          localeOf(request, request.query.locale),
          { original: request.query.original === '1' },
        )
        if (!role) throw AppError.notFound('No such character')
        if (role.visibility === 'private') reply.header('cache-control', 'private, no-cache')
        else cacheFor(request, reply)
        return ok(role)
      },
    )

    app.get(
      '/featured',
      {
        schema: {
          tags: ['catalogue'],
          summary:
            'The characters an operator features on the home page, in their order (adult ones only for a viewer who confirmed their age)',
          querystring: z.object({ locale: z.string().max(10).optional() }),
          response: { 200: okSchema(z.object({ items: z.array(roleSummarySchema) })) },
        },
      },
      async (request, reply) => {
        const items = await catalogue.listFeatured(await viewerOf(request), localeOf(request, request.query.locale))
        cacheFor(request, reply)
        return ok({ items })
      },
    )

    app.get(
      '/tags',
      {
        schema: {
          tags: ['catalogue'],
          summary: 'Every tag with its name in the requested locale',
          querystring: z.object({ locale: z.string().max(10).optional() }),
          response: { 200: okSchema(z.object({ tags: z.array(tagSchema) })) },
        },
      },
      async (request, reply) => {
        reply.header('cache-control', 'public, max-age=300, stale-while-revalidate=3600')
        reply.header('vary', 'Cookie')
        return ok({ tags: await catalogue.listTags(localeOf(request, request.query.locale)) })
      },
    )

    app.post(
      '/public/age-confirmation',
      {
        schema: {
          tags: ['catalogue'],
          summary: 'Confirm being 18 or older (or take it back): a cookie, and the account setting when signed in',
          body: z.object({ confirmed: z.boolean() }).strict(),
          response: { 200: okSchema(z.object({ confirmed: z.boolean() })) },
        },
      },
      async (request, reply) => {
        const { confirmed } = request.body
        await catalogue.setAdultPreference(request.userId, confirmed)
        if (confirmed) {
          reply.setCookie(ADULT_COOKIE, '1', {
            path: '/',
            maxAge: ADULT_COOKIE_MAX_AGE_SECONDS,
            sameSite: 'lax',
            httpOnly: true,
            secure: app.config.isProduction,
          })
        } else {
          reply.clearCookie(ADULT_COOKIE, { path: '/' })
        }
        return ok({ confirmed })
      },
    )
  }
}
