import sharp from 'sharp'
import { describe, expect, it } from 'vitest'
import { base64Json, cardPng, charx, pngWith, tEXt, v2Card, v3Card } from '#tests/factories/card-files.ts'
import { CardError, type CharacterDraft } from './card-types.ts'
import { DEFAULT_CARD_SIZE, exportCardJson, exportCardPng, exportCardV2Json } from './export-card.ts'
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
        },
      ],
    },
  }
}

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
        creator_notes_multilingual: draft.creatorNotesMultilingual,
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
    })
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
