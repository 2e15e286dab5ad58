import { unzipSync } from 'fflate'
import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { base64Json, cardPng, charx, pngWith, tEXt, v2Card, v3Card } from '#tests/factories/card-files.ts'
import { CARD_LIMITS, CardError, type CharacterDraft } from './card-types.ts'
import { DEFAULT_CARD_SIZE, exportCardCharx, exportCardJson, exportCardPng, exportCardV2Json } from './export-card.ts'
import { importCard } from './import-card.ts'
import { readPngChunks, readPngTexts } from './png-chunks.ts'

const json = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8')

/** The texts of a PNG's `chara` and `ccv3` chunks, decoded. */
function cardChunks(png: Buffer): { chara: unknown; ccv3: unknown; types: string[] } {
  const chunks = readPngChunks(png)
  const texts = readPngTexts(chunks)
  const decode = (keyword: string) => {
    const text = texts.find((t) => t.keyword === keyword && t.type === 'tEXt')?.text
    return text === undefined ? undefined : JSON.parse(Buffer.from(text, 'base64').toString('utf8'))
  }
  return { chara: decode('chara'), ccv3: decode('ccv3'), types: chunks.map((c) => c.type) }
}

/** A draft with every field set, lorebook and adult flag included. */
function fullDraft(): CharacterDraft {
  const { draft } = importCard(json(v3Card({ tags: ['fantasy', 'nsfw'] })))
  return {
    ...draft,
    extensions: { ...draft.extensions, risuai: { utilityBot: false }, '': 'empty key' },
    characterBook: {
      ...(draft.characterBook ?? { extensions: {}, entries: [] }),
      description: 'Places',
      entries: [
        ...(draft.characterBook?.entries ?? []),
        {
          keys: ['^storm$'],
          secondaryKeys: [],
          content: 'Storms come from the west.',
          enabled: false,
          insertionOrder: -3,
          useRegex: true,
          constant: true,
          position: 'after_char',
          extensions: { sticky: 2 },
          otherFields: { probability: 40, selectiveLogic: 1, useProbability: true },
        },
      ],
      otherFields: { chub: { id: 7, full_path: 'alice/atlas' } },
    },
    otherCardFields: { create_date: '2024-5-1', talkativeness: '0.5', __proto__x: 1 },
    otherDataFields: { mood: { today: ['sunny'] } },
  }
}

describe('exportCardCharx', () => {
  it('zips card.json (V3) and the picture as given, as the main icon the spec names', async () => {
    const webp = await sharp({ create: { width: 6, height: 9, channels: 3, background: '#335577' } })
      .webp()
      .toBuffer()
    const draft = {
      ...fullDraft(),
      assets: [
        { type: 'icon', uri: 'ccdefault:', name: 'main', ext: 'png' },
        { type: 'background', uri: 'https://example.com/bg.png', name: 'bg', ext: 'png' },
      ],
    }
    const zip = await exportCardCharx(draft, webp)
    const files = unzipSync(zip)
    expect(Object.keys(files).sort()).toEqual(['assets/icon/images/main.webp', 'card.json'])
    expect(Buffer.from(files['assets/icon/images/main.webp'] ?? [])).toEqual(webp)
    const card = JSON.parse(Buffer.from(files['card.json'] ?? []).toString('utf8'))
    expect(card).toEqual({
      ...exportCardJson(draft),
      data: { ...(exportCardJson(draft).data as object), assets: card.data.assets },
    })
    expect(card.data.assets).toEqual([
      { type: 'icon', uri: 'embeded://assets/icon/images/main.webp', name: 'main', ext: 'webp' },
      { type: 'background', uri: 'https://example.com/bg.png', name: 'bg', ext: 'png' },
    ])

    // Our own reader takes it back: the same draft, the icon as the avatar byte for byte.
    const back = importCard(zip)
    expect(back.report).toEqual({ repaired: ['icon_from_charx'], ignored: [] })
    expect(back.draft.avatar).toEqual(webp)
    expect({ ...back.draft, avatar: null }).toEqual({ ...draft, avatar: null })
  })

  it('holds card.json alone when there is no picture, and re-encodes a picture of another format as PNG', async () => {
    const draft = { ...fullDraft(), avatar: null }
    expect(Object.keys(unzipSync(await exportCardCharx(draft)))).toEqual(['card.json'])
    const tiff = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#000' } })
      .tiff()
      .toBuffer()
    const files = unzipSync(await exportCardCharx(draft, tiff))
    expect(Object.keys(files).sort()).toEqual(['assets/icon/images/main.png', 'card.json'])
    expect((await sharp(files['assets/icon/images/main.png']).metadata()).format).toBe('png')
  })
})

describe("the card's files (ADR 047)", () => {
  const happy = pngWith(tEXt('Comment', 'happy'))
  const files: CharacterDraft['files'] = [
    { type: 'emotion', name: 'happy', ext: 'png', bytes: happy, contentType: 'image/png' },
    { type: 'other', name: '../../theme', ext: 'mp3', bytes: Buffer.from('ID3 sound'), contentType: 'audio/mpeg' },
    { type: 'emotion', name: 'happy', ext: 'png', bytes: pngWith(), contentType: 'image/png' },
    { type: 'x', name: 'notes', ext: 'lua', bytes: Buffer.from('print(1)'), contentType: 'application/octet-stream' },
  ]

  it('a CHARX carries each at assets/<type>/<images|audio|other>/<name>.<ext>, named embeded://, read back the same', async () => {
    const draft = { ...fullDraft(), files }
    const zip = await exportCardCharx(draft, pngWith())
    const entries = unzipSync(zip)
    const paths = [
      'assets/emotion/images/happy.png',
      // A name is one path segment: its slashes cannot climb out of the folder.
      'assets/other/audio/_.._theme.mp3',
      'assets/emotion/images/happy-2.png',
      'assets/x/other/notes.lua',
    ]
    expect(Object.keys(entries).sort()).toEqual(['assets/icon/images/main.png', 'card.json', ...paths].sort())
    paths.forEach((path, i) => {
      expect(Buffer.from(entries[path] ?? [])).toEqual(files[i]?.bytes)
    })
    const card = JSON.parse(Buffer.from(entries['card.json'] ?? []).toString('utf8'))
    expect(card.data.assets.slice(1)).toEqual(
      files.map((f, i) => ({ type: f.type, uri: `embeded://${paths[i]}`, name: f.name, ext: f.ext })),
    )
    const back = importCard(zip)
    expect(back.report.ignored).toEqual([])
    expect(back.draft.files).toEqual(files)
    // JSON: the files point nowhere, so they are left out; the other assets stay.
    expect((exportCardJson(draft).data as { assets: unknown }).assets).toEqual(draft.assets)
  })

  it('a PNG carries them as chara-ext-asset_ chunks named __asset: while they are small enough', async () => {
    const draft = { ...fullDraft(), files }
    const png = await exportCardPng(draft)
    const chunks = readPngTexts(readPngChunks(png))
    expect(chunks.filter((t) => t.keyword.startsWith('chara-ext-asset_')).map((t) => t.keyword)).toEqual([
      'chara-ext-asset_:0',
      'chara-ext-asset_:1',
      'chara-ext-asset_:2',
      'chara-ext-asset_:3',
    ])
    const { ccv3, chara } = cardChunks(png)
    expect((ccv3 as { data: { assets: unknown[] } }).data.assets.slice(-4)).toEqual(
      files.map((f, i) => ({ type: f.type, uri: `__asset:${i}`, name: f.name, ext: f.ext })),
    )
    expect(chara).not.toHaveProperty('data.assets')
    const back = importCard(png)
    expect(back.report.ignored).toEqual([])
    expect(back.draft.files).toEqual(files)

    const big = { ...draft, files: [{ ...files[3], bytes: Buffer.alloc(CARD_LIMITS.maxPngAssetsBytes + 1) }] }
    const bigPng = await exportCardPng(big as CharacterDraft)
    expect(readPngTexts(readPngChunks(bigPng)).some((t) => t.keyword.startsWith('chara-ext-asset_'))).toBe(false)
    expect(importCard(bigPng).draft.files).toEqual([])
  })
})

describe('exportCardJson', () => {
  it('writes a chara_card_v3 object with V2 fields in data and the V1 fields at the top', () => {
    const draft = fullDraft()
    const card = exportCardJson(draft)
    expect(card).toMatchObject({
      spec: 'chara_card_v3',
      spec_version: '3.0',
      name: 'Mira Vale',
      description: draft.description,
      personality: draft.personality,
      scenario: draft.scenario,
      first_mes: draft.firstMessage,
      mes_example: draft.exampleDialogue,
      data: {
        name: 'Mira Vale',
        first_mes: draft.firstMessage,
        mes_example: draft.exampleDialogue,
        system_prompt: draft.systemPrompt,
        post_history_instructions: draft.postHistoryInstructions,
        alternate_greetings: draft.alternateGreetings,
        group_only_greetings: draft.groupOnlyGreetings,
        // The source's introduction and each translation's, keyed by locale.
        creator_notes_multilingual: { en: draft.creatorNotes, fr: draft.translations.fr?.introduction },
        nickname: 'Mira',
        extensions: { ...draft.extensions, nsfw: true },
        character_book: { name: 'Drowned Atlas', description: 'Places', scan_depth: 3 },
      },
    })
    const data = card.data as { character_book: { entries: Record<string, unknown>[] } }
    expect(data.character_book.entries[1]).toEqual({
      keys: ['^storm$'],
      secondary_keys: [],
      content: 'Storms come from the west.',
      enabled: false,
      insertion_order: -3,
      use_regex: true,
      constant: true,
      position: 'after_char',
      extensions: { sticky: 2 },
      // Fields outside the spec, as the card had them.
      probability: 40,
      selectiveLogic: 1,
      useProbability: true,
    })
    expect(data.character_book).toMatchObject({ chub: { id: 7, full_path: 'alice/atlas' } })
    expect(card).toMatchObject({ create_date: '2024-5-1', talkativeness: '0.5', data: { mood: { today: ['sunny'] } } })
  })

  it('leaves out character_book when there is none, and V3-only fields from the V2 rendering', () => {
    const draft = { ...fullDraft(), characterBook: null }
    expect(exportCardJson(draft).data).not.toHaveProperty('character_book')
    const v2 = exportCardV2Json(fullDraft())
    expect(v2).toMatchObject({ spec: 'chara_card_v2', spec_version: '2.0', name: 'Mira Vale' })
    for (const key of ['group_only_greetings', 'assets', 'nickname', 'creator_notes_multilingual', 'source']) {
      expect(v2.data).not.toHaveProperty(key)
    }
    const entries = (v2.data as { character_book: { entries: object[] } }).character_book.entries
    expect(entries[1]).not.toHaveProperty('use_regex')
  })
})

describe('exportCardPng', () => {
  it('writes a plain 400x600 PNG with chara (V2) and ccv3 (V3) chunks before IEND when there is no avatar', async () => {
    const draft = { ...fullDraft(), avatar: null }
    const png = await exportCardPng(draft)
    const { chara, ccv3, types } = cardChunks(png)
    expect(types.slice(-3)).toEqual(['tEXt', 'tEXt', 'IEND'])
    expect(chara).toEqual(exportCardV2Json(draft))
    expect(ccv3).toEqual(exportCardJson(draft))
    expect(await sharp(png).metadata()).toMatchObject({ format: 'png', ...DEFAULT_CARD_SIZE })
  })

  it('turns the given avatar into a PNG without its EXIF or old card chunks', async () => {
    const jpeg = await sharp({ create: { width: 30, height: 20, channels: 3, background: '#0a6' } })
      .jpeg()
      .withExif({ IFD0: { Artist: 'Secret Name' } })
      .toBuffer()
    const png = await exportCardPng(fullDraft(), jpeg)
    const meta = await sharp(png).metadata()
    expect(meta).toMatchObject({ format: 'png', width: 30, height: 20 })
    expect(meta.exif).toBeUndefined()
    expect(png.includes(Buffer.from('Secret Name'))).toBe(false)

    const oldCard = cardPng({ chara: v2Card({ name: 'Stale' }) })
    const again = await exportCardPng(fullDraft(), oldCard)
    expect(readPngTexts(readPngChunks(again)).map((t) => t.keyword)).toEqual(['chara', 'ccv3'])
    expect(importCard(again).draft.name).toBe('Mira Vale')
  })

  it('refuses an avatar that is not an image', async () => {
    await expect(exportCardPng(fullDraft(), Buffer.from('not an image'))).rejects.toBeInstanceOf(CardError)
  })
})

describe('round trips', () => {
  it('JSON: export then import gives the same draft and an empty report', () => {
    for (const draft of [fullDraft(), importCard(json(v2Card())).draft, importCard(json({ name: 'V1' })).draft]) {
      const again = importCard(json(exportCardJson(draft)))
      expect(again.version).toBe('v3')
      expect(again.draft).toEqual(draft)
      expect(again.report).toEqual({ repaired: [], ignored: [] })
    }
  })

  it('PNG: export then import gives the same draft, the avatar as the same pixels', async () => {
    const avatar = await sharp({ create: { width: 12, height: 18, channels: 4, background: '#c0ffee80' } })
      .png()
      .toBuffer()
    const draft = { ...fullDraft(), avatar }
    const first = importCard(await exportCardPng(draft))
    expect(first.version).toBe('v3')
    expect(first.report).toEqual({ repaired: [], ignored: [] })
    expect({ ...first.draft, avatar: null }).toEqual({ ...draft, avatar: null })
    const pixels = async (png: Buffer | null) => (png ? await sharp(png).raw().toBuffer() : null)
    expect(await pixels(first.draft.avatar)).toEqual(await pixels(avatar))

    // From then on the avatar is stable byte for byte.
    const second = importCard(await exportCardPng(first.draft))
    expect(second.draft).toEqual(first.draft)
  })

  it('PNG: the chara chunk alone gives the draft minus the V3-only fields', async () => {
    const draft = fullDraft()
    const { chara } = cardChunks(await exportCardPng(draft))
    const { draft: fromV2, version } = importCard(pngWith(tEXt('chara', base64Json(chara))))
    expect(version).toBe('v2')
    const {
      nickname: _n,
      creatorNotesMultilingual: _c,
      source: _s,
      creationDate: _d,
      modificationDate: _m,
      ...v2
    } = draft
    const book = draft.characterBook ?? { extensions: {}, entries: [] }
    expect({ ...fromV2, avatar: null }).toEqual({
      ...v2,
      groupOnlyGreetings: [],
      assets: [],
      avatar: null,
      characterBook: { ...book, entries: book.entries.map((e) => ({ ...e, useRegex: false })) },
    })
  })

  it('CHARX import then PNG export then import keeps the character and its icon', async () => {
    const icon = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#123456' } })
      .png()
      .toBuffer()
    const card = v3Card({
      assets: [{ type: 'icon', uri: 'embeded://assets/icon/images/main.png', name: 'main', ext: 'png' }],
    })
    const fromZip = importCard(charx({ 'card.json': JSON.stringify(card), 'assets/icon/images/main.png': icon }))
    const fromPng = importCard(await exportCardPng(fromZip.draft))
    expect({ ...fromPng.draft, avatar: null }).toEqual({ ...fromZip.draft, avatar: null })
    expect(
      await sharp(fromPng.draft.avatar ?? Buffer.alloc(0))
        .raw()
        .toBuffer(),
    ).toEqual(await sharp(icon).raw().toBuffer())
  })
})
