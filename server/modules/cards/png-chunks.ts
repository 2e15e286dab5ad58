import { isAscii } from 'node:buffer'
import { crc32, inflateSync } from 'node:zlib'
import { CARD_LIMITS, CardError } from './card-types.ts'

/**
 * PNG read and write at the chunk level (PNG spec, section 5): signature, then chunks of
 * length (4 bytes, big-endian) + type (4 ASCII letters) + data + CRC-32 of type and data.
 * Nothing here decodes pixels.
 */

export const PNG_SIGNATURE = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
const MAX_CHUNK_LENGTH = 0x7fffffff

export type PngChunk = { type: string; data: Uint8Array }

export function hasPngSignature(bytes: Uint8Array): boolean {
  if (bytes.length < PNG_SIGNATURE.length) return false
  return PNG_SIGNATURE.every((b, i) => bytes[i] === b)
}

function chunkCrc(typeBytes: Uint8Array, data: Uint8Array): number {
  return crc32(data, crc32(typeBytes))
}

function isChunkType(typeBytes: Uint8Array): boolean {
  return typeBytes.every((b) => (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a))
}

/**
 * Splits a PNG into its chunks, up to and including IEND (bytes after IEND are dropped). Checks
 * the signature, that IHDR comes first, that every chunk fits in the file and that every CRC is
 * right. Throws CardError `truncated_png` or `corrupt_png`.
 */
export function readPngChunks(bytes: Uint8Array): PngChunk[] {
  if (!hasPngSignature(bytes)) throw new CardError('corrupt_png', 'Not a PNG signature')
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const chunks: PngChunk[] = []
  let offset = PNG_SIGNATURE.length
  for (;;) {
    if (offset + 8 > bytes.length) throw new CardError('truncated_png', 'The PNG ends before its IEND chunk')
    const length = view.getUint32(offset)
    if (length > MAX_CHUNK_LENGTH) throw new CardError('corrupt_png', 'A PNG chunk length is over 2^31-1')
    const typeBytes = bytes.subarray(offset + 4, offset + 8)
    if (!isChunkType(typeBytes)) throw new CardError('corrupt_png', 'A PNG chunk type is not four letters')
    const type = String.fromCharCode(...typeBytes)
    const dataStart = offset + 8
    const dataEnd = dataStart + length
    if (dataEnd + 4 > bytes.length) {
      throw new CardError('truncated_png', `The PNG chunk ${type} runs past the end of the file`, { chunk: type })
    }
    const data = bytes.subarray(dataStart, dataEnd)
    if (view.getUint32(dataEnd) !== chunkCrc(typeBytes, data)) {
      throw new CardError('corrupt_png', `The PNG chunk ${type} has a wrong CRC`, { chunk: type })
    }
    if (chunks.length === 0 && type !== 'IHDR') throw new CardError('corrupt_png', 'The PNG does not start with IHDR')
    chunks.push({ type, data })
    offset = dataEnd + 4
    if (type === 'IEND') return chunks
  }
}

/** One chunk as bytes: length, type, data, CRC. */
export function encodePngChunk(chunk: PngChunk): Buffer {
  if (!/^[A-Za-z]{4}$/.test(chunk.type)) throw new TypeError(`Bad PNG chunk type ${chunk.type}`)
  const typeBytes = Buffer.from(chunk.type, 'latin1')
  const out = Buffer.alloc(12 + chunk.data.length)
  out.writeUInt32BE(chunk.data.length, 0)
  typeBytes.copy(out, 4)
  out.set(chunk.data, 8)
  out.writeUInt32BE(chunkCrc(typeBytes, chunk.data), 8 + chunk.data.length)
  return out
}

export function writePng(chunks: readonly PngChunk[]): Buffer {
  return Buffer.concat([PNG_SIGNATURE, ...chunks.map(encodePngChunk)])
}

export const TEXT_CHUNK_TYPES = new Set(['tEXt', 'zTXt', 'iTXt'])

export type PngText = { type: 'tEXt' | 'zTXt' | 'iTXt'; keyword: string; text: string }

function inflateText(compressed: Uint8Array, keyword: string): Buffer {
  try {
    return inflateSync(compressed, { maxOutputLength: CARD_LIMITS.maxTextChunkBytes })
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new CardError('too_large', `The PNG text ${keyword} inflates past the limit`, {
        chunk: keyword,
        limit: CARD_LIMITS.maxTextChunkBytes,
      })
    }
    throw new CardError('corrupt_png', `The PNG text ${keyword} does not inflate`, { chunk: keyword })
  }
}

/** The keyword of a text chunk (Latin-1, 1 to 79 bytes, NUL-terminated), or null when malformed. */
function textKeyword(data: Uint8Array): { keyword: string; rest: number } | null {
  const nul = data.indexOf(0)
  if (nul < 1 || nul > 79) return null
  return { keyword: Buffer.from(data.subarray(0, nul)).toString('latin1'), rest: nul + 1 }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true })

/**
 * tEXt and zTXt text is Latin-1 by the PNG spec, but card writers put UTF-8 JSON there. Bytes
 * that are valid UTF-8 and not plain ASCII are read as UTF-8: Latin-1 text with accents is
 * almost never valid UTF-8 (an accented letter would have to be followed by 0x80-0xBF bytes).
 */
function latin1OrUtf8(bytes: Uint8Array): string {
  if (isAscii(bytes)) return Buffer.from(bytes).toString('latin1')
  try {
    return strictUtf8.decode(bytes)
  } catch {
    return Buffer.from(bytes).toString('latin1')
  }
}

function decodeTextChunk(chunk: PngChunk, keyword: string, rest: number): PngText | null {
  const data = chunk.data
  if (chunk.type === 'tEXt') return { type: 'tEXt', keyword, text: latin1OrUtf8(data.subarray(rest)) }
  if (chunk.type === 'zTXt') {
    if (data[rest] !== 0) return null // compression method: only 0 (zlib) is defined
    return { type: 'zTXt', keyword, text: latin1OrUtf8(inflateText(data.subarray(rest + 1), keyword)) }
  }
  // iTXt: compression flag, method, language tag NUL, translated keyword NUL, UTF-8 text
  const flag = data[rest]
  const method = data[rest + 1]
  const languageEnd = data.indexOf(0, rest + 2)
  const translatedEnd = languageEnd < 0 ? -1 : data.indexOf(0, languageEnd + 1)
  if (translatedEnd < 0 || (flag !== 0 && flag !== 1) || (flag === 1 && method !== 0)) return null
  const body = data.subarray(translatedEnd + 1)
  const text = flag === 1 ? inflateText(body, keyword) : Buffer.from(body)
  return { type: 'iTXt', keyword, text: text.toString('utf8') }
}

/**
 * The text chunks (tEXt, zTXt, iTXt) whose keyword is in `keywords` (compared without case), or
 * all of them. A wanted chunk over CARD_LIMITS.maxTextChunkBytes throws `too_large`; unwanted
 * chunks are never decoded. Malformed text chunks are skipped.
 */
export function readPngTexts(chunks: readonly PngChunk[], keywords?: readonly string[]): PngText[] {
  const wanted = keywords ? new Set(keywords.map((k) => k.toLowerCase())) : null
  const texts: PngText[] = []
  for (const chunk of chunks) {
    if (!TEXT_CHUNK_TYPES.has(chunk.type)) continue
    const head = textKeyword(chunk.data)
    if (!head) continue
    if (wanted && !wanted.has(head.keyword.toLowerCase())) continue
    if (chunk.data.length > CARD_LIMITS.maxTextChunkBytes) {
      throw new CardError('too_large', `The PNG text ${head.keyword} is over the limit`, {
        chunk: head.keyword,
        limit: CARD_LIMITS.maxTextChunkBytes,
      })
    }
    const text = decodeTextChunk(chunk, head.keyword, head.rest)
    if (text) texts.push(text)
  }
  return texts
}

/** The keyword of a text chunk, or null for other chunks and malformed ones. */
export function textChunkKeyword(chunk: PngChunk): string | null {
  return TEXT_CHUNK_TYPES.has(chunk.type) ? (textKeyword(chunk.data)?.keyword ?? null) : null
}

/** A tEXt chunk. Its text must be Latin-1 (card payloads are base64, so ASCII). */
export function textChunk(keyword: string, text: string): PngChunk {
  if (!/^[\x20-\x7e\xa1-\xff]{1,79}$/.test(keyword)) throw new TypeError(`Bad PNG text keyword ${keyword}`)
  if (/[\u0100-\uffff]/.test(text)) throw new TypeError('tEXt holds Latin-1 only')
  return {
    type: 'tEXt',
    data: Buffer.concat([Buffer.from(keyword, 'latin1'), Buffer.from([0]), Buffer.from(text, 'latin1')]),
  }
}

/**
 * Inserts tEXt chunks just before IEND, first removing every text chunk (any of the three types)
 * whose keyword matches one of the new ones, without case. Returns the whole PNG.
 */
export function setPngTexts(png: Uint8Array, texts: Readonly<Record<string, string>>): Buffer {
  const replaced = new Set(Object.keys(texts).map((k) => k.toLowerCase()))
  const kept = readPngChunks(png).filter((chunk) => {
    const keyword = textChunkKeyword(chunk)
    return keyword === null || !replaced.has(keyword.toLowerCase())
  })
  const iend = kept.pop() as PngChunk // readPngChunks ends with IEND
  const added = Object.entries(texts).map(([keyword, text]) => textChunk(keyword, text))
  return writePng([...kept, ...added, iend])
}
