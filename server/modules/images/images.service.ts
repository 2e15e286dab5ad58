import { createHash } from 'node:crypto'
import type { Sharp, WebpOptions } from 'sharp'
import { IMAGE_VARIANT_NAMES, IMAGE_VARIANTS, type ImageVariant } from '#contracts/images.ts'
import { AppError } from '#server/lib/errors.ts'
import { loadSharp, type SharpModule } from '#server/lib/sharp.ts'
import type { ImagesRepo, NewImage } from './images.repo.ts'

/** Formats accepted on upload, recognised from the bytes themselves (never the file name). */
const ACCEPTED_FORMATS: ReadonlySet<string> = new Set(['jpeg', 'png', 'webp', 'gif', 'avif', 'svg'])
/** What people may upload: raster formats only (SVG is for the drawn demo avatars). */
export const UPLOAD_FORMATS: ReadonlySet<string> = new Set(['jpeg', 'png', 'webp', 'gif', 'avif'])
export const MAX_IMAGE_BYTES = 8 * 1024 * 1024
const MAX_INPUT_PIXELS = 40_000_000

/**
 * The bound of a kept original (ADR 042): 2048 x 2048 pixels' worth, any aspect ratio. Cards carry
 * 400x600 to about 1024x1536; 4 MP keeps a 1672x2508 portrait whole, four times what a card page
 * shows on a 2x screen, while a row stays a few MB.
 */
export const ORIGINAL_MAX_PIXELS = 2048 * 2048
/**
 * A lossless original above this many bytes is kept as near-visually-lossless WebP instead, so
 * that the import preview, sent back by the form as an upload (CHARACTER_LIMITS.imageBytes,
 * 5 MiB), always fits.
 */
export const ORIGINAL_MAX_BYTES = 4 * 1024 * 1024

/** A picture re-encoded to one fixed frame, cover-cropped to its most salient part (banners). */
export type FramedKind = { keep: 'frame'; width: number; height: number }
/** A picture kept whole (bounded, metadata dropped) with the variants pages show (avatars). */
export type OriginalKind = { keep: 'original' }
export type ImageKind = FramedKind | OriginalKind

export const AVATAR: OriginalKind = { keep: 'original' }
export const BANNER: FramedKind = { keep: 'frame', width: 1500, height: 500 }

/** sharp, once `decode` (every way into the encoders) has loaded it; a call before that throws. */
let sharp: SharpModule = (() => {
  throw new Error('sharp used before loadSharp() resolved')
}) as unknown as SharpModule

type Encoded = { bytes: Buffer; width: number; height: number; contentType: string }
type Pixels = { data: Buffer; width: number; height: number; channels: 1 | 2 | 3 | 4 }

function fromPixels(pixels: Pixels): Sharp {
  const { data, width, height, channels } = pixels
  return sharp(data, { raw: { width, height, channels } })
}

async function webp(pipeline: Sharp, options: WebpOptions): Promise<Encoded> {
  const { data, info } = await pipeline.webp(options).toBuffer({ resolveWithObject: true })
  return { bytes: data, width: info.width, height: info.height, contentType: 'image/webp' }
}

/**
 * A variant cut from the original: the largest box of the frame's aspect ratio, scaled down (never
 * up) to the frame's width. A picture taller than the frame keeps its top (a portrait's face), a
 * wider one its most salient part (sharp's `attention`).
 */
function cutVariant(pixels: Pixels, frame: { width: number; height: number }): Sharp {
  const frameRatio = frame.width / frame.height
  const ratio = pixels.width / pixels.height
  const boxWidth = ratio > frameRatio ? pixels.height * frameRatio : pixels.width
  const width = Math.max(1, Math.floor(Math.min(frame.width, boxWidth)))
  const height = Math.max(1, Math.min(pixels.height, Math.round(width / frameRatio)))
  const position = ratio < frameRatio ? 'north' : ratio > frameRatio ? 'attention' : 'centre'
  return fromPixels(pixels).resize({ width, height, fit: 'cover', position })
}

export function createImagesService(repo: ImagesRepo) {
  function open(input: Buffer): Sharp {
    return sharp(input, { limitInputPixels: MAX_INPUT_PIXELS, animated: false })
  }

  /** The picture's pixels, upright (EXIF orientation applied) and within ORIGINAL_MAX_PIXELS. */
  async function decodeOriginal(input: Buffer): Promise<Pixels> {
    const { autoOrient } = await open(input).metadata()
    const pixels = autoOrient.width * autoOrient.height
    let pipeline = open(input).autoOrient()
    if (pixels > ORIGINAL_MAX_PIXELS) {
      const scale = Math.sqrt(ORIGINAL_MAX_PIXELS / pixels)
      pipeline = pipeline.resize({
        width: Math.max(1, Math.floor(autoOrient.width * scale)),
        height: Math.max(1, Math.floor(autoOrient.height * scale)),
        fit: 'fill',
      })
    }
    const { data, info } = await pipeline.raw().toBuffer({ resolveWithObject: true })
    return { data, width: info.width, height: info.height, channels: info.channels }
  }

  /**
   * Lossless WebP (same pixels, no metadata), or near-lossless lossy above ORIGINAL_MAX_BYTES.
   * Effort 0: 2-4x faster than the default for 10-25% more bytes (ADR 042), so a save stays
   * within the 10 s of an ordinary call on a loaded machine.
   */
  async function encodeOriginal(pixels: Pixels): Promise<Encoded> {
    const lossless = await webp(fromPixels(pixels), { lossless: true, exact: true, effort: 0 })
    if (lossless.bytes.length <= ORIGINAL_MAX_BYTES) return lossless
    return webp(fromPixels(pixels), { quality: 92, smartSubsample: true })
  }

  function blurredOf(pipeline: Sharp, kind: ImageKind): Promise<Encoded> {
    // The blurred twin keeps the picture's aspect ratio (a banner's frame, an avatar's own).
    const width = 64
    const height = kind.keep === 'frame' ? Math.round((64 * kind.height) / kind.width) : undefined
    return webp(pipeline.resize({ width, height, fit: 'cover' }).blur(6), { quality: 60 })
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

  /** What is stored of a picture of this kind: the image, its variants, and its blurred twin if asked. */
  async function encode(input: Buffer, kind: ImageKind, made: { blurred: boolean; variants: boolean }) {
    if (kind.keep === 'frame') {
      const framed = () =>
        open(input).autoOrient().resize({ width: kind.width, height: kind.height, fit: 'cover', position: 'attention' })
      return {
        image: await webp(framed(), { quality: 82 }),
        variants: [] as { variant: ImageVariant; encoded: Encoded }[],
        blurred: made.blurred ? await blurredOf(framed(), kind) : null,
      }
    }
    const pixels = await decodeOriginal(input)
    const variants = []
    for (const variant of made.variants ? IMAGE_VARIANT_NAMES : []) {
      variants.push({ variant, encoded: await webp(cutVariant(pixels, IMAGE_VARIANTS[variant]), { quality: 82 }) })
    }
    return {
      image: await encodeOriginal(pixels),
      variants,
      blurred: made.blurred ? await blurredOf(fromPixels(pixels), kind) : null,
    }
  }

  /** Sniffs, then re-encodes; a file that only looks like an image (cut short, corrupt) is refused the same way. */
  async function decode(
    input: Buffer,
    kind: ImageKind,
    accept: ReadonlySet<string> | undefined,
    made: { blurred: boolean; variants: boolean },
  ) {
    sharp = await loadSharp()
    await sniff(input, accept)
    try {
      return await encode(input, kind, made)
    } catch {
      throw new AppError(415, 'UNSUPPORTED_MEDIA_TYPE', 'This image could not be read.')
    }
  }

  function row(encoded: Encoded, gated: boolean): NewImage {
    const sha256 = createHash('sha256').update(encoded.bytes).digest('hex')
    return { ...encoded, sha256, gated }
  }

  return {
    /**
     * Stores an image of the given kind: an avatar as its original with its variants, a banner in
     * its frame. Adult (gated) images also get a blurred, ungated twin for viewers who have not
     * confirmed their age (`blurredTwin: false` skips it: banners of adult characters are not
     * shown at all to those viewers). The twin has no variants: its variant URLs answer with it.
     */
    async store(
      input: Buffer,
      kind: ImageKind,
      options: { gated?: boolean; blurredTwin?: boolean; accept?: ReadonlySet<string> } = {},
    ) {
      const gated = Boolean(options.gated)
      const blurred = gated && options.blurredTwin !== false
      const encoded = await decode(input, kind, options.accept, { blurred, variants: true })
      const id = await repo.insert(
        row(encoded.image, gated),
        encoded.variants.map(({ variant, encoded: v }) => ({ variant, ...row(v, gated) })),
      )
      const blurredId = encoded.blurred ? await repo.insert(row(encoded.blurred, false), []) : null
      return { id, blurredId }
    },
    /**
     * The image as `store` would keep it (sniffed, re-encoded WebP: an avatar's whole original),
     * without storing it: for previews the form then uploads as they are.
     */
    async preview(input: Buffer, kind: ImageKind, options: { accept?: ReadonlySet<string> } = {}) {
      return (await decode(input, kind, options.accept, { blurred: false, variants: false })).image.bytes
    },
    /** An image, or one of its variants (the image itself when it has none: older uploads, SVG). */
    find: repo.find,
    /** Deletes those of these images that no character uses any more (after a replace or delete). */
    removeUnused: repo.removeUnused,
  }
}

export type ImagesService = ReturnType<typeof createImagesService>

export function imageUrl(id: string | null): string | null {
  return id ? `/api/public/images/${id}` : null
}
