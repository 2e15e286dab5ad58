import type { FastifyInstance, FastifyRequest } from 'fastify'
import { AppError } from '#server/lib/errors.ts'

/**
 * Multipart form data without a multipart plugin: the body is taken whole as a Buffer (Fastify
 * enforces the route's `bodyLimit` while it arrives, answering 413 past it), then parsed by the
 * WHATWG `Request.formData()` built into Node. Forms here are a few megabytes at most, so holding
 * one in memory is cheaper than streaming parts to disk. Registered inside the characters plugin
 * only, so other routes still refuse multipart bodies.
 */
export function acceptMultipart(app: FastifyInstance) {
  app.addContentTypeParser('multipart/form-data', { parseAs: 'buffer' }, (_request, body, done) => done(null, body))
}

export async function readFormData(request: FastifyRequest): Promise<FormData> {
  const contentType = request.headers['content-type'] ?? ''
  if (!Buffer.isBuffer(request.body) || !contentType.startsWith('multipart/form-data')) {
    throw new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send this form as multipart/form-data.')
  }
  let form: FormData
  try {
    form = await new Request('http://form.invalid/', {
      method: 'POST',
      headers: { 'content-type': contentType },
      // Node's Buffers sit on plain ArrayBuffers (never shared ones); a view avoids a copy.
      body: new Uint8Array(request.body.buffer as ArrayBuffer, request.body.byteOffset, request.body.byteLength),
    }).formData()
  } catch {
    throw AppError.badRequest('The multipart form data could not be read.')
  }
  // PostgreSQL cannot store a NUL character: refused here like in JSON bodies (input-guards.ts).
  for (const value of form.values()) {
    if (typeof value === 'string' && value.includes('\u0000'))
      throw new AppError(400, 'VALIDATION_ERROR', 'Text may not contain NUL characters')
  }
  return form
}

/** An uploaded file part (an empty file input sends a part with no bytes: that is no file). */
export type Upload = { bytes: Buffer; name: string; size: number }

export async function uploadOf(value: FormDataEntryValue | null): Promise<Upload | null> {
  if (value === null || typeof value === 'string' || value.size === 0) return null
  return { bytes: Buffer.from(await value.arrayBuffer()), name: value.name, size: value.size }
}
