import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { ADULT_COOKIE } from '#contracts/catalogue.ts'
import { AppError } from '#server/lib/errors.ts'
import type { ImagesService } from './images.service.ts'

/**
 * Images are immutable and addressed by id: cached for a year. Shared caches (proxies, CDNs) may
 * keep only those a public character shows; a private character's images, and images no character
 * uses, stay in the viewer's own browser cache.
 */
export function imagesRoutes(images: ImagesService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/public/images/:id',
      {
        schema: {
          tags: ['images'],
          summary: 'An avatar or banner (WebP)',
          params: z.object({ id: z.uuid() }),
        },
      },
      async (request, reply) => {
        const image = await images.find(request.params.id)
        if (!image) throw AppError.notFound('No such image')
        // An adult character's image goes only to viewers who confirmed their age (the cookie is
        // also set for signed-in users who did, since <img> requests carry no bearer token).
        if (image.gated) {
          if (request.cookies[ADULT_COOKIE] !== '1') throw AppError.forbidden('Age confirmation required')
          reply.header('cache-control', 'private, max-age=31536000, immutable')
        } else if (image.onPublicRole) {
          reply.header('cache-control', 'public, max-age=31536000, immutable')
        } else {
          // no-cache: the browser asks again (a 304 by the ETag), so a character made private or
          // deleted stops showing its pictures from caches.
          reply.header('cache-control', 'private, no-cache')
        }
        const etag = `"${image.sha256}"`
        reply.header('etag', etag)
        if (request.headers['if-none-match'] === etag) return reply.status(304).send()
        reply.header('content-type', image.contentType)
        reply.header('content-disposition', 'inline')
        return reply.send(image.bytes)
      },
    )
  }
}
