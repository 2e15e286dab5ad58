import { deflateSync } from 'node:zlib'
import { type Zippable, zipSync } from 'fflate'

/**
 * Test helpers that build cards byte by byte, independently of the code under test: their own
 * CRC-32 table, their own chunk writer, base64 JSON, CHARX zips from fflate.
 */

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})

/** CRC-32 (ISO 3309), as the PNG spec's sample code computes it. */
export function crc32Table(bytes: Uint8Array): number {
  let c = 0xffffffff
  for (const b of bytes) c = (CRC_TABLE[(c ^ b) & 0xff] as number) ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}

export const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

/** length (BE) + type + data + CRC over type and data. */
export function chunk(type: string, data: Uint8Array | string): Buffer {
  const body = typeof data === 'string' ? Buffer.from(data, 'latin1') : Buffer.from(data)
  const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), body])
  const length = Buffer.alloc(4)
  length.writeUInt32BE(body.length)
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32Table(typeAndData))
  return Buffer.concat([length, typeAndData, crc])
}

export function ihdr(width: number, height: number): Buffer {
  const data = Buffer.alloc(13)
  data.writeUInt32BE(width, 0)
  data.writeUInt32BE(height, 4)
  data[8] = 8 // bit depth
  data[9] = 2 // colour type: RGB
  return chunk('IHDR', data) // compression, filter, interlace: 0
}

/** A width x height RGB image of one colour, each scanline with filter byte 0. */
export function idat(width: number, height: number, rgb: [number, number, number]): Buffer {
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3).map((_, i) => rgb[i % 3] as number)])
  return chunk('IDAT', deflateSync(Buffer.concat(Array.from({ length: height }, () => row))))
}

export function tEXt(keyword: string, text: string): Buffer {
  return chunk('tEXt', `${keyword}\0${text}`)
}

/** iTXt, uncompressed: keyword NUL, flag 0, method 0, empty language NUL, empty translation NUL, UTF-8 text. */
export function iTXt(keyword: string, text: string): Buffer {
  return chunk('iTXt', Buffer.concat([Buffer.from(`${keyword}\0\0\0\0\0`, 'latin1'), Buffer.from(text, 'utf8')]))
}

/** zTXt: keyword NUL, method 0, zlib stream of Latin-1 text. */
export function zTXt(keyword: string, text: string): Buffer {
  return chunk(
    'zTXt',
    Buffer.concat([Buffer.from(`${keyword}\0\0`, 'latin1'), deflateSync(Buffer.from(text, 'latin1'))]),
  )
}

/** Bytes that do not compress, the same for the same seed. */
export function noise(length: number, seed = 1): Uint8Array {
  let state = seed
  return new Uint8Array(length).map(() => {
    state = (Math.imul(state, 1103515245) + 12345) & 0x7fffffff
    return state >> 16
  })
}

export function base64Json(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64')
}

/** A small valid PNG (2x3 RGB) with the given extra chunks between the image data and IEND. */
export function pngWith(...extra: Buffer[]): Buffer {
  return Buffer.concat([SIGNATURE, ihdr(2, 3), idat(2, 3, [200, 40, 90]), ...extra, chunk('IEND', '')])
}

export function cardPng(cards: { chara?: unknown; ccv3?: unknown }): Buffer {
  const extra: Buffer[] = []
  if (cards.chara !== undefined) extra.push(tEXt('chara', base64Json(cards.chara)))
  if (cards.ccv3 !== undefined) extra.push(tEXt('ccv3', base64Json(cards.ccv3)))
  return pngWith(...extra)
}

export function charx(files: Record<string, Uint8Array | string | [Uint8Array, { level: 0 }]>): Buffer {
  const zippable: Zippable = {}
  for (const [name, content] of Object.entries(files)) {
    zippable[name] = typeof content === 'string' ? Buffer.from(content, 'utf8') : content
  }
  return Buffer.from(zipSync(zippable))
}

/**
 * Rewrites the uncompressed size an entry declares, in both its local header and the central
 * directory (a zip that lies about its size).
 */
export function patchDeclaredSize(zip: Buffer, name: string, size: number): Buffer {
  const out = Buffer.from(zip)
  let patched = 0
  for (let i = 0; i + 4 <= out.length; i++) {
    const sig = out.readUInt32LE(i)
    if (sig === 0x04034b50) {
      const nameLength = out.readUInt16LE(i + 26)
      if (out.toString('utf8', i + 30, i + 30 + nameLength) === name) {
        out.writeUInt32LE(size, i + 22)
        patched++
      }
    } else if (sig === 0x02014b50) {
      const nameLength = out.readUInt16LE(i + 28)
      if (out.toString('utf8', i + 46, i + 46 + nameLength) === name) {
        out.writeUInt32LE(size, i + 24)
        patched++
      }
    }
  }
  if (patched !== 2) throw new Error(`patched ${patched} headers of ${name}`)
  return out
}

/** A V2 card as real ones look: every field, a lorebook, some extensions. */
export function v2Card(overrides: Record<string, unknown> = {}) {
  return {
    spec: 'chara_card_v2',
    spec_version: '2.0',
    data: {
      name: 'Mira Vale',
      description: '{{char}} is a cartographer of drowned cities.',
      personality: 'curious, dry humour',
      scenario: 'A flooded archive at dawn.',
      first_mes: 'You found my maps? *She smiles.*',
      mes_example: '<START>\n{{user}}: Hi\n{{char}}: Hello, traveller.',
      creator_notes: 'Works best with long replies.',
      system_prompt: 'Stay in character.',
      post_history_instructions: 'Keep replies under 200 words.',
      alternate_greetings: ['The tide is late today.', 'Another visitor? Sit.'],
      tags: ['fantasy', 'explorer'],
      creator: 'alice',
      character_version: '1.2',
      extensions: { talkativeness: '0.5', depth_prompt: { prompt: 'Remember the sea.', depth: 4 } },
      character_book: {
        name: 'Drowned Atlas',
        scan_depth: 3,
        token_budget: 500,
        recursive_scanning: false,
        extensions: {},
        entries: [
          {
            keys: ['Vell', 'drowned city'],
            content: 'Vell sank in a single night.',
            extensions: { probability: 100 },
            enabled: true,
            insertion_order: 10,
            case_sensitive: false,
            constant: false,
            comment: 'the city',
            secondary_keys: ['night'],
            selective: true,
            position: 'before_char',
            id: 1,
            priority: 5,
            name: 'Vell',
          },
        ],
      },
      ...overrides,
    },
  }
}

/** A V3 card: a V2 card's data plus the V3 fields. */
export function v3Card(overrides: Record<string, unknown> = {}) {
  const v2 = v2Card()
  return {
    spec: 'chara_card_v3',
    spec_version: '3.0',
    data: {
      ...v2.data,
      group_only_greetings: ['Everyone, gather round the map table.'],
      nickname: 'Mira',
      creator_notes_multilingual: { en: 'Works best with long replies.', fr: 'Préfère les longues réponses.' },
      source: ['https://example.org/cards/mira'],
      creation_date: 1_700_000_000,
      modification_date: 1_700_000_500,
      assets: [{ type: 'icon', uri: 'ccdefault:', name: 'main', ext: 'png' }],
      ...overrides,
    },
  }
}
