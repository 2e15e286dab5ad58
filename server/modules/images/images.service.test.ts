import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openTestDatabase } from '#tests/helpers/test-database.ts'
import { createImagesRepo } from './images.repo.ts'
import { AVATAR, BANNER, createImagesService, type ImagesService } from './images.service.ts'

describe('images service', () => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>
  let images: ImagesService
  beforeAll(async () => {
    database = await openTestDatabase()
    images = createImagesService(createImagesRepo(database.db))
  })
  afterAll(() => database.close())

  it('re-encodes to WebP at the kind’s size and drops EXIF', async () => {
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
  })

  it('stores a gated image with an ungated blurred twin', async () => {
    const png = await sharp({ create: { width: 300, height: 300, channels: 4, background: '#ff0000' } })
      .png()
      .toBuffer()
    const { id, blurredId } = await images.store(png, AVATAR, { gated: true })
    expect((await images.find(id))?.gated).toBe(true)
    const blurred = await images.find(blurredId ?? '')
    expect(blurred?.gated).toBe(false)
    expect((await sharp(blurred?.bytes).metadata()).width).toBe(64)
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
