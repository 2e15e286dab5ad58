import { readFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CHARACTER_LIMITS, type EditableRole, type FieldProblem, type ImportResult } from '#contracts/characters.ts'
import { CARD_LIMITS } from '#server/modules/cards/card-types.ts'
import { v2Card } from '#tests/factories/card-files.ts'
import { createTags } from '#tests/factories/catalogue.ts'
import { draftForm, multipart, REAL_CARDS_DIR, realCharacterCards } from '#tests/helpers/card-forms.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

// Issue 21 items 2, 3 and 6 through the API: limits real cards fit, an import that says what the
// save would refuse (and cuts nothing), one lorebook bound everywhere, tags merged across case.

type Session = Awaited<ReturnType<TestApp['login']>>

const entry = (i: number) => ({
  keys: [`place ${i}`],
  content: `Lore of place ${i}.`,
  enabled: true,
  insertion_order: i,
  extensions: {},
})
const cardWithEntries = (count: number) =>
  Buffer.from(
    JSON.stringify(
      v2Card({
        character_book: { name: 'Atlas', extensions: {}, entries: Array.from({ length: count }, (_, i) => entry(i)) },
      }),
    ),
  )

/** Problems as `path code limit` lines, sorted, to compare an import's report with a save's answer. */
const lines = (problems: FieldProblem[]) =>
  problems.map((p) => [p.path, p.code, p.limit].filter((x) => x !== undefined).join(' ')).sort()

describe('card limits (issue 21): real cards fit, the rest is reported and marked, one lorebook bound', () => {
  let t: TestApp

  beforeAll(async () => {
    t = await buildTestApp()
    await createTags(t.database.db, [
      { slug: 'fantasy', names: { en: 'Fantasy', fr: 'Fantastique' } },
      { slug: 'slice-of-life', names: { en: 'Slice of Life' } },
    ])
  })
  afterAll(() => t?.close())

  const auth = (session: Session) => ({ authorization: `Bearer ${session.token}` })
  const importFile = async (session: Session, bytes: Uint8Array, name: string) => {
    const body = await multipart({ file: { bytes, name } })
    return t.app.inject({
      method: 'POST',
      url: '/api/roles/import?locale=en',
      payload: body.payload,
      headers: { ...body.headers, ...auth(session) },
    })
  }
  const imported = async (session: Session, bytes: Uint8Array, name: string) => {
    const res = await importFile(session, bytes, name)
    expect(res.statusCode, res.body).toBe(200)
    return res.json().data as ImportResult
  }
  /** Saves an imported draft without edits, as the form sends it. */
  const save = async (session: Session, result: ImportResult, avatar?: Buffer) => {
    const { draft } = result
    const body = await multipart({
      ...draftForm(draft, { visibility: 'private', isAdult: draft.isAdult }),
      ...(avatar ? { avatar: { bytes: avatar, name: 'avatar.webp' } } : {}),
    })
    return t.app.inject({
      method: 'POST',
      url: '/api/addRole?locale=en',
      payload: body.payload,
      headers: { ...body.headers, ...auth(session) },
    })
  }

  it('has one lorebook bound: the importer’s is the form’s, the save’s and the response schemas’', () => {
    expect(CHARACTER_LIMITS.lorebookEntries).toBe(CARD_LIMITS.maxLorebookEntries)
    // Every text limit is within what the importer reads, so a field over ours is reported, not refused.
    for (const field of ['introduction', 'scenario', 'personality', 'details', 'firstMessage', 'greeting'] as const) {
      expect(CHARACTER_LIMITS[field], field).toBeLessThanOrEqual(CARD_LIMITS.maxFieldChars)
    }
    // Any lorebook or extras a card can hold (its JSON is at most maxJsonBytes) fits the form's parts.
    expect(CHARACTER_LIMITS.lorebookBytes).toBeGreaterThan(CARD_LIMITS.maxJsonBytes)
    expect(CHARACTER_LIMITS.cardExtrasBytes).toBeGreaterThan(CARD_LIMITS.maxJsonBytes)
  })

  it('imports, saves and reads back lorebooks of 1,999 and 2,000 entries; refuses 2,001 clearly', async () => {
    const maker = await t.login()
    for (const count of [1_999, 2_000]) {
      const result = await imported(maker, cardWithEntries(count), `atlas-${count}.json`)
      expect(result.draft.lorebook?.entries).toHaveLength(count)
      expect(result.report.problems).toEqual([])
      const saved = await save(maker, result)
      expect(saved.statusCode, saved.body).toBe(200)
      const role = saved.json().data as EditableRole
      expect(role.lorebook?.entries).toHaveLength(count)
      const own = await t.app.inject({ method: 'GET', url: `/api/my/roles/${role.roleId}`, headers: auth(maker) })
      expect(own.statusCode, own.body).toBe(200)
      expect(own.json().data.form.lorebook.entries).toHaveLength(count)
    }
    const over = await importFile(maker, cardWithEntries(2_001), 'atlas-2001.json')
    expect(over.statusCode).toBe(413)
    expect(over.json()).toMatchObject({
      error: 'PAYLOAD_TOO_LARGE',
      details: { reason: 'too_large', field: 'character_book.entries', limit: 2_000 },
    })
    // The save says the same of a lorebook sent with too many entries (not "not valid", not a 500).
    const result = await imported(maker, cardWithEntries(2_000), 'atlas.json')
    const lorebook = result.draft.lorebook
    if (!lorebook) throw new Error('no lorebook')
    const sent = {
      ...result,
      draft: { ...result.draft, lorebook: { ...lorebook, entries: [...lorebook.entries, lorebook.entries[0]] } },
    }
    const refused = await save(maker, sent as ImportResult)
    expect(refused.statusCode).toBe(400)
    expect(lines(refused.json().details)).toEqual(['lorebook too_many 2000'])
  })

  it('imports a card with 20-odd tags and a 12k introduction, merges tags across case and spacing, and saves it as it is', async () => {
    const maker = await t.login()
    const names = [
      'Fantasy',
      'FANTASY',
      ' fantasy ',
      'slice of life',
      'Slice  of  Life',
      'Sci-Fi',
      'sci fi',
      ...Array.from({ length: 18 }, (_, i) => `Theme ${i + 1}`),
    ]
    const card = v2Card({
      tags: names,
      creator_notes: `${'Credits, content notes and a guide. '.repeat(340)}`.trim(),
      first_mes: 'a'.repeat(15_000),
      alternate_greetings: ['b'.repeat(18_000)],
    })
    expect(card.data.creator_notes.length).toBeGreaterThan(12_000)
    const result = await imported(maker, Buffer.from(JSON.stringify(card)), 'many-tags.json')
    expect(result.report.problems).toEqual([])
    expect(result.draft.introduction).toBe(card.data.creator_notes)
    expect(result.draft.tags.slice(0, 3)).toEqual([
      { slug: 'fantasy', name: 'Fantasy' },
      { slug: 'slice-of-life', name: 'Slice of Life' },
      { slug: null, name: 'Sci-Fi' },
    ])
    expect(result.draft.tags).toHaveLength(21)
    const saved = await save(maker, result)
    expect(saved.statusCode, saved.body).toBe(200)
    const role = saved.json().data as EditableRole
    expect(role.tags).toHaveLength(21)
    expect(new Set(role.tags.map((tag) => tag.slug)).size).toBe(21)
    expect(role.introduction).toBe(card.data.creator_notes)
  })

  it('keeps what is over the limits, lists it in the report as the save would refuse it, and never says all was read as it was', async () => {
    const maker = await t.login()
    const tags = [...Array.from({ length: CHARACTER_LIMITS.tags + 4 }, (_, i) => `Genre ${i + 1}`), 'chub.ai']
    const card = v2Card({
      tags,
      creator_notes: 'n'.repeat(CHARACTER_LIMITS.introduction + 500),
      alternate_greetings: ['Fine.', 'g'.repeat(CHARACTER_LIMITS.greeting + 1)],
    })
    const result = await imported(maker, Buffer.from(JSON.stringify(card)), 'over.json')
    expect(lines(result.report.problems)).toEqual(
      [
        `alternateGreetings.1 too_long ${CHARACTER_LIMITS.greeting}`,
        `introduction too_long ${CHARACTER_LIMITS.introduction}`,
        `tags too_many ${CHARACTER_LIMITS.tags}`,
        `tags.${tags.length - 1} invalid`,
      ].sort(),
    )
    // Nothing was cut: the user shortens it in the form.
    expect(result.draft.introduction).toHaveLength(CHARACTER_LIMITS.introduction + 500)
    expect(result.draft.tags).toHaveLength(tags.length)
    expect(result.draft.alternateGreetings[1]).toHaveLength(CHARACTER_LIMITS.greeting + 1)
    // Saved as it is, the server refuses exactly what the report said (the form marks the same).
    const refused = await save(maker, result)
    expect(refused.statusCode).toBe(400)
    expect(lines(refused.json().details)).toEqual(lines(result.report.problems))
  })

  it.skipIf(realCharacterCards.length === 0)(
    'real cards: each one fits our limits and saves without edits',
    async () => {
      expect(realCharacterCards.length).toBeGreaterThanOrEqual(20)
      // Imports are limited per user (30 per 10 minutes), saves too (30 an hour): one user per card.
      for (const file of realCharacterCards) {
        const importer = await t.login()
        const result = await imported(importer, readFileSync(path.join(REAL_CARDS_DIR, file)), path.basename(file))
        expect(result.report.problems, file).toEqual([])
        const avatar = result.avatar ? Buffer.from(result.avatar.split(',')[1] ?? '', 'base64') : undefined
        const saved = await save(importer, result, avatar)
        expect(saved.statusCode, `${file}: ${saved.body}`).toBe(200)
      }
    },
  )
})
