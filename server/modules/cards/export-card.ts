import { type Zippable, zipSync } from 'fflate'
import { addOtherFields } from '#server/lib/other-fields.ts'
import { loadSharp } from '#server/lib/sharp.ts'
import { assetEntryOf, charxPathsOf, fitPng, pngAssetTexts } from './card-assets.ts'
import { multilingualNotesOf, taleweaveExtensionOf } from './card-languages.ts'
import { CardError, type CharacterBook, type CharacterDraft, type LorebookEntry } from './card-types.ts'
import { setPngTexts } from './png-chunks.ts'

/**
 * Writes a draft as a Character Card. The V3 object is the spec's, plus the six V1 fields at the
 * top level as SillyTavern writes them, so V1-only readers still get the character; its `data`
 * carries every V2 field, so V2 readers that ignore `spec` do too. The PNG carries the V3 card in
 * `ccv3` and a V2 rendering (without the V3-only fields) in `chara`. The languages (the source's
 * and the translations) go in `creator_notes_multilingual` (V3) and `extensions.taleweave` (both),
 * see card-languages.ts.
 */

type Json = Record<string, unknown>

function put(target: Json, key: string, value: unknown) {
  if (value !== undefined) target[key] = value
}

function entryJson(entry: LorebookEntry, version: 'v2' | 'v3'): Json {
  const out: Json = {
    keys: entry.keys,
    secondary_keys: entry.secondaryKeys,
    content: entry.content,
    enabled: entry.enabled,
    insertion_order: entry.insertionOrder,
    extensions: entry.extensions,
  }
  if (version === 'v3') out.use_regex = entry.useRegex
  put(out, 'case_sensitive', entry.caseSensitive)
  put(out, 'constant', entry.constant)
  put(out, 'selective', entry.selective)
  put(out, 'name', entry.name)
  put(out, 'comment', entry.comment)
  put(out, 'priority', entry.priority)
  put(out, 'id', entry.id)
  put(out, 'position', entry.position)
  return addOtherFields(out, entry.otherFields)
}

function bookJson(book: CharacterBook, version: 'v2' | 'v3'): Json {
  const out: Json = {}
  put(out, 'name', book.name)
  put(out, 'description', book.description)
  put(out, 'scan_depth', book.scanDepth)
  put(out, 'token_budget', book.tokenBudget)
  put(out, 'recursive_scanning', book.recursiveScanning)
  out.extensions = book.extensions
  out.entries = book.entries.map((entry) => entryJson(entry, version))
  return addOtherFields(out, book.otherFields)
}

function v1Fields(draft: CharacterDraft): Json {
  return {
    name: draft.name,
    description: draft.description,
    personality: draft.personality,
    scenario: draft.scenario,
    first_mes: draft.firstMessage,
    mes_example: draft.exampleDialogue,
  }
}

function dataJson(draft: CharacterDraft, version: 'v2' | 'v3'): Json {
  const data: Json = {
    ...v1Fields(draft),
    creator_notes: draft.creatorNotes,
    system_prompt: draft.systemPrompt,
    post_history_instructions: draft.postHistoryInstructions,
    alternate_greetings: draft.alternateGreetings,
    tags: draft.tags,
    creator: draft.creator,
    character_version: draft.characterVersion,
    extensions: {
      ...draft.extensions,
      ...(draft.nsfw ? { nsfw: true } : {}),
      // Ours, in V2 too: the source language and the translations (ADR 041).
      ...taleweaveExtensionOf(draft),
    },
  }
  if (draft.characterBook) data.character_book = bookJson(draft.characterBook, version)
  if (version === 'v3') {
    data.group_only_greetings = draft.groupOnlyGreetings
    if (draft.assets.length > 0) data.assets = draft.assets
    put(data, 'nickname', draft.nickname)
    put(data, 'creator_notes_multilingual', multilingualNotesOf(draft))
    put(data, 'source', draft.source)
    put(data, 'creation_date', draft.creationDate)
    put(data, 'modification_date', draft.modificationDate)
  }
  return addOtherFields(data, draft.otherDataFields)
}

/** The draft as a `chara_card_v3` object (with V1 fields at the top level and V2 fields in `data`). */
export function exportCardJson(draft: CharacterDraft): Json {
  const card = { spec: 'chara_card_v3', spec_version: '3.0', data: dataJson(draft, 'v3'), ...v1Fields(draft) }
  return addOtherFields(card, draft.otherCardFields)
}

/** The draft as a `chara_card_v2` object, for the PNG `chara` chunk and V2-only readers. */
export function exportCardV2Json(draft: CharacterDraft): Json {
  const card = { spec: 'chara_card_v2', spec_version: '2.0', data: dataJson(draft, 'v2'), ...v1Fields(draft) }
  return addOtherFields(card, draft.otherCardFields)
}

const MAX_INPUT_PIXELS = 40_000_000
export const DEFAULT_CARD_SIZE = { width: 400, height: 600 } as const

async function avatarAsPng(avatar: Buffer | null | undefined): Promise<Buffer> {
  const sharp = await loadSharp()
  if (!avatar) {
    return sharp({ create: { ...DEFAULT_CARD_SIZE, channels: 3, background: '#2f3542' } })
      .png()
      .toBuffer()
  }
  try {
    // Re-encoding drops whatever else the file carried (EXIF, old card chunks) and checks it is an image.
    return await sharp(avatar, { limitInputPixels: MAX_INPUT_PIXELS, animated: false }).png().toBuffer()
  } catch {
    throw new CardError('unsupported', 'The avatar is not an image we can turn into a PNG')
  }
}

function base64Json(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64')
}

/**
 * A PNG card: the avatar (given here, else the draft's, else a plain 400x600 picture) as PNG, with
 * `chara` (V2) and `ccv3` (V3) tEXt chunks before IEND. The draft's files ride along as
 * `chara-ext-asset_:<n>` chunks named `__asset:<n>` in the V3 card when they are
 * CARD_LIMITS.maxPngAssetsBytes or less together; bigger sets are left out (a CHARX carries them).
 */
export async function exportCardPng(draft: CharacterDraft, avatarPng?: Buffer): Promise<Buffer> {
  const png = await avatarAsPng(avatarPng ?? draft.avatar)
  const files = fitPng(draft.files) ? pngAssetTexts(draft.files) : { texts: {}, assets: [] }
  return setPngTexts(png, {
    chara: base64Json(exportCardV2Json(draft)),
    ccv3: base64Json(exportCardJson({ ...draft, assets: [...draft.assets, ...files.assets] })),
    ...files.texts,
  })
}

/** Picture formats a CHARX icon keeps as given, told from their first bytes, with the file extension for each. */
function pictureExtension(bytes: Uint8Array): string | null {
  const ascii = (from: number, to: number) => Buffer.from(bytes.subarray(from, to)).toString('latin1')
  if (ascii(1, 4) === 'PNG') return 'png'
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpg'
  if (ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'webp'
  if (ascii(0, 4) === 'GIF8') return 'gif'
  if (ascii(4, 12) === 'ftypavif') return 'avif'
  return null
}

/** Where a CHARX keeps its main icon (V3 spec: `assets/{type}/{images|audio|...}/{name}.{ext}`). */
export const CHARX_ICON_DIR = 'assets/icon/images'

/**
 * A CHARX card (V3 spec): a zip with `card.json` (the V3 card) and the avatar (given here, else the
 * draft's) as `assets/icon/images/main.<ext>`, referenced in `data.assets` as the main icon
 * (`embeded://`, the spec's spelling). The picture's bytes are kept as given when they are PNG,
 * JPEG, WebP, GIF or AVIF (re-encoded as PNG otherwise). The icon the draft had (`ccdefault:`,
 * from an imported PNG or CHARX) gives way to it; the other assets stay as they are (only
 * non-embedded ones survive an import). Without a picture, the zip holds `card.json` alone.
 */
export async function exportCardCharx(draft: CharacterDraft, avatar?: Buffer): Promise<Buffer> {
  const picture = avatar ?? draft.avatar
  let icon: { path: string; bytes: Uint8Array; ext: string } | null = null
  if (picture) {
    const ext = pictureExtension(picture)
    icon =
      ext === null
        ? { path: `${CHARX_ICON_DIR}/main.png`, bytes: await avatarAsPng(picture), ext: 'png' }
        : { path: `${CHARX_ICON_DIR}/main.${ext}`, bytes: picture, ext }
  }
  const paths = charxPathsOf(draft.files, new Set(icon ? [icon.path] : []))
  const assets = [
    ...(icon
      ? [
          { type: 'icon', uri: `embeded://${icon.path}`, name: 'main', ext: icon.ext },
          ...draft.assets.filter((a) => !(a.type === 'icon' && (a.name === 'main' || a.uri === 'ccdefault:'))),
        ]
      : draft.assets),
    ...draft.files.map((file, i) => assetEntryOf(file, `embeded://${paths[i]}`)),
  ]
  const files: Zippable = {
    'card.json': [Buffer.from(JSON.stringify(exportCardJson({ ...draft, assets })), 'utf8'), { level: 6 }],
  }
  // Pictures (and sound, video) are compressed already: stored, not deflated.
  if (icon) files[icon.path] = [icon.bytes, { level: 0 }]
  draft.files.forEach((file, i) => {
    const packed = /^(image|audio|video)\//.test(file.contentType)
    files[paths[i] as string] = [file.bytes, { level: packed ? 0 : 6 }]
  })
  return Buffer.from(zipSync(files))
}
