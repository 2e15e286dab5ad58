import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { ADULT_COOKIE } from '#contracts/catalogue.ts'
import { IMAGE_VARIANT_NAMES, type ImageVariant } from '#contracts/images.ts'
import { AppError } from '#server/lib/errors.ts'
import type { ImagesService } from './images.service.ts'

/**
 * Images are immutable and addressed by id: cached for a year. Shared caches (proxies, CDNs) may
 * keep only those a public character shows; a private character's images, and images no character
 * uses, stay in the viewer's own browser cache. A variant (`/:id/card-320`, ...) is served under
 * the same rules as its image: it is gated when the image is.
 */
export function imagesRoutes(images: ImagesService): FastifyPluginAsyncZod {
  async function send(request: FastifyRequest, reply: FastifyReply, id: string, variant?: ImageVariant) {
    const image = await images.find(id, variant)
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
  }

  return async (app) => {
    app.get(
      '/public/images/:id',
      {
        schema: {
          tags: ['images'],
          summary: 'An avatar (the picture as uploaded) or banner (WebP)',
          params: z.object({ id: z.uuid() }),
        },
      },
      (request, reply) => send(request, reply, request.params.id),
    )
    app.get(
      '/public/images/:id/:variant',
      {
        schema: {
          tags: ['images'],
          summary: 'A size of an avatar that pages show (WebP); the image itself when it has none',
          params: z.object({ id: z.uuid(), variant: z.enum(IMAGE_VARIANT_NAMES as [ImageVariant, ...ImageVariant[]]) }),
        },
      },
      (request, reply) => send(request, reply, request.params.id, request.params.variant),
    )
  }
}
