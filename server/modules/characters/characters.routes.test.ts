import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RoleDetail, RoleList } from '#contracts/catalogue.ts'
import { CHARACTER_LIMITS, type EditableRole, type ImportResult, type MyRole } from '#contracts/characters.ts'
import { importCard } from '#server/modules/cards/import-card.ts'
import { cardPng, chunk, pngWith, SIGNATURE, tEXt, v2Card, v3Card } from '#tests/factories/card-files.ts'
import { createRole, createTags } from '#tests/factories/catalogue.ts'
import { draftForm, type FormField, multipart } from '#tests/helpers/card-forms.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'
import { createCharactersRepo } from './characters.repo.ts'

/** Real cards (../shared/cards, read-only; see its README): the test that uses one is left out where it is absent. */
const CARDS_DIR = path.resolve(import.meta.dirname, '../../../../shared/cards')

type Session = Awaited<ReturnType<TestApp['login']>>
type Field = FormField

async function picture(color: string, format: 'png' | 'jpeg' = 'png', size = 300) {
  const image = sharp({ create: { width: size, height: size, channels: 3, background: color } })
  return format === 'png' ? image.png().toBuffer() : image.jpeg().toBuffer()
}

const fullForm = (overrides: Record<string, Field | undefined> = {}): Record<string, Field | undefined> => ({
  name: 'Captain Ione',
  introduction: 'A privateer who maps the storm belt.',
  scenario: 'The deck of the Gull, at night.',
  personality: 'Bold, wry.',
  details: 'Ione grew up in the harbour of Sel.',
  firstMessage: 'Welcome aboard.',
  alternateGreetings: ['Back again?', 'Mind the rigging.'],
  exampleDialogue: '<START>\n{{user}}: Hi\n{{char}}: Ahoy.',
  tags: ['fantasy', 'Pirate Queen'],
  visibility: 'public',
  isAdult: 'false',
  ...overrides,
})

describe('characters API: create, edit, delete, import, export, report', () => {
  let t: TestApp
  let owner: Session
  let stranger: Session

  const send = async (
    method: 'POST' | 'PUT',
    url: string,
    fields: Record<string, Field | undefined>,
    session: Session | null,
  ) => {
    const body = await multipart(fields)
    return t.app.inject({
      method,
      url,
      payload: body.payload,
      headers: { ...body.headers, ...(session ? { authorization: `Bearer ${session.token}` } : {}) },
    })
  }
  const create = (fields: Record<string, Field | undefined>, session: Session = owner) =>
    send('POST', '/api/addRole', fields, session)
  const get = (url: string, session: Session | null = null, cookie?: string) =>
    t.app.inject({
      method: 'GET',
      url,
      headers: {
        ...(session ? { authorization: `Bearer ${session.token}` } : {}),
        ...(cookie ? { cookie } : {}),
      },
    })
  const importFile = async (bytes: Uint8Array, name: string, session: Session = owner) =>
    send('POST', '/api/roles/import', { file: { bytes, name } }, session)

  beforeAll(async () => {
    t = await buildTestApp()
    owner = await t.login({ username: 'ione_maker' })
    stranger = await t.login()
    await createTags(t.database.db, [
      { slug: 'fantasy', names: { en: 'Fantasy', fr: 'Fantastique' } },
      { slug: 'explorer', names: { en: 'Explorer' } },
    ])
  })
  afterAll(() => t.close())

  it('creates a character with an avatar sniffed from its bytes (a PNG named .jpg), kept whole as WebP', async () => {
    const png = await picture('#3366cc')
    const res = await create(fullForm({ avatar: { bytes: png, name: 'portrait.jpg', type: 'image/jpeg' } }))
    expect(res.statusCode, res.body).toBe(200)
    const role = res.json().data as EditableRole
    expect(role).toMatchObject({
      name: 'Captain Ione',
      introduction: 'A privateer who maps the storm belt.',
      details: 'Ione grew up in the harbour of Sel.',
      alternateGreetings: ['Back again?', 'Mind the rigging.'],
      visibility: 'public',
      isAdult: false,
      lorebook: null,
      bannerUrl: null,
    })
    expect(role.tags).toEqual([
      { slug: 'fantasy', name: 'Fantasy' },
      { slug: 'pirate-queen', name: 'Pirate Queen' },
    ])
    const image = await get(role.avatarUrl ?? '')
    expect(image.statusCode).toBe(200)
    expect(image.headers['content-type']).toBe('image/webp')
    expect(await sharp(image.rawPayload).metadata()).toMatchObject({ format: 'webp', width: 300, height: 300 })
    // The sizes pages show: a 2:3 card frame cut from the square, a square thumbnail.
    for (const [variant, width, height] of [
      ['card-320', 200, 300],
      ['square-128', 128, 128],
    ] as const) {
      const sized = await get(`${role.avatarUrl}/${variant}`)
      expect(sized.statusCode, variant).toBe(200)
      expect(sized.headers['cache-control'], variant).toBe('public, max-age=31536000, immutable')
      expect(await sharp(sized.rawPayload).metadata(), variant).toMatchObject({ format: 'webp', width, height })
    }
    expect((await get(`${role.avatarUrl}/huge-9000`)).statusCode).toBe(400)

    // The page's read model names the creator, and the public listing has it at once.
    const detail = (await get(`/api/role?roleId=${role.roleId}`)).json().data as RoleDetail
    expect(detail.creator).toEqual({ username: 'ione_maker' })
    expect(detail.description).toBe('Ione grew up in the harbour of Sel.')
    const list = (await get('/api/roles?sort=newest&tags=pirate-queen')).json().data as RoleList
    expect(list.items.map((r) => r.roleId)).toEqual([role.roleId])
  })

  it('drops EXIF from an uploaded JPEG', async () => {
    const jpeg = await sharp({ create: { width: 400, height: 200, channels: 3, background: '#884422' } })
      .jpeg()
      .withExif({ IFD0: { Artist: 'Hidden Photographer', Copyright: 'GPS 51.5N' } })
      .toBuffer()
    expect((await sharp(jpeg).metadata()).exif).toBeDefined()
    const res = await create(fullForm({ name: 'Exif Test', banner: { bytes: jpeg, name: 'banner.jpg' } }))
    expect(res.statusCode, res.body).toBe(200)
    const banner = await get((res.json().data as EditableRole).bannerUrl ?? '')
    const meta = await sharp(banner.rawPayload).metadata()
    expect(meta).toMatchObject({ format: 'webp', width: 1500, height: 500 })
    expect(meta.exif).toBeUndefined()
    expect(banner.rawPayload.includes(Buffer.from('Hidden Photographer'))).toBe(false)
  })

  it('refuses a text file named .png, and an image over 5 MiB, naming the field', async () => {
    const before = ((await get('/api/my/roles', owner)).json().data.roles as MyRole[]).length
    const text = await create(
      fullForm({
        avatar: { bytes: Buffer.from('just some words, not a picture'), name: 'avatar.png', type: 'image/png' },
      }),
    )
    expect(text.statusCode).toBe(415)
    expect(text.json()).toMatchObject({
      error: 'UNSUPPORTED_MEDIA_TYPE',
      details: [{ path: 'avatar', code: 'not_an_image' }],
    })
    const svg = await create(
      fullForm({
        banner: { bytes: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="9" height="9"/>'), name: 'b.png' },
      }),
    )
    expect(svg.json()).toMatchObject({ details: [{ path: 'banner', code: 'not_an_image' }] })

    const huge = Buffer.alloc(CHARACTER_LIMITS.imageBytes + 1, 7)
    const big = await create(fullForm({ banner: { bytes: huge, name: 'big.png' } }))
    expect(big.statusCode).toBe(413)
    expect(big.json()).toMatchObject({
      error: 'PAYLOAD_TOO_LARGE',
      details: [{ path: 'banner', code: 'file_too_large', limit: CHARACTER_LIMITS.imageBytes }],
    })
    // Nothing was saved by the refused forms.
    expect(((await get('/api/my/roles', owner)).json().data.roles as MyRole[]).length).toBe(before)
  })

  it('checks every field limit at once and names each field', async () => {
    const res = await create(
      fullForm({
        name: '   ',
        introduction: 'x'.repeat(CHARACTER_LIMITS.introduction + 1),
        alternateGreetings: ['fine', 'y'.repeat(CHARACTER_LIMITS.greeting + 1)],
        tags: Array.from({ length: CHARACTER_LIMITS.tags + 1 }, (_, i) => `tag ${i}`),
        visibility: 'friends-only',
        lorebook: '{"entries": "nope"}',
      }),
    )
    expect(res.statusCode).toBe(400)
    const body = res.json()
    expect(body.error).toBe('VALIDATION_ERROR')
    const problems = (body.details as { path: string; code: string; limit?: number }[]).map((d) =>
      [d.path, d.code, d.limit].filter((x) => x !== undefined).join(' '),
    )
    expect(problems).toEqual(
      expect.arrayContaining([
        'name required',
        `introduction too_long ${CHARACTER_LIMITS.introduction}`,
        `alternateGreetings.1 too_long ${CHARACTER_LIMITS.greeting}`,
        `tags too_many ${CHARACTER_LIMITS.tags}`,
        'visibility invalid',
        'lorebook invalid',
      ]),
    )
    // A NUL character (which PostgreSQL cannot store) is refused, in text and in the lorebook JSON.
    const nulName = await create(fullForm({ name: 'Mira\u0000Vale' }))
    expect(nulName.statusCode).toBe(400)
    expect(nulName.json().error).toBe('VALIDATION_ERROR')
    const nulLore = await create(
      fullForm({ lorebook: JSON.stringify({ extensions: {}, entries: [] }).replace('{}', '{"x":"a\\u0000"}') }),
    )
    expect(nulLore.statusCode).toBe(400)
    expect(nulLore.json().details).toEqual([expect.objectContaining({ path: 'lorebook', code: 'invalid' })])
    // An emoji counts as one character, not two UTF-16 units.
    expect((await create(fullForm({ name: '🦜'.repeat(CHARACTER_LIMITS.name) }))).statusCode).toBe(200)
  })

  it('documents the routes in the OpenAPI document', async () => {
    const doc = (await get('/api/docs/json')).json() as { paths: Record<string, unknown> }
    for (const path of [
      '/api/addRole',
      '/api/roles/{id}',
      '/api/my/roles',
      '/api/roles/import',
      '/api/roles/{id}/report',
    ]) {
      expect(Object.keys(doc.paths), path).toContain(path)
    }
  })

  it('needs a signed-in user and a multipart body', async () => {
    expect((await send('POST', '/api/addRole', fullForm(), null)).statusCode).toBe(401)
    const json = await t.injectWithLogin({ method: 'POST', url: '/api/addRole', payload: { name: 'JSON' } }, owner)
    expect(json.statusCode).toBe(415)
  })

  it('edits and deletes only one’s own characters', async () => {
    const created = (
      await create(fullForm({ name: 'Editable', avatar: { bytes: await picture('#00aa00'), name: 'a.png' } }))
    ).json().data as EditableRole
    const hidden = (await create(fullForm({ name: 'Hidden one', visibility: 'private' }))).json().data as EditableRole

    const edited = await send(
      'PUT',
      `/api/roles/${created.roleId}`,
      fullForm({ name: 'Edited', tags: ['Explorer'] }),
      owner,
    )
    expect(edited.statusCode, edited.body).toBe(200)
    expect(edited.json().data).toMatchObject({ name: 'Edited', tags: [{ slug: 'explorer', name: 'Explorer' }] })
    // No new avatar sent: the old one is kept.
    expect(edited.json().data.avatarUrl).toBe(created.avatarUrl)

    const theirs = await send('PUT', `/api/roles/${created.roleId}`, fullForm({ name: 'Stolen' }), stranger)
    expect(theirs.statusCode).toBe(403)
    expect((await send('PUT', `/api/roles/${hidden.roleId}`, fullForm(), stranger)).statusCode).toBe(404)
    expect((await send('PUT', '/api/roles/nosuchrole', fullForm(), owner)).statusCode).toBe(404)
    const seeded = await createRole(t.database.db, { name: 'Seeded, nobody’s' })
    expect((await send('PUT', `/api/roles/${seeded}`, fullForm(), owner)).statusCode).toBe(403)

    const del = (id: string, session: Session) =>
      t.app.inject({ method: 'DELETE', url: `/api/roles/${id}`, headers: { authorization: `Bearer ${session.token}` } })
    expect((await del(created.roleId, stranger)).statusCode).toBe(403)
    expect((await del(hidden.roleId, stranger)).statusCode).toBe(404)
    expect((await del(created.roleId, owner)).statusCode).toBe(200)
    expect((await get(`/api/role?roleId=${created.roleId}`)).statusCode).toBe(404)
    // Its images went with it.
    expect((await get(created.avatarUrl ?? '')).statusCode).toBe(404)
  })

  it('replaces and removes images, and gates them when the character becomes adult', async () => {
    const role = (
      await create(fullForm({ name: 'Shifting', avatar: { bytes: await picture('#aa0000'), name: 'a.png' } }))
    ).json().data as EditableRole
    const adult = (
      await send('PUT', `/api/roles/${role.roleId}`, fullForm({ name: 'Shifting', isAdult: 'true' }), owner)
    ).json().data as EditableRole
    expect(adult.avatarUrl).not.toBe(role.avatarUrl)
    expect((await get(role.avatarUrl ?? '')).statusCode).toBe(404)
    expect((await get(adult.avatarUrl ?? '')).statusCode).toBe(403)
    expect((await get(adult.avatarUrl ?? '', null, 'adult_ok=1')).statusCode).toBe(200)
    // Every size of it is gated the same way.
    expect((await get(`${adult.avatarUrl}/card-320`)).statusCode).toBe(403)
    expect((await get(`${adult.avatarUrl}/square-128`, null, 'adult_ok=1')).statusCode).toBe(200)
    const card = (await get(`/api/role?roleId=${role.roleId}`)).json().data as RoleDetail
    expect(card.gated).toBe(true)
    expect(card.avatarUrl).toMatch(/^\/api\/public\/images\//)
    expect((await get(card.avatarUrl ?? '')).statusCode).toBe(200)
    // The blurred twin has no sizes of its own: each size answers with it, to anyone.
    const blurredCard = await get(`${card.avatarUrl}/card-640`)
    expect(blurredCard.statusCode).toBe(200)
    expect(blurredCard.headers.etag).toBe((await get(card.avatarUrl ?? '')).headers.etag)

    const removed = (
      await send('PUT', `/api/roles/${role.roleId}`, fullForm({ name: 'Shifting', removeAvatar: 'true' }), owner)
    ).json().data as EditableRole
    expect(removed.avatarUrl).toBeNull()
    expect((await get(card.avatarUrl ?? '')).statusCode).toBe(404)
  })

  it('lists my characters (private ones too) and gives me my private one, nobody else', async () => {
    const secret = (await create(fullForm({ name: 'Only Mine', visibility: 'private' }))).json().data as EditableRole
    const mine = (await get('/api/my/roles', owner)).json().data.roles as MyRole[]
    expect(mine.map((r) => r.name)).toContain('Only Mine')
    expect(mine.find((r) => r.name === 'Only Mine')).toMatchObject({ visibility: 'private', chatCount: 0 })
    expect((await get('/api/my/roles', stranger)).json().data.roles).toEqual([])
    expect((await get('/api/my/roles')).statusCode).toBe(401)

    const own = await get(`/api/my/roles/${secret.roleId}`, owner)
    expect(own.statusCode).toBe(200)
    expect(own.json().data.role).toMatchObject({ name: 'Only Mine', visibility: 'private' })
    expect(own.json().data.form).toMatchObject({ name: 'Only Mine', details: 'Ione grew up in the harbour of Sel.' })
    expect((await get(`/api/my/roles/${secret.roleId}`, stranger)).statusCode).toBe(404)
    expect((await get(`/api/role?roleId=${secret.roleId}`)).statusCode).toBe(404)
    const publicList = (await get('/api/roles?q=only%20mine')).json().data as RoleList
    expect(publicList.total).toBe(0)
  })

  it('imports a V2 PNG card into a draft with the report, saving nothing', async () => {
    const before = ((await get('/api/my/roles', owner)).json().data.roles as MyRole[]).length
    const card = cardPng({ chara: v2Card({ tags: 'fantasy, Sea Witch', extensions: { nsfw: true, mood: 'calm' } }) })
    const res = await importFile(card, 'mira.png')
    expect(res.statusCode, res.body).toBe(200)
    const result = res.json().data as ImportResult
    expect(result).toMatchObject({ version: 'v2', format: 'png' })
    expect(result.draft).toMatchObject({
      name: 'Mira Vale',
      introduction: 'Works best with long replies.',
      details: '{{char}} is a cartographer of drowned cities.',
      personality: 'curious, dry humour',
      firstMessage: 'You found my maps? *She smiles.*',
      alternateGreetings: ['The tide is late today.', 'Another visitor? Sit.'],
      isAdult: true,
      tags: [
        { slug: 'fantasy', name: 'Fantasy' },
        { slug: null, name: 'Sea Witch' },
      ],
      cardExtras: { systemPrompt: 'Stay in character.', creator: 'alice', extensions: { mood: 'calm' } },
    })
    expect(result.draft.lorebook?.entries[0]).toMatchObject({ keys: ['Vell', 'drowned city'], insertionOrder: 10 })
    expect(result.report.repaired).toContain('string_as_list:tags')
    expect(result.avatar).toMatch(/^data:image\/webp;base64,/)
    expect(((await get('/api/my/roles', owner)).json().data.roles as MyRole[]).length).toBe(before)
  })

  it('refuses unreadable cards with INVALID_CARD (or 413 for sizes) and the reason', async () => {
    const reasons: [Uint8Array, string, number, string][] = [
      [Buffer.from('hello, I am a note'), 'note.png', 400, 'not_a_card'],
      [cardPng({ chara: v2Card() }).subarray(0, 60), 'cut.png', 400, 'truncated_png'],
      [pngWith(tEXt('chara', '!!!not base64!!!')), 'bad.png', 400, 'bad_base64'],
      [Buffer.concat([SIGNATURE, chunk('IHDR', Buffer.alloc(13)), chunk('IEND', '')]), 'empty.png', 400, 'not_a_card'],
      [Buffer.from(JSON.stringify(v2Card({ description: 'z'.repeat(50_001) }))), 'long.json', 413, 'too_large'],
    ]
    for (const [bytes, name, status, reason] of reasons) {
      const res = await importFile(bytes, name)
      expect(res.statusCode, name).toBe(status)
      expect(res.json().details, name).toMatchObject({ reason })
      expect(res.json().error, name).toBe(status === 413 ? 'PAYLOAD_TOO_LARGE' : 'INVALID_CARD')
    }
    expect((await send('POST', '/api/roles/import', {}, owner)).json()).toMatchObject({ error: 'INVALID_CARD' })
    expect((await importFile(cardPng({ chara: v2Card() }), 'x.png', null as unknown as Session)).statusCode).toBe(401)
  })

  it('saves an imported card and exports it as JSON and PNG; re-importing gives the same character', async () => {
    const imported = (await importFile(cardPng({ ccv3: v3Card() }), 'mira.png')).json().data as ImportResult
    const avatarBytes = Buffer.from((imported.avatar ?? '').split(',')[1] ?? '', 'base64')
    const { draft } = imported
    const saved = await create({
      ...draftForm(draft, { visibility: 'private', isAdult: draft.isAdult }),
      avatar: { bytes: avatarBytes, name: 'avatar.webp' },
    })
    expect(saved.statusCode, saved.body).toBe(200)
    const role = saved.json().data as EditableRole
    expect(role.lorebook).toEqual(draft.lorebook)
    // The card's languages are stored as the character's, not among its card extras (ADR 041).
    const { sourceLanguage, translations, ...storedExtras } = draft.cardExtras
    expect(role.cardExtras).toEqual(storedExtras)
    expect(role.sourceLanguage).toBe(sourceLanguage)
    expect(translations?.map((t) => t.locale)).toEqual(['fr'])

    // Private: its creator only.
    expect((await get(`/api/roles/${role.roleId}/export.json`)).statusCode).toBe(404)
    expect((await get(`/api/roles/${role.roleId}/export.png`, stranger)).statusCode).toBe(404)

    const json = await get(`/api/roles/${role.roleId}/export.json`, owner)
    expect(json.statusCode).toBe(200)
    expect(json.headers['content-disposition']).toContain('attachment; filename="Mira_Vale.json"')
    expect(json.json()).toMatchObject({ spec: 'chara_card_v3', data: { name: 'Mira Vale', creator: 'alice' } })
    const png = await get(`/api/roles/${role.roleId}/export.png`, owner)
    expect(png.statusCode).toBe(200)
    expect(png.headers['content-type']).toBe('image/png')

    const fromJson = (await importFile(json.rawPayload, 'Mira_Vale.json')).json().data as ImportResult
    const fromPng = (await importFile(png.rawPayload, 'Mira_Vale.png')).json().data as ImportResult
    // Tags are a set here (listed by slug), so a card's tag order is not kept.
    const bySlug = (d: ImportResult['draft']) => ({
      ...d,
      tags: [...d.tags].sort((a, b) => a.name.localeCompare(b.name)),
    })
    expect(bySlug(fromJson.draft)).toEqual(bySlug(draft))
    expect(bySlug(fromPng.draft)).toEqual(bySlug(draft))
    expect(fromPng.version).toBe('v3')
    // The picture survives as the same pixels.
    const stored = await get(role.avatarUrl ?? '')
    const pixels = (bytes: Buffer) => sharp(bytes).raw().toBuffer()
    const exported = importCard(png.rawPayload).draft.avatar ?? Buffer.alloc(0)
    expect(await pixels(exported)).toEqual(await pixels(stored.rawPayload))
    expect(await pixels(exported)).toEqual(await pixels(importCard(cardPng({ ccv3: v3Card() })).draft.avatar as Buffer))

    // Public ones export for anyone; adult ones after the age confirmation, like their page.
    const open = (await create(fullForm({ name: 'Open Card' }))).json().data as EditableRole
    expect((await get(`/api/roles/${open.roleId}/export.json`)).statusCode).toBe(200)
    const adult = (await create(fullForm({ name: 'Adult Card', isAdult: 'true' }))).json().data as EditableRole
    expect((await get(`/api/roles/${adult.roleId}/export.png`)).statusCode).toBe(403)
    const confirmed = await get(`/api/roles/${adult.roleId}/export.json`, null, 'adult_ok=1')
    expect(confirmed.statusCode).toBe(200)
    expect(confirmed.json().data.extensions).toMatchObject({ nsfw: true })
  })

  /** A 400x600 portrait card: red top band, blue bottom band, detailed middle, a V2 `chara` chunk. */
  async function portraitCard() {
    const { data, info } = await sharp({ create: { width: 400, height: 600, channels: 3, background: '#808080' } })
      .raw()
      .toBuffer({ resolveWithObject: true })
    for (let i = 0; i < data.length; i += 3) {
      const y = Math.floor(i / 3 / 400)
      if (y < 100) data.set([220, 30, 30], i)
      else if (y >= 500) data.set([30, 30, 220], i)
      else data.fill((i * 7) % 251, i, i + 3)
    }
    const png = await sharp(data, { raw: info }).png().toBuffer()
    const card = tEXt('chara', Buffer.from(JSON.stringify(v2Card())).toString('base64'))
    return Buffer.concat([png.subarray(0, -12), card, png.subarray(-12)])
  }

  const portraits = [
    ['a 400x600 portrait card', () => portraitCard()],
    ...(existsSync(CARDS_DIR)
      ? [
          [
            'the real card default_Seraphina.png',
            async () => readFileSync(path.join(CARDS_DIR, 'st/default_Seraphina.png')),
          ],
        ]
      : []),
  ] as [string, () => Promise<Buffer>][]

  it.each(portraits)('keeps %s whole from import to export', async (_name, read) => {
    const file = await read()
    const cardPicture = await sharp(file).raw().toBuffer({ resolveWithObject: true })
    expect(cardPicture.info).toMatchObject({ width: 400, height: 600 })
    const imported = (await importFile(file, 'portrait.png')).json().data as ImportResult
    const preview = Buffer.from((imported.avatar ?? '').split(',')[1] ?? '', 'base64')
    expect(await sharp(preview).metadata()).toMatchObject({ format: 'webp', width: 400, height: 600 })
    const saved = await create(
      fullForm({ name: imported.draft.name, tags: [], avatar: { bytes: preview, name: 'avatar.webp' } }),
    )
    expect(saved.statusCode, saved.body).toBe(200)
    const role = saved.json().data as EditableRole
    const card = await get(`${role.avatarUrl}/card-320`)
    expect(await sharp(card.rawPayload).metadata()).toMatchObject({ width: 320, height: 480 })
    const png = await get(`/api/roles/${role.roleId}/export.png`)
    expect(png.statusCode).toBe(200)
    const exported = await sharp(importCard(png.rawPayload).draft.avatar ?? undefined)
      .raw()
      .toBuffer({ resolveWithObject: true })
    expect(exported.info).toMatchObject({ width: 400, height: 600, channels: cardPicture.info.channels })
    expect(exported.data.equals(cardPicture.data)).toBe(true)
  })

  it('stores reports from anyone, refuses unknown reasons and limits the rate', async () => {
    const role = (await create(fullForm({ name: 'Reported' }))).json().data as EditableRole
    const report = (body: unknown, session: Session | null = null, id = role.roleId) =>
      t.app.inject({
        method: 'POST',
        url: `/api/roles/${id}/report`,
        payload: body as Record<string, unknown>,
        headers: session ? { authorization: `Bearer ${session.token}` } : {},
      })
    expect((await report({ reason: 'spam', text: '  Same ad everywhere.  ' }, stranger)).statusCode).toBe(200)
    expect((await report({ reason: 'unmarked_adult' })).statusCode).toBe(200)
    expect((await report({ reason: 'because' })).statusCode).toBe(400)
    expect((await report({ reason: 'other', text: 'x'.repeat(CHARACTER_LIMITS.reportText + 1) })).statusCode).toBe(400)
    expect((await report({ reason: 'spam' }, null, 'nosuchrole')).statusCode).toBe(404)

    const repo = createCharactersRepo(t.database.db)
    const ownership = await repo.findOwnership(role.roleId)
    const stored = await repo.reportsOf(ownership?.id ?? 0)
    expect(stored.map((r) => [r.reason, r.text, r.reporterId, r.status])).toEqual([
      ['spam', 'Same ad everywhere.', stranger.user.id, 'open'],
      ['unmarked_adult', '', null, 'open'],
    ])

    const codes: number[] = []
    for (let i = 0; i < 10; i++) codes.push((await report({ reason: 'spam' }, stranger)).statusCode)
    expect(codes.filter((c) => c === 429).length).toBeGreaterThan(0)
  })
})

describe('tags users make (issue 16, item 13)', () => {
  let t: TestApp
  const send = async (method: 'POST' | 'PUT', url: string, fields: Record<string, Field>, session: Session) => {
    const body = await multipart(fields)
    return t.app.inject({
      method,
      url,
      payload: body.payload,
      headers: { ...body.headers, authorization: `Bearer ${session.token}` },
    })
  }
  const form = (tags: string[], visibility: 'public' | 'private' = 'public') => ({
    name: 'Tagged',
    introduction: 'x',
    visibility,
    tags,
  })
  const listedTags = async () =>
    (
      (await t.app.inject({ method: 'GET', url: '/api/tags' })).json().data.tags as { slug: string; name: string }[]
    ).map((tag) => tag.name)
  const tagRows = () => createCharactersRepo(t.database.db).allTags()

  beforeAll(async () => {
    t = await buildTestApp()
    await createTags(t.database.db, [{ slug: 'fantasy', names: { en: 'Fantasy', fr: 'Fantastique' } }])
    await createRole(t.database.db, { name: 'Seeded', tagSlugs: ['fantasy'] })
  })
  afterAll(() => t.close())

  it('lists only the tags public characters carry', async () => {
    const spammer = await t.login()
    const res = await send('POST', '/api/addRole', form(['FREE DIAMONDS now', 'Harbour Tales'], 'private'), spammer)
    expect(res.statusCode, res.body).toBe(200)
    const publicId = res.json().data.roleId as string
    expect(await listedTags()).toEqual(['Fantasy'])
    // Made public, its tags are listed; private again, they are not.
    const edit = (visibility: 'public' | 'private') =>
      send('PUT', `/api/roles/${publicId}`, form(['FREE DIAMONDS now', 'Harbour Tales'], visibility), spammer)
    expect((await edit('public')).statusCode).toBe(200)
    await expect.poll(listedTags).toEqual(expect.arrayContaining(['Fantasy', 'FREE DIAMONDS now', 'Harbour Tales']))
    expect((await edit('private')).statusCode).toBe(200)
    await expect.poll(listedTags).toEqual(['Fantasy'])
  })

  it('normalises new tag names and refuses addresses', async () => {
    const writer = await t.login()
    const res = await send('POST', '/api/addRole', form(['  Ｓｅａ \t  Ｓｔｏｒｍ\u200b  ', 'sea storm']), writer)
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json().data.tags).toEqual([{ slug: 'sea-storm', name: 'Sea Storm' }])
    for (const name of ['FREE DIAMONDS at evil.example', 'www.evil', 'see https://x', 'mail me@x']) {
      const refused = await send('POST', '/api/addRole', form([name]), writer)
      expect(refused.statusCode, name).toBe(400)
      expect(refused.json().details).toEqual([expect.objectContaining({ path: 'tags.0', code: 'invalid' })])
    }
    expect((await tagRows()).flatMap((tag) => Object.values(tag.names))).not.toContain('FREE DIAMONDS at evil.example')
  })

  it('limits how many tags one user has made, and counts only those that still exist', async () => {
    const maker = await t.login()
    const limit = CHARACTER_LIMITS.userMadeTags
    const ids: string[] = []
    for (let made = 0; made < limit; made += CHARACTER_LIMITS.tags) {
      const names = Array.from({ length: Math.min(CHARACTER_LIMITS.tags, limit - made) }, (_, i) => `maker ${made + i}`)
      const res = await send('POST', '/api/addRole', form(names, 'private'), maker)
      expect(res.statusCode, res.body).toBe(200)
      ids.push(res.json().data.roleId)
    }
    const over = await send('POST', '/api/addRole', form(['one too many']), maker)
    expect(over.statusCode).toBe(400)
    expect(over.json().details).toEqual([expect.objectContaining({ path: 'tags', code: 'too_many', limit })])
    // Existing tags may still be chosen.
    expect((await send('POST', '/api/addRole', form(['fantasy', 'maker 0']), maker)).statusCode).toBe(200)
    // Someone else is not held by this user's count.
    expect((await send('POST', '/api/addRole', form(['one too many']), await t.login())).statusCode).toBe(200)
    // Deleting a character frees the tags only it carried.
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/api/roles/${ids[1]}`,
      headers: { authorization: `Bearer ${maker.token}` },
    })
    expect(deleted.statusCode).toBe(200)
    expect((await send('POST', '/api/addRole', form(['now there is room']), maker)).statusCode).toBe(200)
  })

  it('deletes a tag users made once no character carries it, and keeps the site’s own', async () => {
    await createTags(t.database.db, [{ slug: 'lighthouse', names: { en: 'Lighthouse' } }])
    const writer = await t.login()
    const reader = await t.login()
    const made = await send('POST', '/api/addRole', form(['Passing Fancy', 'lighthouse']), writer)
    const publicId = made.json().data.roleId as string
    const other = await send('POST', '/api/addRole', form(['Passing Fancy']), reader)
    const otherId = other.json().data.roleId as string
    const slugs = async () => (await tagRows()).map((tag) => tag.slug)
    expect(await slugs()).toEqual(expect.arrayContaining(['passing-fancy', 'lighthouse']))
    // Another character still carries it: it stays when the first lets go of it.
    expect((await send('PUT', `/api/roles/${publicId}`, form([]), writer)).statusCode).toBe(200)
    expect(await slugs()).toContain('passing-fancy')
    // The last one lets go: it is gone. The site's own tag, carried by nothing now, stays.
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/api/roles/${otherId}`,
      headers: { authorization: `Bearer ${reader.token}` },
    })
    expect(deleted.statusCode).toBe(200)
    expect(await slugs()).not.toContain('passing-fancy')
    expect(await slugs()).toContain('lighthouse')
  })
})
