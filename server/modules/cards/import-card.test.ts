import { deflateSync } from 'node:zlib'
import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import {
  base64Json,
  cardPng,
  charx,
  chunk,
  ihdr,
  iTXt,
  noise,
  patchDeclaredSize,
  pngWith,
  SIGNATURE,
  tEXt,
  v2Card,
  v3Card,
} from '#tests/factories/card-files.ts'
import { CARD_LIMITS, CardError, type CharacterDraft } from './card-types.ts'
import { exportCardJson } from './export-card.ts'
import { importCard } from './import-card.ts'
import { readPngChunks } from './png-chunks.ts'

const json = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8')

function importError(bytes: Uint8Array, filename?: string): CardError {
  try {
    importCard(bytes, filename)
  } catch (error) {
    if (error instanceof CardError) return error
    throw error
  }
  throw new Error('importCard did not throw')
}

/** The draft v2Card() must give. */
const MIRA: CharacterDraft = {
  name: 'Mira Vale',
  description: '{{char}} is a cartographer of drowned cities.',
  personality: 'curious, dry humour',
  scenario: 'A flooded archive at dawn.',
  firstMessage: 'You found my maps? *She smiles.*',
  alternateGreetings: ['The tide is late today.', 'Another visitor? Sit.'],
  groupOnlyGreetings: [],
  exampleDialogue: '<START>\n{{user}}: Hi\n{{char}}: Hello, traveller.',
  systemPrompt: 'Stay in character.',
  postHistoryInstructions: 'Keep replies under 200 words.',
  creatorNotes: 'Works best with long replies.',
  sourceLanguage: 'en',
  translations: {},
  tags: ['fantasy', 'explorer'],
  creator: 'alice',
  characterVersion: '1.2',
  nsfw: false,
  characterBook: {
    name: 'Drowned Atlas',
    scanDepth: 3,
    tokenBudget: 500,
    recursiveScanning: false,
    extensions: {},
    entries: [
      {
        keys: ['Vell', 'drowned city'],
        secondaryKeys: ['night'],
        content: 'Vell sank in a single night.',
        enabled: true,
        insertionOrder: 10,
        useRegex: false,
        caseSensitive: false,
        constant: false,
        selective: true,
        name: 'Vell',
        comment: 'the city',
        priority: 5,
        id: 1,
        position: 'before_char',
        extensions: { probability: 100 },
      },
    ],
  },
  extensions: { talkativeness: '0.5', depth_prompt: { prompt: 'Remember the sea.', depth: 4 } },
  assets: [],
  files: [],
  avatar: null,
}

const MIRA_V3: CharacterDraft = {
  ...MIRA,
  groupOnlyGreetings: ['Everyone, gather round the map table.'],
  nickname: 'Mira',
  // The `en` note is the source's introduction (it equals creator_notes); `fr` is a translation's.
  translations: {
    fr: {
      name: null,
      introduction: 'Préfère les longues réponses.',
      scenario: '',
      firstMessage: '',
      alternateGreetings: [],
    },
  },
  source: ['https://example.org/cards/mira'],
  creationDate: 1_700_000_000,
  modificationDate: 1_700_000_500,
  assets: [{ type: 'icon', uri: 'ccdefault:', name: 'main', ext: 'png' }],
}

describe('importCard: versions and containers', () => {
  it('reads a V1 JSON card (flat fields) and keeps its unknown fields, unreported', () => {
    const v1 = {
      name: 'Old Tom',
      description: 'A lighthouse keeper.',
      personality: 'gruff',
      scenario: 'A storm.',
      first_mes: 'Shut the door!',
      mes_example: '<START>',
      talkativeness: 0.4,
    }
    const { draft, version, report } = importCard(json(v1))
    expect(version).toBe('v1')
    expect(draft).toMatchObject({
      name: 'Old Tom',
      description: 'A lighthouse keeper.',
      personality: 'gruff',
      scenario: 'A storm.',
      firstMessage: 'Shut the door!',
      exampleDialogue: '<START>',
      characterBook: null,
      tags: [],
    })
    expect(draft.otherCardFields).toEqual({ talkativeness: 0.4 })
    expect(report).toEqual({ repaired: [], ignored: [] })
  })

  it('reads the pre-V1 field names (char_name, char_persona, ...)', () => {
    const old = {
      char_name: 'Pyg',
      char_persona: 'A robot.',
      world_scenario: 'Mars.',
      char_greeting: 'Beep.',
      example_dialogue: '<START>',
      personality: 'terse',
    }
    const { draft, version, report } = importCard(json(old))
    expect(version).toBe('v1')
    expect(draft).toMatchObject({
      name: 'Pyg',
      description: 'A robot.',
      scenario: 'Mars.',
      firstMessage: 'Beep.',
      exampleDialogue: '<START>',
    })
    expect(report.repaired).toEqual(
      expect.arrayContaining(['legacy_field:char_name', 'legacy_field:char_persona', 'legacy_field:char_greeting']),
    )
    expect(report.ignored).toEqual([])
  })

  it('reads a V2 JSON card, lorebook included, with nothing to repair', () => {
    const { draft, version, report } = importCard(json(v2Card()))
    expect(version).toBe('v2')
    expect(draft).toEqual(MIRA)
    expect(report).toEqual({ repaired: [], ignored: [] })
  })

  it('reads a V3 JSON card with its V3-only fields', () => {
    const { draft, version, report } = importCard(json(v3Card()))
    expect(version).toBe('v3')
    expect(draft).toEqual(MIRA_V3)
    expect(report).toEqual({ repaired: [], ignored: [] })
  })

  it('reads a V2 PNG card and keeps the picture without the card chunk as the avatar', async () => {
    const png = pngWith(
      tEXt('chara', base64Json(v2Card())),
      chunk('eXIf', 'MM\0*GPS secret'),
      chunk('prVt', 'private payload'),
      chunk('gAMA', Buffer.from([0, 0, 0xb1, 0x8f])),
    )
    const { draft, version, report } = importCard(png)
    expect(version).toBe('v2')
    expect(report).toEqual({ repaired: [], ignored: [] })
    expect({ ...draft, avatar: null }).toEqual(MIRA)
    const avatar = draft.avatar ?? Buffer.alloc(0)
    expect(readPngChunks(avatar).map((c) => c.type)).toEqual(['IHDR', 'IDAT', 'gAMA', 'IEND'])
    for (const left of ['chara', 'GPS secret', 'private payload'])
      expect(avatar.includes(Buffer.from(left))).toBe(false)
    const { data, info } = await sharp(avatar).raw().toBuffer({ resolveWithObject: true })
    expect(info).toMatchObject({ width: 2, height: 3 })
    expect([...data.subarray(0, 3)]).toEqual([200, 40, 90])
  })

  it('leaves out a PNG picture over the avatar limit but still reads the card', () => {
    const side = Math.ceil(Math.sqrt(CARD_LIMITS.maxAvatarBytes / 3)) + 8
    const rows = noise(side * (side * 3 + 1), 9).map((b, i) => (i % (side * 3 + 1) === 0 ? 0 : b))
    const big = Buffer.concat([
      SIGNATURE,
      ihdr(side, side),
      chunk('IDAT', deflateSync(rows, { level: 1 })),
      tEXt('chara', base64Json(v2Card())),
      chunk('IEND', ''),
    ])
    const { draft, report } = importCard(big)
    expect(draft.name).toBe('Mira Vale')
    expect(draft.avatar).toBeNull()
    expect(report.ignored).toEqual(['avatar_too_large'])
  })

  it('reads a V3 PNG card', () => {
    const { draft, version } = importCard(cardPng({ ccv3: v3Card() }))
    expect(version).toBe('v3')
    expect({ ...draft, avatar: null }).toEqual(MIRA_V3)
  })

  it('prefers ccv3 over chara when a PNG has both, in either order', () => {
    const v2 = v2Card({ name: 'From chara' })
    const v3 = v3Card({ name: 'From ccv3' })
    for (const png of [
      pngWith(tEXt('chara', base64Json(v2)), tEXt('ccv3', base64Json(v3))),
      pngWith(tEXt('ccv3', base64Json(v3)), tEXt('chara', base64Json(v2))),
    ]) {
      const { draft, version } = importCard(png)
      expect(version).toBe('v3')
      expect(draft.name).toBe('From ccv3')
    }
  })

  it('falls back to chara when ccv3 is unreadable, and says so', () => {
    const png = pngWith(tEXt('ccv3', '%%% not base64 %%%'), tEXt('chara', base64Json(v2Card())))
    const { draft, version, report } = importCard(png)
    expect(version).toBe('v2')
    expect(draft.name).toBe('Mira Vale')
    expect(report.repaired).toContain('ccv3_unreadable')
  })

  it('reads a card from an iTXt chunk and a chunk holding plain JSON', () => {
    expect(importCard(pngWith(iTXt('chara', base64Json(v2Card())))).draft.name).toBe('Mira Vale')
    const raw = importCard(pngWith(tEXt('chara', JSON.stringify(v2Card({ name: 'Plain' })))))
    expect(raw.draft.name).toBe('Plain')
    expect(raw.report.repaired).toContain('json_not_base64:chara')
  })

  it('reads a CHARX: card.json, the main icon as avatar, the other embedded assets as files', () => {
    const icon = pngWith()
    const happy = pngWith(tEXt('Comment', 'happy'))
    const card = v3Card({
      assets: [
        { type: 'icon', uri: 'embeded://assets/icon/images/main.png', name: 'main', ext: 'png' },
        { type: 'emotion', uri: 'embeded://assets/emotion/images/happy.png', name: 'happy', ext: 'png' },
        { type: 'background', uri: 'https://example.org/bg.webp', name: 'main', ext: 'webp' },
        { type: 'other', uri: 'embeded://assets/other/audio/theme.mp3', name: 'theme', ext: 'mp3' },
      ],
    })
    const zip = charx({
      'card.json': JSON.stringify(card),
      'assets/icon/images/main.png': icon,
      'assets/emotion/images/happy.png': happy,
      'assets/other/audio/theme.mp3': 'ID3 not really',
      'x_meta/1.json': '{}',
    })
    expect(zip.subarray(0, 4)).toEqual(Buffer.from('PK\x03\x04', 'latin1'))
    const { draft, version, report } = importCard(zip, 'mira.charx')
    expect(version).toBe('v3')
    expect(draft.avatar).toEqual(icon)
    expect(draft.assets).toEqual([
      { type: 'icon', uri: 'ccdefault:', name: 'main', ext: 'png' },
      { type: 'background', uri: 'https://example.org/bg.webp', name: 'main', ext: 'webp' },
    ])
    expect(draft.files).toEqual([
      { type: 'emotion', name: 'happy', ext: 'png', bytes: happy, contentType: 'image/png' },
      { type: 'other', name: 'theme', ext: 'mp3', bytes: Buffer.from('ID3 not really'), contentType: 'audio/mpeg' },
    ])
    expect({ ...draft, avatar: null, assets: MIRA_V3.assets, files: [] }).toEqual(MIRA_V3)
    expect(report).toEqual({ repaired: ['icon_from_charx'], ignored: [] })
  })

  it('a hostile CHARX: unsafe paths, missing files, too many, too big; each asset dropped and reported', () => {
    const assets = [
      { type: 'other', uri: 'embeded://../../x', name: 'up', ext: 'png' },
      { type: 'other', uri: 'embeded:///etc/passwd', name: 'abs', ext: 'txt' },
      { type: 'other', uri: 'embeded://a\\..\\b', name: 'back', ext: 'txt' },
      { type: 'other', uri: 'embeded://assets/none.png', name: 'none', ext: 'png' },
      { type: 'other', uri: 'embeded://big.bin', name: 'big', ext: 'bin' },
      ...Array.from({ length: CARD_LIMITS.maxAssets + 1 }, (_, i) => ({
        type: 'emotion',
        uri: `embeded://e/${i}.txt`,
        name: `e${i}`,
        ext: 'txt',
      })),
    ]
    const files: Record<string, string | Uint8Array | [Uint8Array, { level: 0 }]> = {
      'card.json': JSON.stringify(v3Card({ assets })),
      '../../x': pngWith(),
      '/etc/passwd': 'root',
      'a\\..\\b': 'b',
      'big.bin': [noise(CARD_LIMITS.maxAssetBytes + 1), { level: 0 }],
    }
    for (let i = 0; i <= CARD_LIMITS.maxAssets; i++) files[`e/${i}.txt`] = `${i}`
    const { draft, report } = importCard(charx(files))
    expect(draft.files.map((f) => f.name)).toEqual(Array.from({ length: CARD_LIMITS.maxAssets }, (_, i) => `e${i}`))
    expect(draft.files[3]).toMatchObject({ bytes: Buffer.from('3'), contentType: 'text/plain' })
    expect(draft.assets).toEqual([])
    expect(report.ignored).toEqual([
      'asset_dropped:other/up',
      'asset_dropped:other/abs',
      'asset_dropped:other/back',
      'asset_dropped:other/none',
      'asset_dropped:other/big',
      `asset_dropped:emotion/e${CARD_LIMITS.maxAssets}`,
    ])
  })

  it('a CHARX asset that inflates past its declared size refuses the card', () => {
    const card = JSON.stringify(
      v3Card({ assets: [{ type: 'other', uri: 'embeded://pad.txt', name: 'pad', ext: 'txt' }] }),
    )
    const zip = patchDeclaredSize(charx({ 'card.json': card, 'pad.txt': ' '.repeat(3_000_000) }), 'pad.txt', 200_000)
    expect(importError(zip)).toMatchObject({ code: 'zip_too_large', details: { entry: 'pad.txt' } })
  })

  it('all the files together stop at maxAssetsTotalBytes', () => {
    const size = Math.floor(CARD_LIMITS.maxAssetsTotalBytes / 3) + 1
    const names = ['a', 'b', 'c']
    const card = v3Card({ assets: names.map((n) => ({ type: 'other', uri: `embeded://${n}`, name: n, ext: 'bin' })) })
    const files: Record<string, string | [Uint8Array, { level: 0 }]> = { 'card.json': JSON.stringify(card) }
    names.forEach((n, i) => {
      files[n] = [noise(size, i + 1), { level: 0 }]
    })
    const { draft, report } = importCard(charx(files))
    expect(draft.files.map((f) => [f.name, f.contentType, f.bytes.length])).toEqual([
      ['a', 'application/octet-stream', size],
      ['b', 'application/octet-stream', size],
    ])
    expect(report.ignored).toEqual(['asset_dropped:other/c'])
  })

  it("reads a PNG card's chara-ext-asset_ chunks named by __asset: URIs", () => {
    const happy = pngWith(tEXt('Comment', 'happy'))
    const card = v3Card({
      assets: [
        { type: 'icon', uri: 'ccdefault:', name: 'main', ext: 'png' },
        { type: 'emotion', uri: '__asset:0', name: 'happy', ext: 'png' },
        { type: 'emotion', uri: '__asset:1', name: 'gone', ext: 'png' },
        { type: 'emotion', uri: '__asset:bad', name: 'bad', ext: 'png' },
      ],
    })
    const png = pngWith(
      tEXt('ccv3', base64Json(card)),
      tEXt('chara-ext-asset_:0', happy.toString('base64')),
      tEXt('chara-ext-asset_:bad', 'not base64!'),
      tEXt('chara-ext-asset_:orphan', 'AAAA'),
    )
    const { draft, report } = importCard(png)
    expect(draft.files).toEqual([
      { type: 'emotion', name: 'happy', ext: 'png', bytes: happy, contentType: 'image/png' },
    ])
    expect(draft.assets).toEqual([{ type: 'icon', uri: 'ccdefault:', name: 'main', ext: 'png' }])
    expect(report.ignored).toEqual(['asset_dropped:emotion/gone', 'asset_dropped:emotion/bad', 'png_asset_chunks'])
  })

  it('accepts the embedded:// spelling and reports a main icon the zip lacks', () => {
    const spelled = v3Card({ assets: [{ type: 'icon', uri: 'embedded://icon.png', name: 'main', ext: 'png' }] })
    expect(importCard(charx({ 'card.json': JSON.stringify(spelled), 'icon.png': pngWith() })).draft.avatar).toEqual(
      pngWith(),
    )
    const missing = importCard(charx({ 'card.json': JSON.stringify(spelled) }))
    expect(missing.draft.avatar).toBeNull()
    expect(missing.report.ignored).toEqual(['avatar_missing:icon.png'])
  })

  it('drops embedded asset paths from JSON and PNG cards, where they point nowhere', () => {
    const card = v3Card({
      assets: [
        { type: 'icon', uri: 'embeded://assets/icon/images/main.png', name: 'main', ext: 'png' },
        { type: 'icon', uri: 'ccdefault:', name: 'alt', ext: 'png' },
      ],
    })
    const { draft, report } = importCard(json(card))
    expect(draft.assets).toEqual([{ type: 'icon', uri: 'ccdefault:', name: 'alt', ext: 'png' }])
    expect(report.ignored).toEqual(['asset_dropped:icon/main'])
  })
})

describe('importCard: repairs', () => {
  it('null character_book', () => {
    const { draft, report } = importCard(json(v2Card({ character_book: null })))
    expect(draft.characterBook).toBeNull()
    expect(report.repaired).toEqual(['null_field:character_book'])
  })

  it('tags as one comma-separated string', () => {
    const { draft, report } = importCard(json(v2Card({ tags: 'fantasy, explorer ,, sea' })))
    expect(draft.tags).toEqual(['fantasy', 'explorer', 'sea'])
    expect(report.repaired).toEqual(['string_as_list:tags'])
  })

  it('alternate_greetings as one string', () => {
    const { draft, report } = importCard(json(v2Card({ alternate_greetings: 'Hello, again, friend.' })))
    expect(draft.alternateGreetings).toEqual(['Hello, again, friend.'])
    expect(report.repaired).toEqual(['string_as_list:alternate_greetings'])
  })

  it('numbers and booleans where text belongs', () => {
    const { draft, report } = importCard(json(v2Card({ character_version: 2, tags: ['ok', 18, true], creator: false })))
    expect(draft.characterVersion).toBe('2')
    expect(draft.tags).toEqual(['ok', '18', 'true'])
    expect(draft.creator).toBe('false')
    expect(report.repaired.sort()).toEqual([
      'number_as_string:character_version',
      'number_as_string:creator',
      'number_as_string:tags[]',
    ])
  })

  it('missing and null fields get empty defaults, each reported', () => {
    const card = v2Card()
    const { scenario: _s, system_prompt: _p, alternate_greetings: _g, extensions: _e, ...data } = card.data
    const { draft, report } = importCard(json({ ...card, data: { ...data, creator_notes: null } }))
    expect(draft).toMatchObject({
      scenario: '',
      systemPrompt: '',
      alternateGreetings: [],
      extensions: {},
      creatorNotes: '',
    })
    expect(report.repaired.sort()).toEqual([
      'missing_field:alternate_greetings',
      'missing_field:extensions',
      'missing_field:scenario',
      'missing_field:system_prompt',
      'null_field:creator_notes',
    ])
  })

  it('a V3 card without group_only_greetings', () => {
    const { group_only_greetings: _g, ...data } = v3Card().data
    const { draft, report } = importCard(json({ spec: 'chara_card_v3', spec_version: '3.0', data }))
    expect(draft.groupOnlyGreetings).toEqual([])
    expect(report.repaired).toEqual(['missing_field:group_only_greetings'])
  })

  it('unknown top-level and data fields are kept as they came; the V1 copies at the top are ours', () => {
    const card = { ...v2Card({ mood: 'sunny' }), name: 'Mira Vale', first_mes: 'x', chat: 'Mira - 2024', fav: false }
    const { draft, report } = importCard(json(card))
    expect(draft.firstMessage).toBe(MIRA.firstMessage)
    expect(draft.otherCardFields).toEqual({ chat: 'Mira - 2024', fav: false })
    expect(draft.otherDataFields).toEqual({ mood: 'sunny' })
    expect(report).toEqual({ repaired: [], ignored: [] })
  })

  it('leaves out unknown fields past their byte budget, each reported, and keeps the ones before', () => {
    const big = 'x'.repeat(CARD_LIMITS.maxOtherFieldsBytes / 2)
    const card = { ...v2Card({ a: big, b: big, c: 1 }), z: 'kept' }
    const { draft, report } = importCard(json(card))
    expect(draft.otherDataFields).toEqual({ a: big, c: 1 })
    expect(draft.otherCardFields).toEqual({ z: 'kept' })
    expect(report.ignored).toEqual(['unknown_field:data.b'])
  })

  it('unknown extensions are kept verbatim, nested values and all', () => {
    const extensions = {
      chub: { id: 42, full_path: 'alice/mira', related_lorebooks: [], nested: { deep: [1, { two: null }] } },
      risuai: { customScripts: [{ in: 'a', out: 'b' }] },
      'odd key': 'kept',
    }
    const { draft, report } = importCard(json(v2Card({ extensions })))
    expect(draft.extensions).toEqual(extensions)
    expect(report).toEqual({ repaired: [], ignored: [] })
  })

  it('extensions nested beyond the depth limit lose that branch alone, reported with its path', () => {
    const nest = (levels: number): unknown => {
      let value: unknown = 'bottom'
      for (let i = 0; i < levels; i++) value = { d: value }
      return value
    }
    const limit = CARD_LIMITS.maxExtensionsDepth
    // `extensions` is level 1: a branch of limit - 1 objects under it fits, one more does not.
    const extensions = { chub: { id: 42 }, fits: nest(limit - 1), deep: [1, nest(limit + 5)] }
    const { draft, report } = importCard(json(v2Card({ extensions })))
    // The deepest object kept is the one at the limit, emptied of its too-deep child.
    let cut: unknown = {}
    for (let i = 0; i < limit - 3; i++) cut = { d: cut }
    expect(draft.extensions).toEqual({ chub: { id: 42 }, fits: nest(limit - 1), deep: [1, cut] })
    const path = `extensions.deep[]${'.d'.repeat(limit - 2)}`
    expect(report.ignored).toEqual([`extensions_too_deep:${path}`])
    // A nesting far past the stack is cut just as well.
    const hostileText = JSON.stringify(v2Card({ extensions: 'X' })).replace(
      '"X"',
      `{"x":${'{"d":'.repeat(50_000)}1${'}'.repeat(50_001)}`,
    )
    const { report: hostile } = importCard(Buffer.from(hostileText))
    expect(hostile.ignored).toEqual([`extensions_too_deep:extensions.x${'.d'.repeat(limit - 1)}`])
  })

  it('removes NUL characters from every text, key and list, each reported with its path', () => {
    const card = v3Card({
      name: 'Mi\u0000ra',
      description: '\u0000a\u0000',
      tags: ['fan\u0000tasy'],
      extensions: { 'k\u0000ey': ['v\u0000'] },
      character_book: {
        extensions: {},
        entries: [{ keys: ['x'], content: 'c\u0000', id: 'i\u0000d', probability: 'p\u0000' }],
      },
      mood: 'su\u0000nny',
    })
    const { draft, report } = importCard(json(card))
    expect(JSON.stringify(draft)).not.toContain('\\u0000')
    expect(draft).toMatchObject({ name: 'Mira', description: 'a', tags: ['fantasy'], extensions: { key: ['v'] } })
    expect(draft.characterBook?.entries[0]).toMatchObject({ content: 'c', id: 'id', otherFields: { probability: 'p' } })
    expect(draft.otherDataFields).toEqual({ mood: 'sunny' })
    expect(report.repaired.filter((r) => r.startsWith('nul_removed')).sort()).toEqual([
      'nul_removed:character_book.entries[].content',
      'nul_removed:character_book.entries[].id',
      'nul_removed:character_book.entries[].probability',
      'nul_removed:data.mood',
      'nul_removed:description',
      'nul_removed:extensions.key',
      'nul_removed:extensions.key[]',
      'nul_removed:name',
      'nul_removed:tags[]',
    ])
  })

  it('keeps lorebook- and entry-level fields outside the spec, and exports them back as they came', () => {
    const book = {
      name: 'Atlas',
      extensions: {},
      chub_meta: { id: 9, tags: ['sea'] },
      entries: [
        {
          keys: ['tide'],
          content: 'The moon pulls.',
          enabled: true,
          insertion_order: 1,
          extensions: {},
          probability: 40,
          selectiveLogic: 2,
          useProbability: true,
        },
      ],
    }
    const { draft, report } = importCard(json(v2Card({ character_book: book })))
    expect(draft.characterBook?.otherFields).toEqual({ chub_meta: { id: 9, tags: ['sea'] } })
    expect(draft.characterBook?.entries[0]?.otherFields).toEqual({
      probability: 40,
      selectiveLogic: 2,
      useProbability: true,
    })
    expect(report).toEqual({ repaired: [], ignored: [] })
    const exported = exportCardJson(draft).data as { character_book: Record<string, unknown> & { entries: unknown[] } }
    expect(exported.character_book).toMatchObject({ chub_meta: book.chub_meta })
    expect(exported.character_book.entries[0]).toMatchObject({
      probability: 40,
      selectiveLogic: 2,
      useProbability: true,
    })
  })

  it('lorebook entries keep every field; sloppy entries are repaired once per kind', () => {
    const book = {
      name: 'Atlas',
      extensions: { world: 'sea' },
      entries: {
        7: { keys: 'tide, moon', content: 'The moon pulls.', insertion_order: '20', enabled: 'false', extensions: {} },
        8: { keys: ['reef'], content: 'Sharp.', position: 1, id: 'uid-8' },
        9: 'not an entry',
      },
    }
    const { draft, report } = importCard(json(v2Card({ character_book: book })))
    expect(draft.characterBook).toEqual({
      name: 'Atlas',
      extensions: { world: 'sea' },
      entries: [
        {
          keys: ['tide', 'moon'],
          secondaryKeys: [],
          content: 'The moon pulls.',
          enabled: false,
          insertionOrder: 20,
          useRegex: false,
          extensions: {},
        },
        {
          keys: ['reef'],
          secondaryKeys: [],
          content: 'Sharp.',
          enabled: true,
          insertionOrder: 100,
          useRegex: false,
          id: 'uid-8',
          position: 'after_char',
          extensions: {},
        },
      ],
    })
    expect(report.repaired.sort()).toEqual([
      'missing_field:character_book.entries[].enabled',
      'missing_field:character_book.entries[].extensions',
      'missing_field:character_book.entries[].insertion_order',
      'object_as_list:character_book.entries',
      'string_as_boolean:character_book.entries[].enabled',
      'string_as_list:character_book.entries[].keys',
      'string_as_number:character_book.entries[].insertion_order',
      'string_as_number:character_book.entries[].position',
    ])
    expect(report.ignored).toEqual(['wrong_type:character_book.entries[]'])
  })

  it('takes the adult hint from tags or extensions.nsfw, lifting the latter out of extensions', () => {
    expect(importCard(json(v2Card({ tags: ['NSFW', 'romance'] }))).draft.nsfw).toBe(true)
    expect(importCard(json(v2Card({ tags: 'romance, 18+' }))).draft.nsfw).toBe(true)
    const flagged = importCard(json(v2Card({ extensions: { nsfw: true, other: 1 } }))).draft
    expect(flagged.nsfw).toBe(true)
    expect(flagged.extensions).toEqual({ other: 1 })
    expect(importCard(json(v2Card())).draft.nsfw).toBe(false)
  })

  it('names a nameless card after its file', () => {
    const { draft, report } = importCard(json(v2Card({ name: '' })), 'uploads/Captain Reyes.card.json')
    expect(draft.name).toBe('Captain Reyes.card')
    expect(report.repaired).toEqual(['name_from_filename'])
  })

  it('reads a data object without spec as V2, and a newer V3 spec_version as V3', () => {
    const noSpec = importCard(json({ data: v2Card().data }))
    expect(noSpec.version).toBe('v2')
    expect(noSpec.draft).toEqual(MIRA)
    expect(noSpec.report.repaired).toEqual(['missing_spec'])
    const newer = importCard(json({ ...v3Card(), spec_version: '3.1' }))
    expect(newer.version).toBe('v3')
    expect(newer.report.repaired).toEqual(['newer_spec_version:3.1'])
  })

  it('fills a V2 field missing from data with its top-level V1 copy', () => {
    const { description: _d, ...data } = v2Card().data
    const { draft, report } = importCard(json({ spec: 'chara_card_v2', data, description: 'From the top.' }))
    expect(draft.description).toBe('From the top.')
    expect(report.repaired).toEqual(['legacy_field:description'])
  })
})

describe('importCard: malformed files', () => {
  it('an empty file', () => {
    expect(importError(new Uint8Array()).code).toBe('empty_file')
  })

  it('random bytes, a non-card JSON, a JSON array and a PNG without a card', () => {
    const random = noise(4096, 12345) // a fixed sequence that starts like no known format
    expect(importError(random).code).toBe('not_a_card')
    expect(importError(json({ hello: 'world' })).code).toBe('not_a_card')
    expect(importError(json([1, 2])).code).toBe('not_a_card')
    expect(importError(pngWith(tEXt('Comment', 'just a picture'))).code).toBe('not_a_card')
  })

  it('JPEG and WebP images, and cards of another spec, are unsupported', async () => {
    const jpeg = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#fff' } })
      .jpeg()
      .toBuffer()
    expect(importError(jpeg).code).toBe('unsupported')
    const webp = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#fff' } })
      .webp()
      .toBuffer()
    expect(importError(webp).code).toBe('unsupported')
    expect(importError(json({ spec: 'lorebook_v3', data: { entries: [] } })).code).toBe('unsupported')
  })

  it('a truncated PNG card', () => {
    const png = cardPng({ chara: v2Card() })
    expect(importError(png.subarray(0, png.length - 200)).code).toBe('truncated_png')
    expect(importError(png.subarray(0, 5)).code).toBe('truncated_png')
  })

  it('a PNG card with a bad CRC', () => {
    const png = cardPng({ chara: v2Card() })
    const at = png.indexOf(Buffer.from('chara\0', 'latin1')) + 20
    png[at] = (png[at] ?? 0) ^ 0x01 // one bit of the base64 text
    expect(importError(png)).toMatchObject({ code: 'corrupt_png', details: { chunk: 'tEXt' } })
  })

  it('bad base64 and bad JSON in a chunk, and a broken JSON file', () => {
    expect(importError(pngWith(tEXt('chara', 'eyJuYW1lIjoi*&^%'))).code).toBe('bad_base64')
    expect(importError(pngWith(tEXt('chara', 'abcde'))).code).toBe('bad_base64') // impossible length
    expect(importError(pngWith(tEXt('chara', Buffer.from('{"spec": "chara_card_v2", ').toString('base64')))).code).toBe(
      'bad_json',
    )
    expect(importError(Buffer.from('{"name": "Tom", ')).code).toBe('bad_json')
  })

  it('huge text: a field, a list, the card JSON and the file over their limits', () => {
    const long = importError(json(v2Card({ description: 'x'.repeat(CARD_LIMITS.maxFieldChars + 1) })))
    expect(long).toMatchObject({
      code: 'too_large',
      details: { field: 'description', limit: CARD_LIMITS.maxFieldChars },
    })
    expect(
      importCard(json(v2Card({ description: 'x'.repeat(CARD_LIMITS.maxFieldChars) }))).draft.description,
    ).toHaveLength(CARD_LIMITS.maxFieldChars)
    const entry = { keys: ['k'], content: 'y'.repeat(CARD_LIMITS.maxFieldChars + 1) }
    expect(importError(json(v2Card({ character_book: { entries: [entry] } }))).details).toMatchObject({
      field: 'character_book.entries[].content',
    })
    const tags = Array.from({ length: CARD_LIMITS.maxListItems + 1 }, (_, i) => `t${i}`)
    expect(importError(json(v2Card({ tags }))).details).toMatchObject({ field: 'tags' })
    const bigJson = json(v2Card({ extensions: { blob: 'z'.repeat(CARD_LIMITS.maxJsonBytes) } }))
    expect(importError(bigJson)).toMatchObject({ code: 'too_large', details: { limit: CARD_LIMITS.maxJsonBytes } })
    expect(importError(pngWith(tEXt('chara', base64Json(JSON.parse(bigJson.toString()))))).code).toBe('too_large')
    const bigFile = Buffer.concat([SIGNATURE, Buffer.alloc(CARD_LIMITS.maxFileBytes)])
    expect(importError(bigFile)).toMatchObject({ code: 'too_large', details: { limit: CARD_LIMITS.maxFileBytes } })
  })
})

describe('importCard: CHARX limits', () => {
  const card = JSON.stringify(v3Card())

  it('a CHARX without card.json', () => {
    expect(importError(charx({ 'other.json': card })).code).toBe('not_a_card')
  })

  it('a zip bomb: a highly compressible multi-MB entry, even one the import would not read', () => {
    const bomb = charx({ 'card.json': card, 'assets/other/zeros.bin': new Uint8Array(16 * 1024 * 1024) })
    expect(bomb.length).toBeLessThan(100_000)
    expect(importError(bomb)).toMatchObject({
      code: 'zip_too_large',
      details: { entry: 'assets/other/zeros.bin', limit: CARD_LIMITS.maxCompressionRatio },
    })
  })

  it('an entry that declares a small size and inflates to a big one', () => {
    const padded = `${card.slice(0, -1)}${' '.repeat(3_000_000)}}`
    const zip = charx({ 'card.json': padded })
    // 200 kB declared is a plausible ratio for the compressed bytes, so only the inflate can catch the lie.
    const lying = patchDeclaredSize(zip, 'card.json', 200_000)
    expect(importError(lying)).toMatchObject({
      code: 'zip_too_large',
      message: expect.stringContaining('inflates past its declared size'),
      details: { entry: 'card.json' },
    })
  })

  it('declared sizes that add up past the limit', () => {
    let zip = charx({
      'card.json': card,
      a: [noise(100_000, 1), { level: 0 }],
      b: [noise(100_000, 2), { level: 0 }],
      c: [noise(100_000, 3), { level: 0 }],
    })
    expect(importCard(zip).version).toBe('v3')
    for (const name of ['a', 'b', 'c']) zip = patchDeclaredSize(zip, name, 8 * 1024 * 1024)
    expect(importError(zip)).toMatchObject({
      code: 'zip_too_large',
      details: { limit: CARD_LIMITS.maxZipUncompressedBytes },
    })
  })

  it('too many entries', () => {
    const files: Record<string, string> = { 'card.json': card }
    for (let i = 0; i < CARD_LIMITS.maxZipEntries; i++) files[`assets/other/${i}.txt`] = ''
    expect(importError(charx(files))).toMatchObject({
      code: 'zip_too_large',
      details: { limit: CARD_LIMITS.maxZipEntries },
    })
  })

  it('a zip entry with a wrong CRC, a cut zip, and a compressed size no deflate stream has', () => {
    const stored = charx({ 'card.json': [Buffer.from(card), { level: 0 }] })
    const at = stored.indexOf(Buffer.from('Mira Vale'))
    stored[at] = 'N'.charCodeAt(0)
    expect(importError(stored)).toMatchObject({ code: 'corrupt_zip', details: { entry: 'card.json' } })
    expect(importError(charx({ 'card.json': card }).subarray(0, 200)).code).toBe('corrupt_zip')
    // 5 kB of noise cannot deflate from 10 bytes: caught in the directory, before any inflate.
    const zip = patchDeclaredSize(charx({ 'card.json': card, 'noise.bin': noise(5000) }), 'noise.bin', 10)
    expect(importError(zip)).toMatchObject({
      code: 'corrupt_zip',
      message: expect.stringContaining('bigger compressed than'),
      details: { entry: 'noise.bin' },
    })
  })

  it('a lying size on a deflated entry that is smaller than declared', () => {
    const zip = charx({ 'card.json': card })
    expect(importError(patchDeclaredSize(zip, 'card.json', card.length + 10)).code).toBe('corrupt_zip')
  })

  it('encrypted entries are unsupported', () => {
    const zip = charx({ 'card.json': card })
    const central = zip.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]))
    zip.writeUInt16LE(zip.readUInt16LE(central + 8) | 1, central + 8)
    expect(importError(zip).code).toBe('unsupported')
  })
})

// The zlib stream of a PNG text chunk is tested in png-chunks.test.ts; here, a whole card in zTXt.
it('reads a card from a zTXt chunk', () => {
  const z = chunk('zTXt', Buffer.concat([Buffer.from('chara\0\0', 'latin1'), deflateSync(base64Json(v2Card()))]))
  expect(importCard(pngWith(z)).draft.name).toBe('Mira Vale')
})
