import { crc32, inflateRawSync } from 'node:zlib'
import { CARD_LIMITS, CardError } from './card-types.ts'

/**
 * A small zip reader for CHARX files that trusts nothing it reads. The central directory is
 * checked as a whole before anything is inflated (entry count, the sum of declared sizes, the
 * compression ratio of big entries, compressed sizes no deflate stream could have), and then
 * only the entries asked for are inflated, each stopped by zlib as soon as it goes past its
 * declared size and checked against its CRC. fflate's unzipSync would inflate into a buffer of
 * the declared size but keep decoding past it, so a lying entry would still cost CPU.
 */

export type ZipEntry = {
  name: string
  method: number
  flags: number
  crc: number
  compressedSize: number
  size: number
  localHeaderOffset: number
}

const EOCD_SIGNATURE = 0x06054b50
const CENTRAL_SIGNATURE = 0x02014b50
const LOCAL_SIGNATURE = 0x04034b50
const EOCD_MIN = 22
const MAX_COMMENT = 0xffff

/** The largest compressed size deflate can give for `size` bytes (stored blocks: 5 bytes per 64 KiB) plus slack. */
function maxDeflatedSize(size: number): number {
  return size + Math.ceil(size / 16_384) * 5 + 1024
}

function corrupt(message: string, details?: Record<string, unknown>): CardError {
  return new CardError('corrupt_zip', message, details)
}

export type ZipArchive = { entries: Map<string, ZipEntry>; read: (entry: ZipEntry, maxBytes: number) => Buffer }

export function openZip(bytes: Uint8Array): ZipArchive {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let eocd = -1
  for (let i = bytes.length - EOCD_MIN; i >= 0 && i >= bytes.length - EOCD_MIN - MAX_COMMENT; i--) {
    if (view.getUint32(i, true) === EOCD_SIGNATURE) {
      eocd = i
      break
    }
  }
  if (eocd < 0) throw corrupt('No end of central directory record')
  const count = view.getUint16(eocd + 10, true)
  const cdSize = view.getUint32(eocd + 12, true)
  const cdOffset = view.getUint32(eocd + 16, true)
  if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) {
    throw new CardError('unsupported', 'ZIP64 archives are not read')
  }
  if (count > CARD_LIMITS.maxZipEntries) {
    throw new CardError('zip_too_large', 'Too many entries in the zip', {
      entries: count,
      limit: CARD_LIMITS.maxZipEntries,
    })
  }
  if (cdOffset + cdSize > eocd) throw corrupt('The central directory lies outside the file')

  const entries = new Map<string, ZipEntry>()
  let declaredTotal = 0
  let p = cdOffset
  for (let i = 0; i < count; i++) {
    if (p + 46 > eocd || view.getUint32(p, true) !== CENTRAL_SIGNATURE) throw corrupt('Broken central directory')
    const nameLength = view.getUint16(p + 28, true)
    const extraLength = view.getUint16(p + 30, true)
    const commentLength = view.getUint16(p + 32, true)
    if (p + 46 + nameLength > eocd) throw corrupt('Broken central directory')
    const entry: ZipEntry = {
      flags: view.getUint16(p + 8, true),
      method: view.getUint16(p + 10, true),
      crc: view.getUint32(p + 16, true),
      compressedSize: view.getUint32(p + 20, true),
      size: view.getUint32(p + 24, true),
      localHeaderOffset: view.getUint32(p + 42, true),
      name: Buffer.from(bytes.subarray(p + 46, p + 46 + nameLength)).toString('utf8'),
    }
    p += 46 + nameLength + extraLength + commentLength
    if (entry.size === 0xffffffff || entry.compressedSize === 0xffffffff || entry.localHeaderOffset === 0xffffffff) {
      throw new CardError('unsupported', 'ZIP64 entries are not read')
    }
    if (entry.localHeaderOffset + 30 + entry.compressedSize > cdOffset) {
      throw corrupt('An entry lies outside the file', { entry: entry.name })
    }
    declaredTotal += entry.size
    if (declaredTotal > CARD_LIMITS.maxZipUncompressedBytes) {
      throw new CardError('zip_too_large', 'The zip unpacks to more than the limit', {
        limit: CARD_LIMITS.maxZipUncompressedBytes,
      })
    }
    if (
      entry.size >= CARD_LIMITS.ratioCheckFromBytes &&
      entry.size > CARD_LIMITS.maxCompressionRatio * Math.max(entry.compressedSize, 1)
    ) {
      throw new CardError('zip_too_large', 'A zip entry is compressed suspiciously well', {
        entry: entry.name,
        limit: CARD_LIMITS.maxCompressionRatio,
      })
    }
    if (entry.compressedSize > maxDeflatedSize(entry.size)) {
      throw corrupt('A zip entry is bigger compressed than its declared size allows', { entry: entry.name })
    }
    if (!entry.name.endsWith('/')) entries.set(entry.name, entry)
  }

  function read(entry: ZipEntry, maxBytes: number): Buffer {
    if (entry.flags & 0x1) throw new CardError('unsupported', 'Encrypted zip entries are not read')
    if (entry.method !== 0 && entry.method !== 8) {
      throw new CardError('unsupported', `Zip compression method ${entry.method} is not read`, { entry: entry.name })
    }
    if (entry.size > maxBytes) {
      throw new CardError('zip_too_large', 'A zip entry is over its limit', { entry: entry.name, limit: maxBytes })
    }
    const h = entry.localHeaderOffset
    if (view.getUint32(h, true) !== LOCAL_SIGNATURE) throw corrupt('Broken local header', { entry: entry.name })
    const start = h + 30 + view.getUint16(h + 26, true) + view.getUint16(h + 28, true)
    const end = start + entry.compressedSize
    if (end > cdOffset) throw corrupt('An entry lies outside the file', { entry: entry.name })
    const raw = bytes.subarray(start, end)
    let data: Buffer
    if (entry.method === 0) {
      if (entry.compressedSize !== entry.size) throw corrupt('A stored entry has two sizes', { entry: entry.name })
      data = Buffer.from(raw)
    } else {
      try {
        // zlib checks the output size every chunk and stops: a lie costs at most one chunk more.
        data = inflateRawSync(raw, { maxOutputLength: Math.max(entry.size, 1) })
      } catch (error) {
        if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') {
          throw new CardError('zip_too_large', 'A zip entry inflates past its declared size', { entry: entry.name })
        }
        throw corrupt('A zip entry does not inflate', { entry: entry.name })
      }
    }
    if (data.length !== entry.size) throw corrupt('A zip entry is not its declared size', { entry: entry.name })
    if (crc32(data) >>> 0 !== entry.crc) throw corrupt('A zip entry has a wrong CRC', { entry: entry.name })
    return data
  }

  return { entries, read }
}
