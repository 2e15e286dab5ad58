import sharp from 'sharp'
import { CardError, type CharacterBook, type CharacterDraft, type LorebookEntry } from './card-types.ts'
import { setPngTexts } from './png-chunks.ts'

/**
 * Writes a draft as a Character Card. The V3 object is the spec's, plus the six V1 fields at the
 * top level as SillyTavern writes them, so V1-only readers still get the character; its `data`
 * carries every V2 field, so V2 readers that ignore `spec` do too. The PNG carries the V3 card in
 * `ccv3` and a V2 rendering (without the V3-only fields) in `chara`.
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
  return out
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
  return out
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
    extensions: draft.nsfw ? { ...draft.extensions, nsfw: true } : draft.extensions,
  }
  if (draft.characterBook) data.character_book = bookJson(draft.characterBook, version)
  if (version === 'v3') {
    data.group_only_greetings = draft.groupOnlyGreetings
    if (draft.assets.length > 0) data.assets = draft.assets
    put(data, 'nickname', draft.nickname)
    put(data, 'creator_notes_multilingual', draft.creatorNotesMultilingual)
    put(data, 'source', draft.source)
    put(data, 'creation_date', draft.creationDate)
    put(data, 'modification_date', draft.modificationDate)
  }
  return data
}

/** The draft as a `chara_card_v3` object (with V1 fields at the top level and V2 fields in `data`). */
export function exportCardJson(draft: CharacterDraft): Json {
  return { spec: 'chara_card_v3', spec_version: '3.0', data: dataJson(draft, 'v3'), ...v1Fields(draft) }
}

/** The draft as a `chara_card_v2` object, for the PNG `chara` chunk and V2-only readers. */
export function exportCardV2Json(draft: CharacterDraft): Json {
  return { spec: 'chara_card_v2', spec_version: '2.0', data: dataJson(draft, 'v2'), ...v1Fields(draft) }
}

const MAX_INPUT_PIXELS = 40_000_000
export const DEFAULT_CARD_SIZE = { width: 400, height: 600 } as const

async function avatarAsPng(avatar: Buffer | null | undefined): Promise<Buffer> {
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
 * `chara` (V2) and `ccv3` (V3) tEXt chunks before IEND.
 */
export async function exportCardPng(draft: CharacterDraft, avatarPng?: Buffer): Promise<Buffer> {
  const png = await avatarAsPng(avatarPng ?? draft.avatar)
  return setPngTexts(png, {
    chara: base64Json(exportCardV2Json(draft)),
    ccv3: base64Json(exportCardJson(draft)),
  })
}
