import { createHash } from 'node:crypto'
import sharp from 'sharp'
import { AppError } from '#server/lib/errors.ts'
import type { ImagesRepo } from './images.repo.ts'

/** Formats accepted on upload, recognised from the bytes themselves (never the file name). */
const ACCEPTED_FORMATS: ReadonlySet<string> = new Set(['jpeg', 'png', 'webp', 'gif', 'avif', 'svg'])
/** What people may upload: raster formats only (SVG is for the drawn demo avatars). */
export const UPLOAD_FORMATS: ReadonlySet<string> = new Set(['jpeg', 'png', 'webp', 'gif', 'avif'])
export const MAX_IMAGE_BYTES = 8 * 1024 * 1024
const MAX_INPUT_PIXELS = 40_000_000

export type ImageKind = { width: number; height: number }
export const AVATAR: ImageKind = { width: 512, height: 512 }
export const BANNER: ImageKind = { width: 1500, height: 500 }

export function createImagesService(repo: ImagesRepo) {
  /** Re-encodes to WebP at the kind's size: drops EXIF and anything else the file carried. */
  async function normalise(input: Buffer, kind: ImageKind, options: { blur?: boolean } = {}) {
    let pipeline = sharp(input, { limitInputPixels: MAX_INPUT_PIXELS, animated: false })
      .rotate()
      .resize({ width: kind.width, height: kind.height, fit: 'cover', position: 'attention' })
    if (options.blur)
      pipeline = pipeline.resize({ width: 64, height: Math.round((64 * kind.height) / kind.width) }).blur(6)
    const { data, info } = await pipeline
      .webp({ quality: options.blur ? 60 : 82 })
      .toBuffer({ resolveWithObject: true })
    return { bytes: data, width: info.width, height: info.height }
  }

  /** Checks the bytes are an image of an accepted format (the file name and declared type are never trusted). */
  async function sniff(input: Buffer, accept: ReadonlySet<string> = ACCEPTED_FORMATS) {
    if (input.length === 0 || input.length > MAX_IMAGE_BYTES) {
      throw AppError.badRequest('The image is empty or too large.', { maxBytes: MAX_IMAGE_BYTES })
    }
    let format: string | undefined
    try {
      format = (await sharp(input, { limitInputPixels: MAX_INPUT_PIXELS }).metadata()).format
    } catch {
      format = undefined
    }
    if (!format || !accept.has(format)) {
      throw new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'This is not a supported image (JPEG, PNG, WebP, GIF, AVIF).')
    }
  }

  /** Sniffs, then re-encodes; a file that only looks like an image (cut short, corrupt) is refused the same way. */
  async function decode(input: Buffer, kind: ImageKind, accept?: ReadonlySet<string>) {
    await sniff(input, accept)
    try {
      return await normalise(input, kind)
    } catch {
      throw new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'This image could not be read.')
    }
  }

  async function save(bytes: Buffer, width: number, height: number, gated: boolean) {
    const sha256 = createHash('sha256').update(bytes).digest('hex')
    return repo.insert({ contentType: 'image/webp', bytes, width, height, sha256, gated })
  }

  return {
    /**
     * Stores an image of the given kind. Adult (gated) images also get a blurred, ungated twin
     * for viewers who have not confirmed their age (`blurredTwin: false` skips it: banners of adult
     * characters are not shown at all to those viewers).
     */
    async store(
      input: Buffer,
      kind: ImageKind,
      options: { gated?: boolean; blurredTwin?: boolean; accept?: ReadonlySet<string> } = {},
    ) {
      const image = await decode(input, kind, options.accept)
      const id = await save(image.bytes, image.width, image.height, Boolean(options.gated))
      let blurredId: string | null = null
      if (options.gated && options.blurredTwin !== false) {
        const blurred = await normalise(input, kind, { blur: true })
        blurredId = await save(blurred.bytes, blurred.width, blurred.height, false)
      }
      return { id, blurredId }
    },
    /** The image as `store` would keep it (sniffed, re-encoded WebP), without storing it: for previews. */
    async preview(input: Buffer, kind: ImageKind, options: { accept?: ReadonlySet<string> } = {}) {
      return (await decode(input, kind, options.accept)).bytes
    },
    find: repo.find,
    /** Deletes those of these images that no character uses any more (after a replace or delete). */
    removeUnused: repo.removeUnused,
  }
}

export type ImagesService = ReturnType<typeof createImagesService>

export function imageUrl(id: string | null): string | null {
  return id ? `/api/public/images/${id}` : null
}
