import { crc32, deflateSync } from 'node:zlib'
import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { chunk, crc32Table, idat, ihdr, iTXt, pngWith, SIGNATURE, tEXt, zTXt } from '#tests/factories/card-files.ts'
import { CARD_LIMITS, CardError } from './card-types.ts'
import { encodePngChunk, readPngChunks, readPngTexts, setPngTexts, textChunk } from './png-chunks.ts'

function codeOf(run: () => unknown): string | undefined {
  try {
    run()
  } catch (error) {
    if (error instanceof CardError) return error.code
    throw error
  }
  return undefined
}

describe('test helper', () => {
  it('computes the CRC-32 of the PNG spec, which the hand-built PNG needs to decode', async () => {
    const bytes = Buffer.from('IEND')
    expect(crc32Table(bytes)).toBe(0xae426082) // the CRC every PNG ends with
    expect(crc32Table(Buffer.from('123456789'))).toBe(crc32('123456789'))
    const meta = await sharp(pngWith()).metadata()
    expect(meta).toMatchObject({ format: 'png', width: 2, height: 3 })
  })
})

describe('readPngChunks', () => {
  it('splits a PNG into its chunks, stopping at IEND', () => {
    const png = Buffer.concat([pngWith(tEXt('Comment', 'hi')), Buffer.from('trailing junk')])
    const chunks = readPngChunks(png)
    expect(chunks.map((c) => c.type)).toEqual(['IHDR', 'IDAT', 'tEXt', 'IEND'])
    expect(Buffer.from(chunks[2]?.data ?? []).toString('latin1')).toBe('Comment\0hi')
  })

  it('writes chunks byte for byte as the PNG spec lays them out', () => {
    const data = Buffer.from('chara\0abc', 'latin1')
    expect(encodePngChunk({ type: 'tEXt', data })).toEqual(chunk('tEXt', data))
  })

  it('rejects a file cut anywhere after the signature as truncated', () => {
    const png = pngWith(tEXt('chara', 'x'.repeat(100)))
    for (const cut of [8, 12, 20, 40, png.length - 30, png.length - 1]) {
      expect(
        codeOf(() => readPngChunks(png.subarray(0, cut))),
        `cut at ${cut}`,
      ).toBe('truncated_png')
    }
  })

  it('rejects a chunk whose length runs past the end of the file', () => {
    const png = pngWith(tEXt('chara', 'abc'))
    const textOffset = png.length - 12 - 21 // IEND is 12 bytes, this tEXt 12 + 9
    expect(png.toString('latin1', textOffset + 4, textOffset + 8)).toBe('tEXt')
    png.writeUInt32BE(0x7fff_0000, textOffset)
    expect(codeOf(() => readPngChunks(png))).toBe('truncated_png')
  })

  it('rejects a wrong CRC, a missing IHDR and a broken chunk type', () => {
    const png = pngWith(tEXt('chara', 'abc'))
    const badCrc = Buffer.from(png)
    const at = badCrc.length - 12 - 2 // a CRC byte of the tEXt chunk
    badCrc[at] = (badCrc[at] ?? 0) ^ 0xff
    expect(codeOf(() => readPngChunks(badCrc))).toBe('corrupt_png')

    const noIhdr = Buffer.concat([SIGNATURE, idat(1, 1, [0, 0, 0]), chunk('IEND', '')])
    expect(codeOf(() => readPngChunks(noIhdr))).toBe('corrupt_png')

    const badType = Buffer.concat([SIGNATURE, ihdr(1, 1), chunk('ID1T', 'x'), chunk('IEND', '')])
    expect(codeOf(() => readPngChunks(badType))).toBe('corrupt_png')
  })
})

describe('readPngTexts', () => {
  it('reads tEXt (Latin-1), uncompressed iTXt (UTF-8) and zTXt', () => {
    const png = pngWith(tEXt('Title', 'caf\xe9'), iTXt('chara', 'ünï ✓'), zTXt('ccv3', 'zipped text'))
    const texts = readPngTexts(readPngChunks(png))
    expect(texts).toEqual([
      { type: 'tEXt', keyword: 'Title', text: 'café' },
      { type: 'iTXt', keyword: 'chara', text: 'ünï ✓' },
      { type: 'zTXt', keyword: 'ccv3', text: 'zipped text' },
    ])
  })

  it('reads UTF-8 put in tEXt and zTXt (real cards do) as UTF-8, and Latin-1 as Latin-1', () => {
    const utf8 = (keyword: string, text: string) =>
      chunk('tEXt', Buffer.concat([Buffer.from(`${keyword}\0`, 'latin1'), Buffer.from(text, 'utf8')]))
    const zipped = chunk(
      'zTXt',
      Buffer.concat([Buffer.from('ccv3\0\0', 'latin1'), deflateSync(Buffer.from('{"name":"東京"}', 'utf8'))]),
    )
    const png = pngWith(utf8('chara', '{"name":"Ålíce 東京 ✓"}'), tEXt('Title', 'Ã©t\xe9'), zipped)
    expect(readPngTexts(readPngChunks(png)).map((t) => t.text)).toEqual([
      '{"name":"Ålíce 東京 ✓"}',
      // Not valid UTF-8 (a lone 0xE9): Latin-1, as the spec says.
      'Ã©té',
      '{"name":"東京"}',
    ])
  })

  it('filters by keyword without case and skips malformed text chunks', () => {
    const png = pngWith(tEXt('Chara', 'a'), tEXt('other', 'b'), chunk('tEXt', 'no separator'))
    expect(readPngTexts(readPngChunks(png), ['chara'])).toEqual([{ type: 'tEXt', keyword: 'Chara', text: 'a' }])
  })

  it('refuses a wanted text chunk over the limit but never decodes unwanted ones', () => {
    const huge = 'A'.repeat(CARD_LIMITS.maxTextChunkBytes + 1)
    const chunks = readPngChunks(pngWith(tEXt('chara', huge), tEXt('XML:com.adobe.xmp', huge)))
    expect(codeOf(() => readPngTexts(chunks, ['chara']))).toBe('too_large')
    expect(readPngTexts(chunks, ['ccv3'])).toEqual([])
  })

  it('stops inflating a zTXt bomb at the limit', () => {
    const bomb = zTXt('chara', 'A'.repeat(CARD_LIMITS.maxTextChunkBytes * 2))
    expect(bomb.length).toBeLessThan(100_000)
    expect(codeOf(() => readPngTexts(readPngChunks(pngWith(bomb)), ['chara']))).toBe('too_large')
  })
})

describe('setPngTexts', () => {
  it('replaces same-keyword text chunks of any kind and inserts the new ones before IEND', async () => {
    const png = pngWith(tEXt('chara', 'old'), iTXt('CCV3', 'old too'), tEXt('Comment', 'kept'))
    const out = setPngTexts(png, { chara: 'new', ccv3: 'newer' })
    const chunks = readPngChunks(out)
    expect(chunks.map((c) => c.type)).toEqual(['IHDR', 'IDAT', 'tEXt', 'tEXt', 'tEXt', 'IEND'])
    expect(readPngTexts(chunks).map((t) => `${t.keyword}=${t.text}`)).toEqual([
      'Comment=kept',
      'chara=new',
      'ccv3=newer',
    ])
    expect((await sharp(out).metadata()).width).toBe(2)
  })

  it('writes tEXt only for Latin-1 text and valid keywords', () => {
    expect(() => textChunk('chara', 'ü✓')).toThrow(TypeError)
    expect(() => textChunk('', 'x')).toThrow(TypeError)
    expect(Buffer.from(textChunk('chara', 'abc').data).toString('latin1')).toBe('chara\0abc')
  })
})
