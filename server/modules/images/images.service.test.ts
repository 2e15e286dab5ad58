import { randomBytes } from 'node:crypto'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openTestDatabase } from '#tests/helpers/test-database.ts'
import { createImagesRepo } from './images.repo.ts'
import {
  AVATAR,
  BANNER,
  createImagesService,
  type ImagesService,
  ORIGINAL_MAX_BYTES,
  ORIGINAL_MAX_PIXELS,
} from './images.service.ts'

/** A portrait whose top quarter is red, bottom quarter blue and middle noisy grey (detail to keep). */
async function portrait(width: number, height: number) {
  const channels = 3
  const data = Buffer.alloc(width * height * channels)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * channels
      if (y < height / 4) data.set([220, 30, 30], i)
      else if (y >= (height * 3) / 4) data.set([30, 30, 220], i)
      else data.fill((x * 7 + y * 13) % 256, i, i + channels)
    }
  }
  return sharp(data, { raw: { width, height, channels } })
}

async function rawOf(bytes: Buffer | undefined) {
  return sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true })
}

/** The colour at a point given as fractions of the picture's width and height. */
async function colourAt(bytes: Buffer | undefined, fx: number, fy: number) {
  const { data, info } = await rawOf(bytes)
  const x = Math.min(info.width - 1, Math.floor(info.width * fx))
  const y = Math.min(info.height - 1, Math.floor(info.height * fy))
  const i = (y * info.width + x) * info.channels
  return [data[i], data[i + 1], data[i + 2]]
}

const isRed = (c: (number | undefined)[]) => (c[0] ?? 0) > 150 && (c[2] ?? 255) < 90
const isBlue = (c: (number | undefined)[]) => (c[2] ?? 0) > 150 && (c[0] ?? 255) < 90

describe('images service', () => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>
  let images: ImagesService
  beforeAll(async () => {
    database = await openTestDatabase()
    images = createImagesService(createImagesRepo(database.db))
  })
  afterAll(() => database.close())

  it('re-encodes a banner to WebP in its frame and drops EXIF', async () => {
    const jpeg = await sharp({ create: { width: 900, height: 600, channels: 3, background: '#336699' } })
      .jpeg()
      .withExif({ IFD0: { Artist: 'Secret Name', Copyright: 'GPS here' } })
      .toBuffer()
    expect((await sharp(jpeg).metadata()).exif).toBeDefined()
    const { id, blurredId } = await images.store(jpeg, BANNER)
    expect(blurredId).toBeNull()
    const stored = await images.find(id)
    expect(stored?.contentType).toBe('image/webp')
    const meta = await sharp(stored?.bytes).metadata()
    expect(meta).toMatchObject({ format: 'webp', width: 1500, height: 500 })
    expect(meta.exif).toBeUndefined()
    expect(stored?.bytes.includes(Buffer.from('Secret Name'))).toBe(false)
    // A banner has no variants: asking for one gives the banner.
    expect((await images.find(id, 'card-320'))?.sha256).toBe(stored?.sha256)
  })

  it('keeps an avatar whole: any aspect ratio, the same pixels, no metadata', async () => {
    const png = await (await portrait(400, 600))
      .png()
      .withExif({ IFD0: { Artist: 'Secret Name' } })
      .toBuffer()
    const { id } = await images.store(png, AVATAR)
    const stored = await images.find(id)
    const meta = await sharp(stored?.bytes).metadata()
    expect(meta).toMatchObject({ format: 'webp', width: 400, height: 600 })
    expect(meta.exif).toBeUndefined()
    expect(stored?.bytes.includes(Buffer.from('Secret Name'))).toBe(false)
    const before = await rawOf(png)
    const after = await rawOf(stored?.bytes)
    expect(after.info).toMatchObject({ width: 400, height: 600 })
    expect(after.data.equals(before.data)).toBe(true)
    // Stored again (the import preview comes back as an upload), it is still the same picture.
    const again = await images.store(stored?.bytes as Buffer, AVATAR)
    expect((await rawOf((await images.find(again.id))?.bytes)).data.equals(before.data)).toBe(true)
  })

  it('keeps transparency', async () => {
    const png = await sharp({
      create: { width: 30, height: 45, channels: 4, background: { r: 9, g: 99, b: 199, alpha: 0.5 } },
    })
      .png()
      .toBuffer()
    const { id } = await images.store(png, AVATAR)
    const stored = await images.find(id)
    const pixels = await sharp(stored?.bytes).ensureAlpha().raw().toBuffer()
    expect([...pixels.subarray(0, 4)]).toEqual([...(await sharp(png).ensureAlpha().raw().toBuffer()).subarray(0, 4)])
  })

  it('turns a picture upright by its EXIF orientation', async () => {
    // Stored sideways (600x400) with "rotate 90° clockwise to view": upright it is a 400x600 portrait.
    const sideways = await (await portrait(400, 600))
      .rotate(-90)
      .jpeg({ quality: 95 })
      .withMetadata({ orientation: 6 })
      .toBuffer()
    expect(await sharp(sideways).metadata()).toMatchObject({ width: 600, height: 400, orientation: 6 })
    const { id } = await images.store(sideways, AVATAR)
    const stored = await images.find(id)
    const meta = await sharp(stored?.bytes).metadata()
    expect(meta).toMatchObject({ width: 400, height: 600 })
    expect(meta.orientation).toBeUndefined()
    expect(isRed(await colourAt(stored?.bytes, 0.5, 0.05))).toBe(true)
    expect(isBlue(await colourAt(stored?.bytes, 0.5, 0.95))).toBe(true)
  })

  it('bounds a very large picture to the pixel budget, keeping its aspect ratio', async () => {
    const png = await (await portrait(2400, 3600)).png().toBuffer()
    const { id } = await images.store(png, AVATAR)
    const stored = await images.find(id)
    const meta = await sharp(stored?.bytes).metadata()
    expect(meta.width * meta.height).toBeLessThanOrEqual(ORIGINAL_MAX_PIXELS)
    expect(meta.width * meta.height).toBeGreaterThan(ORIGINAL_MAX_PIXELS * 0.99)
    expect(meta.width / meta.height).toBeCloseTo(2 / 3, 2)
  })

  it('keeps a picture no lossless encoding makes small enough as near-lossless WebP', async () => {
    const noise = randomBytes(1200 * 1800 * 3)
    const png = await sharp(noise, { raw: { width: 1200, height: 1800, channels: 3 } })
      .png({ compressionLevel: 1 })
      .toBuffer()
    const { id } = await images.store(png, AVATAR)
    const stored = await images.find(id)
    expect(stored?.bytes.length).toBeLessThanOrEqual(ORIGINAL_MAX_BYTES)
    expect(await sharp(stored?.bytes).metadata()).toMatchObject({ format: 'webp', width: 1200, height: 1800 })
  })

  it('serves a 2:3 portrait whole in the card frame, and its top in the square', async () => {
    const png = await (await portrait(512, 768)).png().toBuffer()
    const { id } = await images.store(png, AVATAR)
    for (const [variant, width, height] of [
      ['card-320', 320, 480],
      ['card-640', 512, 768],
    ] as const) {
      const card = await images.find(id, variant)
      expect(await sharp(card?.bytes).metadata(), variant).toMatchObject({ format: 'webp', width, height })
      // Head and feet: the red top band and the blue bottom band are both there.
      expect(isRed(await colourAt(card?.bytes, 0.5, 0.02)), variant).toBe(true)
      expect(isBlue(await colourAt(card?.bytes, 0.5, 0.98)), variant).toBe(true)
    }
    const square = await images.find(id, 'square-128')
    expect(await sharp(square?.bytes).metadata()).toMatchObject({ width: 128, height: 128 })
    expect(isRed(await colourAt(square?.bytes, 0.5, 0.02))).toBe(true)
    expect(isBlue(await colourAt(square?.bytes, 0.5, 0.98))).toBe(false)
  })

  it('keeps the top of a picture taller than the card frame, and the salient part of a wide one', async () => {
    const tall = await (await portrait(300, 900)).png().toBuffer()
    const card = await images.find((await images.store(tall, AVATAR)).id, 'card-320')
    expect(await sharp(card?.bytes).metadata()).toMatchObject({ width: 300, height: 450 })
    expect(isRed(await colourAt(card?.bytes, 0.5, 0.02))).toBe(true)

    // A landscape with one bright red figure on the right on a flat grey ground.
    const wide = await sharp({ create: { width: 1200, height: 400, channels: 3, background: '#808080' } })
      .composite([
        {
          input: await sharp({ create: { width: 120, height: 300, channels: 3, background: '#e01010' } })
            .png()
            .toBuffer(),
          left: 1000,
          top: 50,
        },
      ])
      .png()
      .toBuffer()
    const cut = await images.find((await images.store(wide, AVATAR)).id, 'card-320')
    expect(await sharp(cut?.bytes).metadata()).toMatchObject({ width: 266, height: 399 })
    expect(isRed(await colourAt(cut?.bytes, 0.5, 0.5))).toBe(true)
  })

  it('stores a gated avatar and its variants gated, with an ungated blurred twin of its shape', async () => {
    const png = await (await portrait(200, 300)).png().toBuffer()
    const { id, blurredId } = await images.store(png, AVATAR, { gated: true })
    expect((await images.find(id))?.gated).toBe(true)
    expect((await images.find(id, 'card-320'))?.gated).toBe(true)
    expect((await images.find(id, 'square-128'))?.gated).toBe(true)
    const blurred = await images.find(blurredId ?? '')
    expect(blurred?.gated).toBe(false)
    expect(await sharp(blurred?.bytes).metadata()).toMatchObject({ width: 64, height: 96 })
    // The twin has no variants of its own: its variant URLs answer with it.
    expect((await images.find(blurredId ?? '', 'card-640'))?.sha256).toBe(blurred?.sha256)
  })

  it('deletes an unused image with its variants', async () => {
    const png = await (await portrait(40, 60)).png().toBuffer()
    const { id } = await images.store(png, AVATAR)
    expect(await images.find(id, 'card-320')).not.toBeNull()
    expect(await images.removeUnused([id])).toBe(1)
    expect(await images.find(id, 'card-320')).toBeNull()
    expect(await images.find(id)).toBeNull()
  })

  it('previews an avatar as it would keep it, storing nothing', async () => {
    const png = await (await portrait(100, 150)).png().toBuffer()
    const preview = await images.preview(png, AVATAR)
    expect(await sharp(preview).metadata()).toMatchObject({ format: 'webp', width: 100, height: 150 })
    expect((await rawOf(preview)).data.equals((await rawOf(png)).data)).toBe(true)
  })

  it('rejects what is not an image, whatever it claims to be', async () => {
    await expect(images.store(Buffer.from('<html><script>alert(1)</script></html>'), AVATAR)).rejects.toMatchObject({
      status: 415,
      code: 'UNSUPPORTED_MEDIA_TYPE',
    })
    await expect(images.store(Buffer.alloc(0), AVATAR)).rejects.toMatchObject({ status: 400 })
    const truncated = (
      await sharp({ create: { width: 50, height: 50, channels: 3, background: '#000' } })
        .png()
        .toBuffer()
    ).subarray(0, 40)
    await expect(images.store(truncated, AVATAR)).rejects.toMatchObject({ status: 415 })
  })
})
