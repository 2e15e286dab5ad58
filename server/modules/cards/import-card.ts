import type { Locale } from '#contracts/locales.ts'
import { EMBEDDED_URI, PNG_ASSET_URI, takeCharxAssets, takePngAssets } from './card-assets.ts'
import { CARD_LIMITS, CardError, type CardVersion, type CharacterDraft, type ImportReport } from './card-types.ts'
import { type CardHints, normalizeCard, Report } from './normalize-card.ts'
import { hasPngSignature, PNG_SIGNATURE, readPngChunks, readPngTexts, writePng } from './png-chunks.ts'
import { openZip } from './zip-reader.ts'

export type ImportResult = { draft: CharacterDraft; version: CardVersion; report: ImportReport }
export type CardFormat = 'png' | 'charx' | 'json'

const ZIP_SIGNATURE = [0x50, 0x4b, 0x03, 0x04]
const EMPTY_ZIP_SIGNATURE = [0x50, 0x4b, 0x05, 0x06]

function startsWith(bytes: Uint8Array, prefix: readonly number[]): boolean {
  return bytes.length >= prefix.length && prefix.every((b, i) => bytes[i] === b)
}

/** Image formats some sites put cards in (EXIF, XMP): recognised so the error can say so. */
function isOtherImage(bytes: Uint8Array): boolean {
  const ascii = (from: number, to: number) => Buffer.from(bytes.subarray(from, to)).toString('latin1')
  return (
    startsWith(bytes, [0xff, 0xd8, 0xff]) ||
    ascii(0, 4) === 'GIF8' ||
    (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') ||
    ascii(4, 12) === 'ftypavif'
  )
}

/** The container, from the bytes alone (never the file name). Throws for empty, oversized and unsupported files. */
export function detectCardFormat(bytes: Uint8Array): CardFormat {
  if (bytes.length === 0) throw new CardError('empty_file', 'The file is empty')
  if (bytes.length > CARD_LIMITS.maxFileBytes) {
    throw new CardError('too_large', 'The file is over the limit', { limit: CARD_LIMITS.maxFileBytes })
  }
  if (hasPngSignature(bytes)) return 'png'
  if (bytes.length < PNG_SIGNATURE.length && startsWith(bytes, [...PNG_SIGNATURE.subarray(0, bytes.length)])) {
    if (bytes.length >= 4) throw new CardError('truncated_png', 'The PNG ends inside its signature')
  }
  if (startsWith(bytes, ZIP_SIGNATURE)) return 'charx'
  if (startsWith(bytes, EMPTY_ZIP_SIGNATURE)) throw new CardError('not_a_card', 'The zip is empty')
  if (isOtherImage(bytes)) throw new CardError('unsupported', 'Only PNG images carry cards we read')
  return 'json'
}

const UTF8_BOM = [0xef, 0xbb, 0xbf]

/** Card JSON bytes -> value. Non-JSON text is `not_a_card`; broken JSON is `bad_json`. */
function parseJsonBytes(bytes: Uint8Array): unknown {
  const body = startsWith(bytes, UTF8_BOM) ? bytes.subarray(3) : bytes
  if (body.length > CARD_LIMITS.maxJsonBytes) {
    throw new CardError('too_large', 'The card JSON is over the limit', { limit: CARD_LIMITS.maxJsonBytes })
  }
  const text = Buffer.from(body).toString('utf8')
  const first = text.trimStart()[0]
  if (first !== '{' && first !== '[') throw new CardError('not_a_card', 'The file is not JSON')
  try {
    return JSON.parse(text)
  } catch {
    throw new CardError('bad_json', 'The card JSON does not parse')
  }
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/

/** A `chara`/`ccv3` chunk's text: base64 of UTF-8 JSON, or (tolerated) the JSON itself. */
function decodeCardText(text: string, keyword: string, report: Report): unknown {
  const trimmed = text.trim()
  if (trimmed.startsWith('{')) {
    report.repair('json_not_base64', keyword)
    return parseJsonBytes(Buffer.from(trimmed, 'utf8'))
  }
  const compact = trimmed.replace(/\s+/g, '')
  if (compact === '' || !BASE64.test(compact)) {
    throw new CardError('bad_base64', `The ${keyword} chunk is not base64`, { chunk: keyword })
  }
  return parseJsonBytes(Buffer.from(compact, 'base64'))
}

/**
 * Chunks the avatar keeps: the image and how to show it (colour, transparency, APNG frames).
 * Everything else stays behind: the card texts, EXIF, comments, private chunks.
 */
const AVATAR_CHUNKS = new Set([
  'IHDR',
  'PLTE',
  'IDAT',
  'IEND',
  'tRNS',
  'gAMA',
  'cHRM',
  'sRGB',
  'iCCP',
  'sBIT',
  'bKGD',
  'pHYs',
  'acTL',
  'fcTL',
  'fdAT',
])

function importPng(bytes: Uint8Array, report: Report, hints: CardHints) {
  const chunks = readPngChunks(bytes)
  const texts = readPngTexts(chunks, ['ccv3', 'chara'])
  const ccv3 = texts.find((t) => t.keyword.toLowerCase() === 'ccv3')
  const chara = texts.find((t) => t.keyword.toLowerCase() === 'chara')
  if (!ccv3 && !chara) throw new CardError('not_a_card', 'The PNG carries no character card')
  let value: unknown
  if (ccv3) {
    try {
      value = decodeCardText(ccv3.text, 'ccv3', report)
    } catch (error) {
      if (!chara || !(error instanceof CardError) || (error.code !== 'bad_base64' && error.code !== 'bad_json')) {
        throw error
      }
      report.repair('ccv3_unreadable')
      value = decodeCardText(chara.text, 'chara', report)
    }
  } else if (chara) {
    value = decodeCardText(chara.text, 'chara', report)
  }
  const { draft, version } = normalizeCard(value, report, hints)
  const { kept, files } = takePngAssets(draft.assets, chunks, report)
  draft.assets = kept
  draft.files = files
  const avatar = writePng(chunks.filter((c) => AVATAR_CHUNKS.has(c.type)))
  if (avatar.length > CARD_LIMITS.maxAvatarBytes) report.ignore('avatar_too_large')
  else draft.avatar = avatar
  return { draft, version }
}

function importCharx(bytes: Uint8Array, report: Report, hints: CardHints) {
  const zip = openZip(bytes)
  const cardEntry = zip.entries.get('card.json')
  if (!cardEntry) throw new CardError('not_a_card', 'The CHARX has no card.json')
  const value = parseJsonBytes(zip.read(cardEntry, CARD_LIMITS.maxJsonBytes))
  const { draft, version } = normalizeCard(value, report, hints)

  const icons = draft.assets.filter((a) => a.type === 'icon')
  const main = icons.find((a) => a.name === 'main') ?? icons[0]
  const { kept, files } = takeCharxAssets(draft.assets, main, zip, report)
  draft.files = files
  const assets = []
  for (const asset of kept) {
    const path = EMBEDDED_URI.exec(asset.uri)?.[1]
    if (path === undefined || asset !== main) {
      assets.push(asset)
      continue
    }
    const entry = zip.entries.get(path)
    if (!entry) {
      report.ignore('avatar_missing', path)
      continue
    }
    if (entry.size > CARD_LIMITS.maxAvatarBytes) {
      report.ignore('avatar_too_large', path)
      continue
    }
    draft.avatar = zip.read(entry, CARD_LIMITS.maxAvatarBytes)
    // The avatar now travels beside the card: on a PNG export the image itself is the icon.
    assets.push({ type: 'icon', uri: 'ccdefault:', name: asset.name, ext: 'png' })
    report.repair('icon_from_charx')
  }
  draft.assets = assets
  return { draft, version }
}

function dropEmbeddedAssets(draft: CharacterDraft, report: Report) {
  draft.assets = draft.assets.filter((asset) => {
    const embedded = EMBEDDED_URI.test(asset.uri) || PNG_ASSET_URI.test(asset.uri)
    if (embedded) report.ignore('asset_dropped', `${asset.type}/${asset.name}`)
    return !embedded
  })
}

/**
 * Reads a Character Card (V1, V2 or V3; PNG, CHARX or JSON, told apart by the bytes) into a
 * draft for the user to review. `filename` only names a character whose card has no name;
 * `language` (the importer's) is the language of the texts when the card does not say (ADR 041).
 * Throws CardError.
 */
export function importCard(bytes: Uint8Array, filename?: string, language?: Locale): ImportResult {
  const report = new Report()
  const hints: CardHints = { filename, language }
  const format = detectCardFormat(bytes)
  let result: { draft: CharacterDraft; version: CardVersion }
  if (format === 'png') result = importPng(bytes, report, hints)
  else if (format === 'charx') result = importCharx(bytes, report, hints)
  else result = normalizeCard(parseJsonBytes(bytes), report, hints)
  // What is left embedded points nowhere: `embeded://` outside a CHARX, `__asset:` outside a PNG.
  dropEmbeddedAssets(result.draft, report)
  return { ...result, report: report.toJSON() }
}
