import { CARD_LIMITS, type CardAsset, type CardFile } from './card-types.ts'
import type { Report } from './normalize-card.ts'
import { type PngChunk, textChunkKeyword } from './png-chunks.ts'
import type { ZipArchive } from './zip-reader.ts'

/**
 * A card's embedded assets (V3: other icons, backgrounds, emotions, user icons, other files),
 * read from a CHARX (`embeded://<path>`, a zip entry) or a PNG (`__asset:<path>`, a
 * `chara-ext-asset_:<path>` tEXt chunk of base64), and written back the same two ways (ADR 047).
 * They are kept as bytes, never interpreted: images are told from their first bytes, other
 * files get a content type from their extension (never HTML: nothing here is ever served inline).
 */

export const EMBEDDED_URI = /^embedd?ed:\/\/\/?(.+)$/
export const PNG_ASSET_URI = /^__asset:(.+)$/
export const PNG_ASSET_PREFIX = 'chara-ext-asset_'

/** Picture formats told from their first bytes, with their extension; null for anything else. */
export function sniffPicture(bytes: Uint8Array): { ext: string; contentType: string } | null {
  const ascii = (from: number, to: number) => Buffer.from(bytes.subarray(from, to)).toString('latin1')
  if (bytes[0] === 0x89 && ascii(1, 4) === 'PNG') return { ext: 'png', contentType: 'image/png' }
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return { ext: 'jpg', contentType: 'image/jpeg' }
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return { ext: 'webp', contentType: 'image/webp' }
  if (ascii(0, 4) === 'GIF8') return { ext: 'gif', contentType: 'image/gif' }
  if (ascii(4, 12) === 'ftypavif') return { ext: 'avif', contentType: 'image/avif' }
  return null
}

/** Content types of the non-picture files cards carry (by extension); anything else is octet-stream. */
const OTHER_TYPES: Record<string, string> = {
  mp3: 'audio/mpeg',
  ogg: 'audio/ogg',
  wav: 'audio/wav',
  m4a: 'audio/mp4',
  flac: 'audio/flac',
  mp4: 'video/mp4',
  webm: 'video/webm',
  ttf: 'font/ttf',
  otf: 'font/otf',
  woff2: 'font/woff2',
  txt: 'text/plain',
  json: 'application/json',
}

/** The stored content type: the sniffed picture's, else the extension's, else octet-stream. */
export function contentTypeOf(bytes: Uint8Array, ext: string): string {
  return sniffPicture(bytes)?.contentType ?? OTHER_TYPES[ext.toLowerCase()] ?? 'application/octet-stream'
}

/** The spec's folder under `assets/<type>/` for a file of this content type. */
function folderOf(contentType: string): 'images' | 'audio' | 'video' | 'fonts' | 'other' {
  if (contentType.startsWith('image/')) return 'images'
  if (contentType.startsWith('audio/')) return 'audio'
  if (contentType.startsWith('video/')) return 'video'
  if (contentType.startsWith('font/')) return 'fonts'
  return 'other'
}

/**
 * A path a card names for an asset, refused when it could mean something outside the card on a
 * reader that writes files (`..`, `.`, absolute, backslashes, control characters, empty segments).
 */
export function isSafeAssetPath(path: string): boolean {
  if (path.length > 512 || path.startsWith('/') || path.includes('\\')) return false
  if ([...path].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) return false
  return path.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..')
}

/** A name or type as one safe path segment of an export (letters, digits, `_`, `-`, `.` inside). */
function segment(text: string, fallback: string): string {
  const cleaned = text
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N}_\-.]+/gu, '_')
    .replace(/^[.]+|[.]+$/g, '')
    .slice(0, 80)
  return cleaned === '' ? fallback : cleaned
}

type Budget = { count: number; bytes: number }

/**
 * Whether one more asset of `size` bytes fits the card's bounds; reports it (`asset_dropped`)
 * when it does not. Counts it when it does.
 */
function fits(asset: CardAsset, size: number, budget: Budget, report: Report): boolean {
  if (
    budget.count >= CARD_LIMITS.maxAssets ||
    size > CARD_LIMITS.maxAssetBytes ||
    budget.bytes + size > CARD_LIMITS.maxAssetsTotalBytes
  ) {
    report.ignore('asset_dropped', `${asset.type}/${asset.name}`)
    return false
  }
  budget.count += 1
  budget.bytes += size
  return true
}

function fileOf(asset: CardAsset, bytes: Buffer): CardFile {
  return { type: asset.type, name: asset.name, ext: asset.ext, bytes, contentType: contentTypeOf(bytes, asset.ext) }
}

/**
 * The CHARX's embedded assets other than `main` (the avatar): each one whose path is safe and
 * names an entry, within the bounds, read through the zip reader (only that entry inflated,
 * capped at its declared size, CRC checked: a lying entry refuses the card). The rest are
 * reported `asset_dropped`. Returns the assets that stay in `data.assets` (non-embedded ones).
 */
export function takeCharxAssets(
  assets: CardAsset[],
  main: CardAsset | undefined,
  zip: ZipArchive,
  report: Report,
): { kept: CardAsset[]; files: CardFile[] } {
  const kept: CardAsset[] = []
  const files: CardFile[] = []
  const budget: Budget = { count: 0, bytes: 0 }
  for (const asset of assets) {
    const path = EMBEDDED_URI.exec(asset.uri)?.[1]
    if (path === undefined || asset === main) {
      kept.push(asset)
      continue
    }
    const entry = isSafeAssetPath(path) ? zip.entries.get(path) : undefined
    if (!entry || !fits(asset, entry.size, budget, report)) {
      if (!entry) report.ignore('asset_dropped', `${asset.type}/${asset.name}`)
      continue
    }
    files.push(fileOf(asset, zip.read(entry, CARD_LIMITS.maxAssetBytes)))
  }
  return { kept, files }
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

/**
 * The PNG's `__asset:<path>` assets, from its `chara-ext-asset_:<path>` tEXt chunks (base64),
 * within the same bounds; unreadable or missing ones are reported. Chunks no asset names are
 * left out (`png_asset_chunks`). Returns the assets that stay in `data.assets`.
 */
export function takePngAssets(
  assets: CardAsset[],
  chunks: readonly PngChunk[],
  report: Report,
): { kept: CardAsset[]; files: CardFile[] } {
  const byPath = new Map<string, Buffer>()
  for (const chunk of chunks) {
    const keyword = chunk.type === 'tEXt' ? textChunkKeyword(chunk) : null
    if (keyword?.startsWith(`${PNG_ASSET_PREFIX}:`)) {
      byPath.set(keyword.slice(PNG_ASSET_PREFIX.length + 1), chunk.data.subarray(keyword.length + 1) as Buffer)
    }
  }
  const kept: CardAsset[] = []
  const files: CardFile[] = []
  const used = new Set<string>()
  const budget: Budget = { count: 0, bytes: 0 }
  for (const asset of assets) {
    const path = PNG_ASSET_URI.exec(asset.uri)?.[1]
    if (path === undefined) {
      kept.push(asset)
      continue
    }
    const text = byPath.get(path)
    if (text !== undefined) used.add(path)
    const compact = text === undefined ? '' : Buffer.from(text).toString('latin1').replace(/\s+/g, '')
    // 3 bytes per 4 base64 characters: the size is known before decoding.
    const size = Math.floor((compact.length * 3) / 4)
    if (text === undefined || compact === '' || !BASE64.test(compact) || !fits(asset, size, budget, report)) {
      if (text === undefined || compact === '' || !BASE64.test(compact)) {
        report.ignore('asset_dropped', `${asset.type}/${asset.name}`)
      }
      continue
    }
    files.push(fileOf(asset, Buffer.from(compact, 'base64')))
  }
  if ([...byPath.keys()].some((path) => !used.has(path))) report.ignore('png_asset_chunks')
  return { kept, files }
}

/** Paths of the files in a CHARX export, each unique: `assets/<type>/<images|audio|...>/<name>.<ext>`. */
export function charxPathsOf(files: readonly CardFile[], taken: ReadonlySet<string>): string[] {
  const used = new Set(taken)
  return files.map((file) => {
    const base = `assets/${segment(file.type, 'other')}/${folderOf(file.contentType)}/${segment(file.name, 'asset')}`
    const ext = segment(file.ext, 'bin')
    let path = `${base}.${ext}`
    for (let n = 2; used.has(path); n++) path = `${base}-${n}.${ext}`
    used.add(path)
    return path
  })
}

/** The asset entry a file gets in `data.assets`, pointing at `uri`. */
export function assetEntryOf(file: CardFile, uri: string): CardAsset {
  return { type: file.type, uri, name: file.name, ext: file.ext }
}

/** Whether the files are small enough to ride in a PNG card (CARD_LIMITS.maxPngAssetsBytes together). */
export function fitPng(files: readonly CardFile[]): boolean {
  return files.reduce((sum, file) => sum + file.bytes.length, 0) <= CARD_LIMITS.maxPngAssetsBytes
}

/** The PNG's asset chunks, keyed by their index (`chara-ext-asset_:0`, read as `__asset:0`), as RisuAI writes them. */
export function pngAssetTexts(files: readonly CardFile[]): { texts: Record<string, string>; assets: CardAsset[] } {
  const texts: Record<string, string> = {}
  const assets = files.map((file, i) => {
    texts[`${PNG_ASSET_PREFIX}:${i}`] = file.bytes.toString('base64')
    return assetEntryOf(file, `__asset:${i}`)
  })
  return { texts, assets }
}
