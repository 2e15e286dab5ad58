import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AttachedLorebooks, LorebookDetail, LorebookImportResult, MyLorebooks } from '#contracts/lorebooks.ts'
import { type OpenAiApiDouble, startOpenAiApi } from '#tests/doubles/openai-api.ts'
import { createRole } from '#tests/factories/catalogue.ts'
import { writeModelsFile } from '#tests/helpers/chat.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

// The lorebooks API (ADR 043) end to end: real SillyTavern World Info files and a V3 lorebook in,
// both exports out and in again with nothing lost, owners only, files that are no lorebook refused,
// and an attached book's entry reaching the model's prompt when its key is written.

type Session = Awaited<ReturnType<TestApp['login']>>
type Json = Record<string, unknown>

/** Real files (../shared/cards, read-only); the tests that use them are skipped where it is absent. */
const REAL = path.resolve(import.meta.dirname, '../../../../shared/cards/st')
const hasReal = existsSync(path.join(REAL, 'Eldoria.json'))
const realFile = (name: string) => readFileSync(path.join(REAL, name))

async function multipart(bytes: Uint8Array, name: string) {
  const form = new FormData()
  form.append('file', new Blob([new Uint8Array(bytes)]), name)
  const response = new Response(form)
  return {
    payload: Buffer.from(await response.arrayBuffer()),
    headers: { 'content-type': response.headers.get('content-type') ?? '' },
  }
}

/** A V3 lorebook with what real files carry beside the spec: unknown book, entry and file fields. */
const V3_BOOK = {
  spec: 'lorebook_v3',
  data: {
    name: 'Harbour of Sel',
    description: 'Places and people of the harbour.',
    scan_depth: 6,
    token_budget: 900,
    recursive_scanning: false,
    extensions: { chub: { id: 4242, full_path: 'someone/sel' } },
    book_mood: 'stormy',
    entries: [
      {
        keys: ['lighthouse', 'beacon'],
        secondary_keys: ['night'],
        content: 'The lighthouse of Sel burns whale oil.',
        enabled: true,
        insertion_order: 5,
        use_regex: false,
        case_sensitive: true,
        constant: false,
        selective: true,
        name: 'Lighthouse',
        comment: 'the landmark',
        priority: 10,
        id: 'lh-1',
        position: 'before_char',
        extensions: { depth: 2, selectiveLogic: 3, probability: 80, risu_flag: true },
        probability: 80,
        useProbability: true,
        selectiveLogic: 3,
      },
      {
        keys: ['/kraken|leviathan/i'],
        secondary_keys: [],
        content: 'Something vast sleeps under the quay.',
        enabled: false,
        insertion_order: 7,
        use_regex: true,
        extensions: {},
      },
    ],
  },
}

const WORLD_INFO = {
  entries: {
    '3': {
      uid: 3,
      key: ['compass', 'needle'],
      keysecondary: ['north'],
      comment: 'the compass',
      content: 'The compass of {{char}} points to what its holder fears.',
      constant: false,
      vectorized: false,
      selective: true,
      selectiveLogic: 1,
      addMemo: true,
      order: 100,
      position: 4,
      disable: false,
      excludeRecursion: true,
      preventRecursion: false,
      delayUntilRecursion: 0,
      probability: 100,
      useProbability: true,
      depth: 4,
      group: 'tools',
      groupOverride: false,
      groupWeight: 100,
      scanDepth: null,
      caseSensitive: null,
      matchWholeWords: null,
      useGroupScoring: null,
      automationId: '',
      role: null,
      sticky: 0,
      cooldown: 0,
      delay: 0,
      displayIndex: 0,
      characterFilter: { isExclude: false, names: ['Ione'], tags: [] },
      triggers: ['normal'],
    },
    '0': {
      uid: 0,
      key: ['storm belt'],
      keysecondary: [],
      comment: '',
      content: 'The storm belt never calms.',
      constant: true,
      selective: false,
      order: 1,
      position: 0,
      disable: true,
    },
  },
  originalData: { name: 'kept as it came' },
}

let t: TestApp
let api: OpenAiApiDouble
let owner: Session
let stranger: Session

beforeAll(async () => {
  api = await startOpenAiApi({ reply: () => 'Aye.' })
  const modelsFile = writeModelsFile([
    { id: 'tavern-8b', name: 'Tavern 8B', premium: false, contextTokens: 128_000, baseUrl: api.baseUrl },
  ])
  t = await buildTestApp({ env: { MODELS_FILE: modelsFile } })
  owner = await t.login()
  stranger = await t.login()
})
afterAll(async () => {
  await t.close()
  await api.close()
})

const as = (session: Session | null) => (session ? { authorization: `Bearer ${session.token}` } : {})

async function importFile(bytes: Uint8Array, name: string, session: Session | null = owner) {
  const body = await multipart(bytes, name)
  return t.app.inject({
    method: 'POST',
    url: '/api/lorebooks/import',
    payload: body.payload,
    headers: { ...body.headers, ...as(session) },
  })
}
const importJson = (value: unknown, session: Session = owner, query = '') =>
  t.app.inject({
    method: 'POST',
    url: `/api/lorebooks/import${query}`,
    payload: JSON.stringify(value),
    headers: { 'content-type': 'application/json', ...as(session) },
  })
const call = (
  method: 'GET' | 'PATCH' | 'DELETE' | 'PUT',
  url: string,
  session: Session | null = owner,
  body?: object,
) =>
  t.app.inject({
    method,
    url,
    ...(body ? { payload: body } : {}),
    headers: as(session),
  })

async function imported(res: Awaited<ReturnType<typeof importJson>>) {
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data as LorebookImportResult
}
async function detail(id: string): Promise<LorebookDetail> {
  const res = await call('GET', `/api/lorebooks/${id}`)
  expect(res.statusCode, res.body).toBe(200)
  return res.json().data as LorebookDetail
}
async function exported(id: string, format: 'v3' | 'world_info') {
  const res = await call('GET', `/api/lorebooks/${id}/export.json?format=${format}`)
  expect(res.statusCode, res.body).toBe(200)
  return { file: res.json() as Json, disposition: String(res.headers['content-disposition']) }
}
/** Exports the book and imports the export again: the book read back. */
async function roundTrip(id: string, format: 'v3' | 'world_info') {
  const { file } = await exported(id, format)
  const again = await imported(await importFile(Buffer.from(JSON.stringify(file)), 'again.json'))
  expect(again.format).toBe(format === 'v3' ? 'lorebook_v3' : 'world_info')
  return { file, book: (await detail(again.lorebook.id)).book }
}

describe.skipIf(!hasReal)('real SillyTavern World Info files', () => {
  for (const name of ['Eldoria.json', 'Toaru.json']) {
    it(`${name}: every entry is read field by field, and both exports give it back`, async () => {
      const raw = JSON.parse(realFile(name).toString('utf8')) as { entries: Record<string, Json> }
      const result = await imported(await importFile(realFile(name), name))
      expect(result.format).toBe('world_info')
      // SillyTavern names a world after its file.
      expect(result.lorebook.name).toBe(name.replace('.json', ''))
      const rawEntries = Object.values(raw.entries)
      expect(result.lorebook.entryCount).toBe(rawEntries.length)

      const { book } = await detail(result.lorebook.id)
      book.entries.forEach((entry, i) => {
        const source = rawEntries[i] as Json
        expect(entry.id).toBe(source.uid)
        expect(entry.keys).toEqual(source.key)
        expect(entry.secondaryKeys).toEqual(source.keysecondary)
        expect(entry.content).toBe(source.content)
        expect(entry.comment).toBe(source.comment)
        expect(entry.constant).toBe(source.constant)
        expect(entry.selective).toBe(source.selective)
        expect(entry.insertionOrder).toBe(source.order)
        expect(entry.enabled).toBe(source.disable !== true)
        if ('position' in source) {
          expect(entry.position).toBe(source.position === 0 ? 'before_char' : 'after_char')
          expect(entry.extensions.position).toBe(source.position)
        } else expect(entry.position).toBeUndefined()
      })

      // World Info out: each entry as it came (the older file's entries gain only `disable: false`).
      const worldInfo = await exported(result.lorebook.id, 'world_info')
      expect(worldInfo.disposition).toBe(`attachment; filename="${name}"; filename*=UTF-8''${encodeURIComponent(name)}`)
      const outEntries = worldInfo.file.entries as Record<string, Json>
      expect(Object.keys(outEntries)).toEqual(Object.keys(raw.entries))
      for (const [uid, source] of Object.entries(raw.entries)) {
        const out = outEntries[uid] as Json
        expect(out).toMatchObject(source)
        expect(Object.keys(out).filter((key) => !(key in source))).toEqual('disable' in source ? [] : ['disable'])
        if (!('disable' in source)) expect(out.disable).toBe(false)
      }

      // And in again, through either format: the same book.
      expect((await roundTrip(result.lorebook.id, 'world_info')).book).toEqual(book)
      expect((await roundTrip(result.lorebook.id, 'v3')).book).toEqual(book)
    })
  }
})

describe('lorebook files in and out', () => {
  it('reads a V3 lorebook sent as JSON, keeping the fields outside the spec, and exports it as it came', async () => {
    const result = await imported(await importJson(V3_BOOK))
    expect(result).toMatchObject({ format: 'lorebook_v3', lorebook: { name: 'Harbour of Sel', entryCount: 2 } })
    const { book } = await detail(result.lorebook.id)
    expect(book).toMatchObject({
      name: 'Harbour of Sel',
      description: 'Places and people of the harbour.',
      scanDepth: 6,
      tokenBudget: 900,
      recursiveScanning: false,
      extensions: V3_BOOK.data.extensions,
      book_mood: 'stormy',
    })
    expect(book.entries[0]).toEqual({
      keys: ['lighthouse', 'beacon'],
      secondaryKeys: ['night'],
      content: 'The lighthouse of Sel burns whale oil.',
      enabled: true,
      insertionOrder: 5,
      useRegex: false,
      caseSensitive: true,
      constant: false,
      selective: true,
      name: 'Lighthouse',
      comment: 'the landmark',
      priority: 10,
      id: 'lh-1',
      position: 'before_char',
      extensions: { depth: 2, selectiveLogic: 3, probability: 80, risu_flag: true },
      probability: 80,
      useProbability: true,
      selectiveLogic: 3,
    })

    // V3 out: the file as it came, field by field.
    const v3 = await exported(result.lorebook.id, 'v3')
    expect(v3.file).toEqual(V3_BOOK)
    expect(v3.disposition).toContain(`filename*=UTF-8''Harbour%20of%20Sel.lorebook.json`)
    expect((await roundTrip(result.lorebook.id, 'v3')).book).toEqual(book)

    // Through World Info nothing is lost either (World Info has no place for some card fields:
    // they travel under their card names, and SillyTavern's own come back into `extensions`).
    // A card entry's own `probability`, `useProbability` and `selectiveLogic` have World Info names:
    // they come back in `extensions`, where SillyTavern reads them.
    const viaWorldInfo = await roundTrip(result.lorebook.id, 'world_info')
    const { probability, useProbability, selectiveLogic, ...firstEntry } = book.entries[0] as Json
    expect(viaWorldInfo.book).toMatchObject({ ...book, entries: [firstEntry, book.entries[1]] })
    expect(viaWorldInfo.book.entries[0]?.extensions).toMatchObject({ probability, useProbability, selectiveLogic })
    const wiEntry = Object.values(viaWorldInfo.file.entries as Record<string, Json>)[0]
    expect(wiEntry).toMatchObject({ key: ['lighthouse', 'beacon'], order: 5, position: 0, caseSensitive: true })
  })

  it('reads World Info fields SillyTavern keeps in extensions the way it embeds them, and the others as they are', async () => {
    const result = await imported(await importJson(WORLD_INFO, owner, '?name=Compass%20lore'))
    expect(result).toMatchObject({ format: 'world_info', lorebook: { name: 'Compass lore', entryCount: 2 } })
    const { book } = await detail(result.lorebook.id)
    expect(book.originalData).toEqual({ name: 'kept as it came' })
    // Keyed by uid: read in uid order.
    const [storm, compass] = book.entries
    expect(storm).toMatchObject({ id: 0, constant: true, enabled: false, position: 'before_char', insertionOrder: 1 })
    expect(compass).toMatchObject({
      id: 3,
      keys: ['compass', 'needle'],
      secondaryKeys: ['north'],
      selective: true,
      position: 'after_char',
      extensions: {
        position: 4,
        selectiveLogic: 1,
        exclude_recursion: true,
        prevent_recursion: false,
        group: 'tools',
        group_weight: 100,
        case_sensitive: null,
        match_whole_words: null,
        display_index: 0,
        vectorized: false,
        sticky: 0,
      },
      addMemo: true,
      characterFilter: { isExclude: false, names: ['Ione'], tags: [] },
      triggers: ['normal'],
    })
    expect(compass?.caseSensitive).toBeUndefined()

    const { file, book: again } = await roundTrip(result.lorebook.id, 'world_info')
    expect(again).toEqual(book)
    const entries = file.entries as Record<string, Json>
    expect(entries['3']).toEqual(WORLD_INFO.entries['3'])
    expect(entries['0']).toEqual({ ...WORLD_INFO.entries['0'] })
    expect(file.originalData).toEqual(WORLD_INFO.originalData)
    expect((await roundTrip(result.lorebook.id, 'v3')).book).toEqual(book)
  })

  it('reads a bare character_book, and names a CJK book in its own script on download', async () => {
    const result = await imported(
      await importFile(
        Buffer.from(
          JSON.stringify({
            name: '学園都市',
            entries: [
              { keys: ['能力者'], content: '超能力を持つ学生。', enabled: true, insertion_order: 1, extensions: {} },
            ],
          }),
        ),
        'book.json',
      ),
    )
    expect(result).toMatchObject({ format: 'character_book', lorebook: { name: '学園都市', entryCount: 1 } })
    const { disposition } = await exported(result.lorebook.id, 'world_info')
    expect(disposition).toBe(
      `attachment; filename="____.json"; filename*=UTF-8''${encodeURIComponent('学園都市')}.json`,
    )
  })

  it('refuses files that are no lorebook, each with its reason', async () => {
    const refused = async (res: Awaited<ReturnType<typeof importJson>>, status: number, reason: string) => {
      expect(res.statusCode, res.body).toBe(status)
      expect(res.json()).toMatchObject({
        error: status === 413 ? 'PAYLOAD_TOO_LARGE' : 'INVALID_LOREBOOK',
        details: { reason },
      })
    }
    await refused(
      await importFile(Buffer.from(JSON.stringify({ spec: 'chara_card_v2', data: { name: 'Ione' } })), 'ione.json'),
      400,
      'character_card',
    )
    await refused(
      await importFile(Buffer.from('{"first_mes":"Hi","name":"Old card"}'), 'v1.json'),
      400,
      'character_card',
    )
    await refused(await importFile(Buffer.from('{"title":"a shopping list"}'), 'list.json'), 400, 'not_a_lorebook')
    await refused(await importFile(Buffer.from('\x89PNG\r\n\x1a\n'), 'card.png'), 400, 'bad_json')
    await refused(await importJson([1, 2, 3]), 400, 'not_a_lorebook')
    await refused(await importJson({ spec: 'lorebook_v3', data: { name: 'empty' } }), 400, 'not_a_lorebook')
    const form = await t.app.inject({
      method: 'POST',
      url: '/api/lorebooks/import',
      ...(await (async () => {
        const f = new FormData()
        f.append('other', 'x')
        const r = new Response(f)
        return {
          payload: Buffer.from(await r.arrayBuffer()),
          headers: { 'content-type': r.headers.get('content-type') ?? '', ...as(owner) },
        }
      })()),
    })
    await refused(form, 400, 'empty_file')

    // The importer's bounds: 2,000 entries (and 2 MiB) are kept, one more is refused.
    const entries = (n: number) =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [String(i), { uid: i, key: [`k${i}`], content: 'x' }]))
    const atBound = await imported(
      await importFile(Buffer.from(JSON.stringify({ entries: entries(2000) })), 'big.json'),
    )
    expect(atBound.lorebook.entryCount).toBe(2000)
    expect((await detail(atBound.lorebook.id)).book.entries).toHaveLength(2000)
    const over = await importFile(Buffer.from(JSON.stringify({ entries: entries(2001) })), 'bigger.json')
    await refused(over, 413, 'too_large')
    expect(over.json().details).toMatchObject({ field: 'entries', limit: 2000 })
    const huge = await importFile(
      Buffer.from(JSON.stringify({ entries: { '0': { uid: 0, key: ['a'], content: 'x'.repeat(2 * 1024 * 1024) } } })),
      'huge.json',
    )
    await refused(huge, 413, 'too_large')
  })
})

describe('fields we do not know', () => {
  it("a World Info file's unknown entry and book fields survive import, attaching and both exports", async () => {
    // As JSON text: an object literal would make `__proto__` a prototype, not a field.
    const file = `{
      "entries": {
        "7": {
          "uid": 7, "key": ["lantern"], "keysecondary": [], "comment": "", "content": "The lantern never dims.",
          "constant": false, "selective": true, "order": 50, "position": 1, "disable": false,
          "probability": 35, "useProbability": true, "selectiveLogic": 3, "group": "lights",
          "chub_entry_meta": { "id": 77, "tags": ["glow"] }, "addMemo": false,
          "toString": "a field like any other", "__proto__": { "polluted": true }
        }
      },
      "chub_meta": { "id": 1234, "full_path": "someone/lanterns" },
      "world_mood": "dusk"
    }`
    const user = await t.login()
    const result = await imported(await importFile(Buffer.from(file), 'Lanterns.json', user))
    expect(result.format).toBe('world_info')
    const role = await createRole(t.database.db, { name: 'Ione', creatorId: user.user.id })
    const attach = await call('PUT', `/api/roles/${role}/lorebooks`, user, { lorebookIds: [result.lorebook.id] })
    expect(attach.statusCode, attach.body).toBe(200)
    const exportAs = async (format: 'v3' | 'world_info') => {
      const res = await call('GET', `/api/lorebooks/${result.lorebook.id}/export.json?format=${format}`, user)
      expect(res.statusCode, res.body).toBe(200)
      return JSON.parse(res.body) as Json
    }

    // World Info out: the entry and the book as they came (SillyTavern's fields under their own names).
    const source = JSON.parse(file) as { entries: Record<string, Json> } & Json
    const worldInfo = await exportAs('world_info')
    const entry = (worldInfo.entries as Record<string, Json>)['7'] as Json
    expect(entry).toEqual(source.entries['7'])
    expect(Object.hasOwn(entry, '__proto__')).toBe(true)
    expect(worldInfo).toMatchObject({ chub_meta: source.chub_meta, world_mood: 'dusk' })

    // V3 out: SillyTavern's own fields in `extensions` (as it embeds World Info in a card), the others beside.
    const data = (await exportAs('v3')).data as { entries: Json[] } & Json
    expect(data).toMatchObject({ chub_meta: source.chub_meta, world_mood: 'dusk' })
    expect(data.entries[0]).toMatchObject({
      keys: ['lantern'],
      extensions: { probability: 35, useProbability: true, selectiveLogic: 3, group: 'lights', position: 1 },
      chub_entry_meta: { id: 77, tags: ['glow'] },
      addMemo: false,
      toString: 'a field like any other',
    })
    expect(Object.getOwnPropertyDescriptor(data.entries[0], '__proto__')?.value).toEqual({ polluted: true })
    expect(({} as Json).polluted).toBeUndefined()
  })
})

describe('whose lorebooks', () => {
  it('answers only its owner: a stranger gets 404 everywhere, a visitor 401 before the body is read', async () => {
    const mine = await imported(await importJson(V3_BOOK))
    const id = mine.lorebook.id
    for (const [method, url] of [
      ['GET', `/api/lorebooks/${id}`],
      ['GET', `/api/lorebooks/${id}/export.json?format=world_info`],
      ['DELETE', `/api/lorebooks/${id}`],
    ] as const) {
      const res = await call(method, url, stranger)
      expect(res.statusCode, `${method} ${url}`).toBe(404)
    }
    expect((await call('PATCH', `/api/lorebooks/${id}`, stranger, { name: 'Taken' })).statusCode).toBe(404)
    expect((await call('GET', `/api/lorebooks/${id}`, null)).statusCode).toBe(401)
    const list = (await call('GET', '/api/my/lorebooks', stranger)).json().data as MyLorebooks
    expect(list.items.map((b) => b.id)).not.toContain(id)
    // An anonymous upload is refused before its body is looked at (even a broken one).
    const anonymous = await t.app.inject({
      method: 'POST',
      url: '/api/lorebooks/import',
      payload: '{not json',
      headers: { 'content-type': 'application/json' },
    })
    expect(anonymous.statusCode).toBe(401)

    // A stranger cannot attach my book to their character, nor attach theirs to mine.
    const theirs = await createRole(t.database.db, { name: 'Theirs', creatorId: stranger.user.id })
    expect((await call('PUT', `/api/roles/${theirs}/lorebooks`, stranger, { lorebookIds: [id] })).statusCode).toBe(404)
    const privateRole = await createRole(t.database.db, {
      name: 'Hidden',
      creatorId: stranger.user.id,
      visibility: 'private',
    })
    expect((await call('PUT', `/api/roles/${privateRole}/lorebooks`, owner, { lorebookIds: [id] })).statusCode).toBe(
      404,
    )
    expect((await call('PUT', `/api/roles/${theirs}/lorebooks`, owner, { lorebookIds: [id] })).statusCode).toBe(403)
    expect((await call('GET', `/api/roles/${theirs}/lorebooks`, owner)).statusCode).toBe(403)
  })

  it('lists, renames and deletes; a deleted book leaves the characters it was attached to', async () => {
    const user = await t.login()
    const a = await imported(await importJson(V3_BOOK, user))
    const b = await imported(await importJson(WORLD_INFO, user, '?name=Second'))
    const list = (await call('GET', '/api/my/lorebooks?pageSize=1', user)).json().data as MyLorebooks
    expect(list).toMatchObject({ total: 2, totalPages: 2, page: 1, pageSize: 1 })
    expect(list.items.map((x) => x.id)).toEqual([b.lorebook.id])

    const renamed = await call('PATCH', `/api/lorebooks/${a.lorebook.id}`, user, { name: '  Sel   harbour  ' })
    expect(renamed.json().data).toMatchObject({ name: 'Sel harbour', entryCount: 2 })
    const v3 = await call('GET', `/api/lorebooks/${a.lorebook.id}/export.json`, user)
    expect((v3.json() as { data: Json }).data.name).toBe('Sel harbour')

    const role = await createRole(t.database.db, { name: 'Ione', creatorId: user.user.id })
    const attached = await call('PUT', `/api/roles/${role}/lorebooks`, user, {
      lorebookIds: [b.lorebook.id, a.lorebook.id, b.lorebook.id],
    })
    expect(attached.statusCode, attached.body).toBe(200)
    expect((attached.json().data as AttachedLorebooks).lorebooks.map((x) => x.id)).toEqual([
      b.lorebook.id,
      a.lorebook.id,
    ])
    expect((await call('DELETE', `/api/lorebooks/${b.lorebook.id}`, user)).statusCode).toBe(200)
    const after = (await call('GET', `/api/roles/${role}/lorebooks`, user)).json().data as AttachedLorebooks
    expect(after.lorebooks.map((x) => x.id)).toEqual([a.lorebook.id])
    expect((await call('GET', `/api/lorebooks/${b.lorebook.id}`, user)).statusCode).toBe(404)
  })
})

describe('in the chat', () => {
  it("adds an attached book's enabled entries after the character's own when their keys are written", async () => {
    const user = await t.login()
    const book = await imported(await importJson(WORLD_INFO, user, '?name=Compass'))
    const entryBase = { secondaryKeys: [], enabled: true, useRegex: false, extensions: {} }
    const roleId = await createRole(t.database.db, {
      name: 'Ione',
      creatorId: user.user.id,
      characterBook: {
        extensions: {},
        entries: [
          { ...entryBase, keys: ['harbour'], content: 'The harbour of Sel is Ione’s home.', insertionOrder: 1 },
        ],
      },
    })
    const attach = await call('PUT', `/api/roles/${roleId}/lorebooks`, user, { lorebookIds: [book.lorebook.id] })
    expect(attach.statusCode, attach.body).toBe(200)
    const session = await t.injectWithLogin({ method: 'POST', url: '/api/createSession', payload: { roleId } }, user)
    expect(session.statusCode, session.body).toBe(200)
    const sessionId = session.json().data.id as string
    const send = async (message: string) => {
      const res = await t.injectWithLogin(
        { method: 'POST', url: '/api/chat', payload: { sessionId, message, chatModelId: 'tavern-8b' } },
        user,
      )
      expect(res.statusCode, res.body).toBe(200)
      return String(api.requests.at(-1)?.messages[0]?.content)
    }

    // A selective entry needs one of its secondary keys too.
    const without = await send('The compass needle trembles by the harbour.')
    expect(without).toContain('The harbour of Sel is Ione’s home.')
    expect(without).not.toContain('The compass of Ione')

    const system = await send('I hold the compass up to the harbour light; it swings north.')
    expect(system).toContain('The compass of Ione points to what its holder fears.')
    expect(system).toContain('The harbour of Sel is Ione’s home.')
    // The card's own entry comes first; a disabled entry of the book never comes, constant or not.
    expect(system.indexOf('The harbour of Sel')).toBeLessThan(system.indexOf('The compass of Ione'))
    expect(system).not.toContain('The storm belt never calms.')

    // Detached: the key no longer brings it.
    await call('PUT', `/api/roles/${roleId}/lorebooks`, user, { lorebookIds: [] })
    expect(await send('The compass points north again.')).not.toContain('The compass of Ione')
  })
})
