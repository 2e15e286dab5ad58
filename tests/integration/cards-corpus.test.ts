// Issue 21, "Done when": every real card in ../shared/cards (and in CARDS_DIR, cards the team has
// not seen) is imported through the API, saved without edits the way the browser's form saves it,
// exported as PNG, JSON and CHARX, and each export is compared field by field with the original:
// nothing may be lost but what the import report lists. The exports (and the originals) are read
// by the small readers below, written for this test: a PNG chunk walk, base64 and JSON.parse, and
// a zip central-directory reader on node:zlib. None of the product's card code reads them.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { crc32, inflateRawSync, inflateSync } from 'node:zlib'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { emptyForm, formDataOf, formOfImport } from '#app/features/characters/form-state.ts'
import { ADULT_COOKIE } from '#contracts/catalogue.ts'
import type { EditableRole, ImportResult } from '#contracts/characters.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

type Json = Record<string, unknown>

const repoRoot = fileURLToPath(new URL('../..', import.meta.url))
/** The team's corpus: the repository's sibling `shared/cards` (CI clones the repository elsewhere). */
const CORPUS_DIR = path.resolve(repoRoot, '..', 'shared', 'cards')

function cardFiles(dir: string): string[] {
  if (!existsSync(dir)) return []
  const out: string[] = []
  for (const name of readdirSync(dir).sort()) {
    const full = path.join(dir, name)
    if (statSync(full).isDirectory()) out.push(...cardFiles(full))
    else if (/\.(png|json|charx)$/i.test(name)) out.push(full)
  }
  return out
}

// ---------------------------------------------------------------------------------------------
// Independent readers

/** The text chunks of a PNG (tEXt, zTXt, iTXt) by keyword, after checking every chunk's CRC. */
function pngTexts(bytes: Buffer): { texts: Map<string, Buffer>; width: number; height: number } {
  expect(bytes.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a')
  const texts = new Map<string, Buffer>()
  let width = 0
  let height = 0
  let at = 8
  for (;;) {
    const length = bytes.readUInt32BE(at)
    const type = bytes.toString('latin1', at + 4, at + 8)
    const data = bytes.subarray(at + 8, at + 8 + length)
    expect(bytes.readUInt32BE(at + 8 + length), `CRC of ${type}`).toBe(
      crc32(data, crc32(bytes.subarray(at + 4, at + 8))),
    )
    if (type === 'IHDR') {
      width = data.readUInt32BE(0)
      height = data.readUInt32BE(4)
    }
    const nul = data.indexOf(0)
    const keyword = data.toString('latin1', 0, nul)
    if (type === 'tEXt') texts.set(keyword.toLowerCase(), data.subarray(nul + 1))
    if (type === 'zTXt') texts.set(keyword.toLowerCase(), inflateSync(data.subarray(nul + 2)))
    if (type === 'iTXt') {
      const language = data.indexOf(0, nul + 3)
      const translated = data.indexOf(0, language + 1)
      const body = data.subarray(translated + 1)
      texts.set(keyword.toLowerCase(), data[nul + 1] === 1 ? inflateSync(body) : body)
    }
    at += 12 + length
    if (type === 'IEND') return { texts, width, height }
  }
}

function cardText(raw: Buffer): unknown {
  const text = raw.toString('utf8').trim()
  return JSON.parse(text.startsWith('{') ? text : Buffer.from(text, 'base64').toString('utf8'))
}

/** The files of a zip, found through its central directory (stored or deflated entries). */
function unzip(bytes: Buffer): Map<string, Buffer> {
  let eocd = bytes.length - 22
  while (eocd >= 0 && bytes.readUInt32LE(eocd) !== 0x06054b50) eocd--
  expect(eocd).toBeGreaterThanOrEqual(0)
  const count = bytes.readUInt16LE(eocd + 10)
  let at = bytes.readUInt32LE(eocd + 16)
  const files = new Map<string, Buffer>()
  for (let i = 0; i < count; i++) {
    expect(bytes.readUInt32LE(at)).toBe(0x02014b50)
    const method = bytes.readUInt16LE(at + 10)
    const crc = bytes.readUInt32LE(at + 16)
    const compressed = bytes.readUInt32LE(at + 20)
    const nameLength = bytes.readUInt16LE(at + 28)
    const skip = nameLength + bytes.readUInt16LE(at + 30) + bytes.readUInt16LE(at + 32)
    const local = bytes.readUInt32LE(at + 42)
    const name = bytes.toString('utf8', at + 46, at + 46 + nameLength)
    const start = local + 30 + bytes.readUInt16LE(local + 26) + bytes.readUInt16LE(local + 28)
    const raw = bytes.subarray(start, start + compressed)
    const data = method === 8 ? inflateRawSync(raw) : Buffer.from(raw)
    expect(crc32(data) >>> 0, `CRC of ${name}`).toBe(crc)
    if (!name.endsWith('/')) files.set(name, data)
    at += 46 + skip
  }
  return files
}

/** The card a file holds, read independently (PNG: ccv3 before chara), or null for a PNG without one. */
function readCard(bytes: Buffer, file: string): Json {
  if (/\.png$/i.test(file)) {
    const { texts } = pngTexts(bytes)
    const raw = texts.get('ccv3') ?? texts.get('chara')
    if (!raw) throw new Error(`${file}: no card chunk`)
    return cardText(raw) as Json
  }
  if (/\.charx$/i.test(file)) return JSON.parse((unzip(bytes).get('card.json') ?? Buffer.alloc(0)).toString('utf8'))
  const text = bytes.toString('utf8').replace(/^\uFEFF/, '')
  return JSON.parse(text)
}

/** A SillyTavern World Info file (or a V3 lorebook): entries and no character. Not a card. */
function isLorebookFile(value: Json): boolean {
  const isCharacter =
    'spec' in value || 'data' in value || 'name' in value || 'char_name' in value || 'first_mes' in value
  return !isCharacter && ('entries' in value || value.spec === 'lorebook_v3')
}

// ---------------------------------------------------------------------------------------------
// The comparison

const V1_FIELDS = ['name', 'description', 'personality', 'scenario', 'first_mes', 'mes_example']
const V3_ONLY = [
  'assets',
  'nickname',
  'creator_notes_multilingual',
  'source',
  'group_only_greetings',
  'creation_date',
  'modification_date',
]
/** Texts the form shows: saved trimmed with `\n` line ends (the form's rule for what people type). */
const FORM_TEXTS = new Set([...V1_FIELDS, 'creator_notes'])

const formText = (value: unknown) => (typeof value === 'string' ? value.replace(/\r\n?/g, '\n').trim() : value)
const pathKey = (p: string) => p.replace(/\[\d+\]/g, '[]')

/** The card as V2/V3 fields: `data` (a V1 card's flat fields) and the fields around it. */
function partsOf(card: Json): { data: Json; top: Json; v1: boolean } {
  if (card.data && typeof card.data === 'object') {
    const { spec: _s, spec_version: _v, data, ...top } = card
    return { data: data as Json, top, v1: false }
  }
  const data: Json = {}
  const top: Json = {}
  for (const [key, value] of Object.entries(card)) (V1_FIELDS.includes(key) ? data : top)[key] = value
  return { data, top, v1: true }
}

type Check = { report: string[]; losses: string[] }

/** True when the report names this path (or a field above it), with or without `data.`. */
function excused(check: Check, fullPath: string): boolean {
  const key = pathKey(fullPath)
  const bare = key.replace(/^data\./, '')
  return check.report.some((entry) => {
    const at = entry.indexOf(':')
    if (at < 0) return false
    const reported = entry.slice(at + 1)
    return [key, bare].some((p) => p === reported || p.startsWith(`${reported}.`) || p.startsWith(`${reported}[]`))
  })
}

/** Every value of `original` must be in `exported` at the same path (additions are fine). */
function compareValue(check: Check, original: unknown, exported: unknown, at: string) {
  if (excused(check, at)) return
  if (Array.isArray(original)) {
    if (!Array.isArray(exported) || exported.length !== original.length) {
      check.losses.push(`${at}: ${JSON.stringify(original).slice(0, 80)} -> ${JSON.stringify(exported)?.slice(0, 80)}`)
      return
    }
    original.forEach((item, i) => {
      compareValue(check, item, exported[i], `${at}[${i}]`)
    })
    return
  }
  if (original && typeof original === 'object') {
    if (!exported || typeof exported !== 'object') {
      check.losses.push(`${at}: object -> ${JSON.stringify(exported)?.slice(0, 80)}`)
      return
    }
    for (const [key, value] of Object.entries(original)) {
      compareValue(check, value, (exported as Json)[key], `${at}.${key}`)
    }
    return
  }
  if (original !== exported) {
    check.losses.push(`${at}: ${JSON.stringify(original)?.slice(0, 80)} -> ${JSON.stringify(exported)?.slice(0, 80)}`)
  }
}

const lowerSet = (list: unknown) =>
  new Set(
    (Array.isArray(list) ? list : []).map((t) => String(t).normalize('NFKC').replace(/\s+/g, ' ').trim().toLowerCase()),
  )

/**
 * Compares an exported card with the original. `v2` is the PNG's `chara` rendering (without the
 * V3-only fields); `mainIcon` the URI the export's main icon must have (CHARX), if any.
 */
/**
 * The bytes an asset URI names: `embeded://` in a zip's files, `__asset:` in a PNG's
 * `chara-ext-asset_:` chunks (base64).
 */
type FileLookup = (uri: string) => Buffer | undefined
function fileLookup(zip: Map<string, Buffer> | null, pngChunks: Map<string, Buffer> | null): FileLookup {
  return (uri) => {
    const embedded = /^embedd?ed:\/\/\/?(.+)$/.exec(uri)?.[1]
    if (embedded !== undefined) return zip?.get(embedded)
    const inPng = /^__asset:(.+)$/.exec(uri)?.[1]
    const text = inPng === undefined ? undefined : pngChunks?.get(`chara-ext-asset_:${inPng}`.toLowerCase())
    return text === undefined ? undefined : Buffer.from(text.toString('latin1'), 'base64')
  }
}

const EMBEDDED = /^(embedd?ed:|__asset:)/

function compareCard(
  original: Json,
  exported: Json,
  report: string[],
  options: { v2: boolean; originalFile?: FileLookup; exportedFile?: FileLookup },
): string[] {
  const check: Check = { report, losses: [] }
  const from = partsOf(original)
  const to = partsOf(exported)
  expect(exported.spec).toBe(options.v2 ? 'chara_card_v2' : 'chara_card_v3')
  // The V1 copies around `data` are ours; the rest of the fields around `data` travel as they came.
  for (const [key, value] of Object.entries(from.top)) {
    if (V1_FIELDS.includes(key)) {
      if (formText(value) === formText(from.data[key])) compareValue(check, formText(value), formText(to.top[key]), key)
      continue
    }
    compareValue(check, value, to.top[key], key)
  }
  for (const [key, value] of Object.entries(from.data)) {
    const at = `data.${key}`
    const out = to.data[key]
    if (options.v2 && V3_ONLY.includes(key)) continue
    if (FORM_TEXTS.has(key)) {
      if (!excused(check, at)) compareValue(check, formText(value), formText(out), at)
    } else if (key === 'alternate_greetings' && Array.isArray(value)) {
      // The form drops blank greetings and trims the others.
      const kept = value.map(formText).filter((g) => g !== '')
      compareValue(check, kept, (Array.isArray(out) ? out : []).map(formText), at)
    } else if (key === 'tags') {
      // Tags are matched to the site's (ignoring case) and listed as a set.
      if (!excused(check, at)) {
        const missing = [...lowerSet(value)].filter((t) => t !== '' && !lowerSet(out).has(t))
        if (missing.length > 0) check.losses.push(`${at}: ${missing.join(', ')} missing`)
      }
    } else if (key === 'extensions' && value && typeof value === 'object') {
      // `nsfw` is the adult flag (false is no flag); `taleweave` is ours, rewritten on export.
      const { nsfw, taleweave: _t, ...rest } = value as Json
      compareValue(check, rest, out, at)
      if (nsfw === true && (out as Json | undefined)?.nsfw !== true) check.losses.push(`${at}.nsfw`)
    } else if (key === 'creator_notes_multilingual' && value && typeof value === 'object') {
      // Re-keyed by our locale codes (ADR 041): every note must still be there.
      const notes = new Set(Object.values((out as Json | undefined) ?? {}).map(formText))
      for (const [code, note] of Object.entries(value)) {
        if (formText(note) !== '' && !notes.has(formText(note)) && !excused(check, `${at}.${code}`)) {
          check.losses.push(`${at}.${code}`)
        }
      }
    } else if (key === 'assets' && Array.isArray(value)) {
      // Embedded files come back byte for byte in the exports that carry files (CHARX, PNG; ADR
      // 047), unless reported dropped; JSON has nowhere to put them. The main icon is the
      // exported picture, under its new URI (checked apart).
      const outAssets = (Array.isArray(out) ? out : []) as Json[]
      for (const asset of value as Json[]) {
        const label = `${asset.type}/${asset.name}`
        if (report.includes(`asset_dropped:${label}`)) continue
        const isMain = asset.type === 'icon' && asset.name === 'main'
        const embedded = EMBEDDED.test(String(asset.uri))
        if (embedded && !isMain && !options.exportedFile) continue
        const found = outAssets.find((a) => a.type === asset.type && a.name === asset.name)
        if (!found) check.losses.push(`${at}: ${label}`)
        else if (embedded && !isMain) {
          const before = options.originalFile?.(String(asset.uri))
          const after = options.exportedFile?.(String(found.uri))
          if (!before || !after || !before.equals(after)) check.losses.push(`${at}: ${label} bytes`)
        } else if (!/^(embedd?ed:|ccdefault:)/.test(String(asset.uri)) && found.uri !== asset.uri) {
          check.losses.push(`${at}: ${label} uri`)
        }
      }
    } else if (key === 'character_book' && value && typeof value === 'object') {
      const book = value as Json
      const outBook = (out ?? {}) as Json
      for (const [bookKey, bookValue] of Object.entries(book)) {
        if (bookKey !== 'entries') compareValue(check, bookValue, outBook[bookKey], `${at}.${bookKey}`)
      }
      const entries = Array.isArray(book.entries) ? book.entries : Object.values((book.entries ?? {}) as Json)
      const outEntries = (Array.isArray(outBook.entries) ? outBook.entries : []) as Json[]
      if (entries.length !== outEntries.length && !excused(check, `${at}.entries`)) {
        check.losses.push(`${at}.entries: ${entries.length} -> ${outEntries.length}`)
      }
      entries.forEach((entry, i) => {
        for (const [entryKey, entryValue] of Object.entries(entry as Json)) {
          // V2 has no `use_regex`: the chara rendering leaves it out.
          if (options.v2 && entryKey === 'use_regex') continue
          compareValue(check, entryValue, outEntries[i]?.[entryKey], `${at}.entries[${i}].${entryKey}`)
        }
      })
    } else {
      compareValue(check, value, out, at)
    }
  }
  return check.losses
}

// ---------------------------------------------------------------------------------------------
// Synthetic cards, so the check is not tuned to the corpus

function png1x1(): Promise<Buffer> {
  return sharp({ create: { width: 2, height: 3, channels: 3, background: '#884422' } })
    .png()
    .toBuffer()
}

function withTextChunks(png: Buffer, chunks: [string, Buffer][]): Buffer {
  const iend = png.length - 12
  const encoded = chunks.map(([keyword, text]) => {
    const data = Buffer.concat([Buffer.from(`${keyword}\0`, 'latin1'), text])
    const head = Buffer.alloc(8)
    head.writeUInt32BE(data.length, 0)
    head.write('tEXt', 4, 'latin1')
    const crc = Buffer.alloc(4)
    crc.writeUInt32BE(crc32(data, crc32(Buffer.from('tEXt', 'latin1'))) >>> 0)
    return Buffer.concat([head, data, crc])
  })
  return Buffer.concat([png.subarray(0, iend), ...encoded, png.subarray(iend)])
}

const ODD_ENTRY = { probability: 35, useProbability: true, selectiveLogic: 3, group: 'weather', depth: 4 }

async function syntheticCards(): Promise<{ name: string; bytes: Buffer }[]> {
  const v1 = {
    name: '李小龙',
    description: 'Un maître.\r\nDeux lignes.',
    personality: 'calme',
    scenario: '',
    first_mes: 'Bonjour\u0000 !',
    mes_example: '',
    talkativeness: '0.5',
    fav: false,
    create_date: '2023-7-1 @12h',
    avatar: 'none',
  }
  const v2 = {
    spec: 'chara_card_v2',
    spec_version: '2.0',
    chub_meta: { id: 1234, full_path: 'someone/thing', nested: { a: [1, { b: null }] } },
    data: {
      name: 'Ánh Dương',
      description: 'Tóm tắt.',
      personality: '',
      scenario: 'Một thành phố.',
      first_mes: 'Xin chào.',
      mes_example: '',
      creator_notes: '',
      system_prompt: '{{original}} Stay kind.',
      post_history_instructions: '',
      alternate_greetings: ['Chào buổi sáng.'],
      tags: ['Slice of life', 'slice of life', 'Vietnamese'],
      creator: '',
      character_version: '',
      extensions: { depth_prompt: { depth: 4, prompt: 'x', role: 'system' }, world: 'Eldor' },
      mood: { today: ['sunny', 2] },
      character_book: {
        name: 'Lore',
        extensions: {},
        chub_book_meta: { id: 9 },
        entries: [
          { keys: ['rain'], content: 'It rains.', enabled: true, insertion_order: 10, extensions: {}, ...ODD_ENTRY },
          { keys: ['sun', 'light'], content: 'It shines.', enabled: false, insertion_order: 5, extensions: { x: 1 } },
        ],
      },
    },
  }
  const v3 = {
    spec: 'chara_card_v3',
    spec_version: '3.0',
    data: {
      ...v2.data,
      name: '천하 영웅',
      creator: 'someone',
      creator_notes: 'Notes.',
      nickname: '영웅',
      group_only_greetings: ['Hi all.'],
      source: ['https://example.com/c/1'],
      creation_date: 1_700_000_000,
      modification_date: 1_700_000_100,
      assets: [{ type: 'background', uri: 'https://example.com/bg.png', name: 'bg', ext: 'png' }],
      character_book: { ...v2.data.character_book, scan_depth: 3, token_budget: 300 },
    },
    top_level_extra: [1, 2, 3],
  }
  const json = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8')
  // A card in a tEXt chunk as plain UTF-8 JSON (not base64), as some writers do.
  const utf8Png = withTextChunks(await png1x1(), [['chara', json({ ...v2, data: { ...v2.data, name: '東京の猫' } })]])
  return [
    { name: 'synthetic/v1-cjk.json', bytes: json(v1) },
    { name: 'synthetic/v2-odd-fields.json', bytes: json(v2) },
    { name: 'synthetic/v3-korean.json', bytes: json(v3) },
    { name: 'synthetic/v2-utf8-text-chunk.png', bytes: utf8Png },
    {
      name: 'synthetic/v3-base64.png',
      bytes: withTextChunks(await png1x1(), [['ccv3', Buffer.from(json(v3).toString('base64'))]]),
    },
  ]
}

// ---------------------------------------------------------------------------------------------

type Card = { name: string; bytes: Buffer }

/** A multipart body exactly as the browser sends a FormData, with the session's token. */
async function multipart(form: FormData, auth: Record<string, string>) {
  const response = new Response(form)
  return {
    payload: Buffer.from(await response.arrayBuffer()),
    headers: { ...auth, 'content-type': response.headers.get('content-type') ?? '' },
  }
}

describe('cards corpus: import, save without edits, export as PNG, JSON and CHARX, nothing lost', () => {
  let t: TestApp
  const corpus: Card[] = cardFiles(CORPUS_DIR).map((file) => ({
    name: path.relative(CORPUS_DIR, file),
    bytes: readFileSync(file),
  }))
  const extraDir = process.env.CARDS_DIR
  const extra: Card[] = extraDir
    ? cardFiles(path.resolve(extraDir)).map((file) => ({
        name: `CARDS_DIR/${path.relative(extraDir, file)}`,
        bytes: readFileSync(file),
      }))
    : []

  beforeAll(async () => {
    t = await buildTestApp()
  })
  afterAll(() => t.close())

  it('finds the corpus beside the repository', () => {
    // The corpus is part of the workspace this project is built in; a clone without it has
    // nothing to check here (the synthetic cards below still run).
    if (!existsSync(CORPUS_DIR)) return
    expect(corpus.length).toBeGreaterThan(10)
  })

  async function roundTrip(card: Card) {
    const original = readCard(card.bytes, card.name)
    // One user per card: the import and save rate limits are per user.
    const session = await t.login()
    const auth = { authorization: `Bearer ${session.token}` }
    const upload = new FormData()
    upload.append('file', new Blob([new Uint8Array(card.bytes)]), path.basename(card.name))
    const imported = await t.app.inject({
      method: 'POST',
      url: '/api/roles/import?locale=en',
      ...(await multipart(upload, auth)),
    })

    if (isLorebookFile(original)) {
      // Standalone lorebooks are imported elsewhere; as a character card they are refused, clearly.
      expect(imported.statusCode, imported.body).toBe(400)
      expect(imported.json()).toMatchObject({ error: 'INVALID_CARD', details: { reason: 'not_a_card' } })
      return
    }
    expect(imported.statusCode, imported.body).toBe(200)
    const result = imported.json().data as ImportResult
    const report = [...result.report.repaired, ...result.report.ignored]

    // Saved as the browser's form saves an imported card, without a change.
    const state = formOfImport(result, emptyForm('en'))
    const saved = await t.app.inject({
      method: 'POST',
      url: '/api/addRole?locale=en',
      ...(await multipart(formDataOf(state, false), auth)),
    })
    expect(saved.statusCode, `${card.name}: ${saved.body}`).toBe(200)
    const role = saved.json().data as EditableRole

    const download = async (format: 'png' | 'json' | 'charx') => {
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/roles/${role.roleId}/export.${format}`,
        headers: { ...auth, cookie: `${ADULT_COOKIE}=1` },
      })
      expect(res.statusCode, `${card.name} .${format}: ${res.body.slice(0, 200)}`).toBe(200)
      // The character's name in its own script, with an ASCII fallback (RFC 6266 / 5987).
      const disposition = String(res.headers['content-disposition'])
      expect(disposition).toMatch(/^attachment; filename="[\x20-\x7e]+"; filename\*=UTF-8''[A-Za-z0-9%!#$&+.^_`|~-]+$/)
      const name = decodeURIComponent(disposition.split("UTF-8''")[1] ?? '')
      expect(name.endsWith(`.${format}`)).toBe(true)
      // A name of letters, digits and spaces downloads as itself, whatever its script.
      if (/^[\p{L}\p{M}\p{N} ]{1,60}$/u.test(role.name)) expect(name).toBe(`${role.name.replace(/ +/g, '_')}.${format}`)
      return res.rawPayload
    }
    const losses: string[] = []
    const originalFile = fileLookup(
      /\.charx$/i.test(card.name) ? unzip(card.bytes) : null,
      /\.png$/i.test(card.name) ? pngTexts(card.bytes).texts : null,
    )
    const json = JSON.parse((await download('json')).toString('utf8')) as Json
    losses.push(...compareCard(original, json, report, { v2: false }).map((l) => `json ${l}`))

    const pngBytes = await download('png')
    const png = pngTexts(pngBytes)
    expect(png.width * png.height).toBeGreaterThan(0)
    for (const [keyword, v2] of [
      ['ccv3', false],
      ['chara', true],
    ] as const) {
      const raw = png.texts.get(keyword)
      expect(raw, `${card.name}: PNG ${keyword} chunk`).toBeDefined()
      const fromPng = cardText(raw ?? Buffer.alloc(0)) as Json
      // The V2 `chara` card has no assets; the V3 one names the asset chunks.
      const filesOf = v2 ? {} : { originalFile, exportedFile: fileLookup(null, png.texts) }
      losses.push(...compareCard(original, fromPng, report, { v2, ...filesOf }).map((l) => `png ${keyword} ${l}`))
    }

    const files = unzip(await download('charx'))
    const charxCard = JSON.parse((files.get('card.json') ?? Buffer.alloc(0)).toString('utf8')) as Json
    const fromZip = { originalFile, exportedFile: fileLookup(files, null) }
    losses.push(...compareCard(original, charxCard, report, { v2: false, ...fromZip }).map((l) => `charx ${l}`))
    const icon = ((charxCard.data as Json).assets as Json[] | undefined)?.find(
      (a) => a.type === 'icon' && a.name === 'main',
    )
    if (role.avatarUrl) {
      // The picture is in the zip where the main icon's embeded:// URI says.
      expect(icon?.uri).toMatch(/^embeded:\/\/assets\/icon\/images\/main\.\w+$/)
      const bytes = files.get(String(icon?.uri).slice('embeded://'.length))
      expect(bytes?.length).toBeGreaterThan(0)
      expect((await sharp(bytes).metadata()).width).toBeGreaterThan(0)
    }
    expect(
      losses,
      `${card.name}: lost in the round trip (and not in the report ${JSON.stringify(result.report)})`,
    ).toEqual([])
  }

  for (const card of corpus) it(`corpus ${card.name}`, () => roundTrip(card))
  for (const card of extra) it(`unseen ${card.name}`, () => roundTrip(card))

  it('synthetic cards (V1/V2/V3, CJK names, unknown fields at every level, NUL, UTF-8 tEXt)', async () => {
    for (const card of await syntheticCards()) await roundTrip(card)
  })
})
