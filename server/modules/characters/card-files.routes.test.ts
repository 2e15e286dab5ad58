// A card's files (ADR 047) through the API: import holds them, the save keeps them, the exports
// carry them, delete removes them. The CHARX export is read by a small zip reader written here on
// node:zlib, not by the product's. Runs on PostgreSQL too (TEST_DATABASE_URL, TEST_REDIS_URL).
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { crc32, inflateRawSync } from 'node:zlib'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { EditableRole, ImportResult } from '#contracts/characters.ts'
import { roleAssets } from '#db/schema/role-assets.ts'
import { importCard } from '#server/modules/cards/import-card.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

const CARD = path.resolve(import.meta.dirname, '../../../../shared/cards/ca/v3_many_assets_01.charx')

/** name -> bytes of a zip, through its central directory, each entry's CRC checked. */
function unzip(bytes: Buffer): Map<string, Buffer> {
  let eocd = bytes.length - 22
  while (eocd >= 0 && bytes.readUInt32LE(eocd) !== 0x06054b50) eocd--
  const files = new Map<string, Buffer>()
  let at = bytes.readUInt32LE(eocd + 16)
  for (let i = 0; i < bytes.readUInt16LE(eocd + 10); i++) {
    const method = bytes.readUInt16LE(at + 10)
    const crc = bytes.readUInt32LE(at + 16)
    const compressed = bytes.readUInt32LE(at + 20)
    const nameLength = bytes.readUInt16LE(at + 28)
    const local = bytes.readUInt32LE(at + 42)
    const name = bytes.toString('utf8', at + 46, at + 46 + nameLength)
    const start = local + 30 + bytes.readUInt16LE(local + 26) + bytes.readUInt16LE(local + 28)
    const raw = bytes.subarray(start, start + compressed)
    const data = method === 8 ? inflateRawSync(raw) : Buffer.from(raw)
    expect(crc32(data) >>> 0, name).toBe(crc)
    files.set(name, data)
    at += 46 + nameLength + bytes.readUInt16LE(at + 30) + bytes.readUInt16LE(at + 32)
  }
  return files
}

/** The embedded assets of a CHARX as `type/name` -> bytes, through its card.json's `embeded://` URIs. */
function embedded(zip: Map<string, Buffer>): Map<string, Buffer> {
  const card = JSON.parse((zip.get('card.json') ?? Buffer.alloc(0)).toString('utf8'))
  const out = new Map<string, Buffer>()
  for (const asset of card.data.assets as { type: string; uri: string; name: string }[]) {
    const entry = /^embedd?ed:\/\/(.+)$/.exec(asset.uri)?.[1]
    if (entry) out.set(`${asset.type}/${asset.name}`, zip.get(entry) ?? Buffer.alloc(0))
  }
  return out
}

async function multipart(fields: Record<string, string | { bytes: Uint8Array; name: string }>) {
  const form = new FormData()
  for (const [key, value] of Object.entries(fields)) {
    if (typeof value === 'string') form.append(key, value)
    else form.append(key, new Blob([new Uint8Array(value.bytes)]), value.name)
  }
  const response = new Response(form)
  return {
    payload: Buffer.from(await response.arrayBuffer()),
    headers: { 'content-type': response.headers.get('content-type') ?? '' },
  }
}

describe.runIf(existsSync(CARD))('a card’s files travel (ADR 047)', () => {
  let t: TestApp
  let token: string
  let other: string
  const send = async (method: 'POST' | 'PUT', url: string, fields: Parameters<typeof multipart>[0], as = token) => {
    const body = await multipart(fields)
    return t.app.inject({
      method,
      url,
      payload: body.payload,
      headers: { ...body.headers, authorization: `Bearer ${as}` },
    })
  }
  const get = (url: string) => t.app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } })
  const rowsOf = async (roleId: number) =>
    t.database.db.select().from(roleAssets).where(eq(roleAssets.roleId, roleId)).orderBy(roleAssets.position)

  beforeAll(async () => {
    t = await buildTestApp()
    token = (await t.login({ username: 'asset_keeper' })).token
    other = (await t.login()).token
  })
  afterAll(() => t.close())

  it('v3_many_assets_01.charx: import, save, export as CHARX (all 5 assets byte for byte) and PNG; delete removes them', async () => {
    const card = readFileSync(CARD)
    const original = embedded(unzip(card))
    expect(original.size).toBe(5)

    const imported = await send('POST', '/api/roles/import', { file: { bytes: card, name: 'many.charx' } })
    expect(imported.statusCode, imported.body).toBe(200)
    const result = imported.json().data as ImportResult
    expect(result.cardFiles?.count).toBe(4)
    expect(result.report.ignored).toEqual([])

    // Another user cannot take them with the token; the owner's save can.
    const d = result.draft
    const form = {
      name: d.name,
      firstMessage: d.firstMessage,
      details: d.details,
      cardExtras: JSON.stringify(d.cardExtras),
      cardFiles: result.cardFiles?.token ?? '',
      avatar: { bytes: Buffer.from((result.avatar ?? '').split(',')[1] ?? '', 'base64'), name: 'a.webp' },
    }
    const stolen = await send('POST', '/api/addRole', form, other)
    expect(stolen.statusCode).toBe(400)
    expect(stolen.json(), stolen.body).toMatchObject({ details: [{ path: 'cardFiles', code: 'invalid' }] })
    const saved = await send('POST', '/api/addRole', form)
    expect(saved.statusCode, saved.body).toBe(200)
    const role = saved.json().data as EditableRole
    expect(role.cardFileCount).toBe(4)
    // The token was used up: a second save with it is refused, nothing is lost unseen.
    expect((await send('POST', '/api/addRole', form)).statusCode).toBe(400)

    const charx = await get(`/api/roles/${role.roleId}/export.charx`)
    expect(charx.statusCode).toBe(200)
    const exported = embedded(unzip(charx.rawPayload))
    expect([...exported.keys()].sort()).toEqual([...original.keys()].sort())
    for (const [key, bytes] of original) {
      // The main icon is the avatar, kept as lossless WebP (ADR 042): the same picture, not the same bytes.
      if (key !== 'icon/main') expect(exported.get(key), key).toEqual(bytes)
    }

    const png = await get(`/api/roles/${role.roleId}/export.png`)
    const back = importCard(png.rawPayload)
    expect(back.report.ignored).toEqual([])
    expect(back.draft.files.map((f) => [`${f.type}/${f.name}`, f.bytes])).toEqual(
      [...original].filter(([key]) => key !== 'icon/main'),
    )
    const json = (await get(`/api/roles/${role.roleId}/export.json`)).json()
    expect(JSON.stringify(json)).not.toMatch(/embeded:|__asset:/)

    const [row] = await t.database.db.select({ id: roleAssets.roleId }).from(roleAssets).limit(1)
    const roleId = row?.id ?? -1
    expect((await rowsOf(roleId)).map((r) => [r.name, r.byteSize, r.sha256.length])).toEqual([
      ['expression_happy', 140, 64],
      ['expression_sad', 140, 64],
      ['background', 140, 64],
      ['item', 140, 64],
    ])

    // An edit without the part keeps them; removeCardFiles drops them.
    const kept = await send('PUT', `/api/roles/${role.roleId}`, { name: 'Renamed' })
    expect(kept.statusCode, kept.body).toBe(200)
    expect((kept.json().data as EditableRole).cardFileCount).toBe(4)
    const removed = await send('PUT', `/api/roles/${role.roleId}`, { name: 'Renamed', removeCardFiles: 'true' })
    expect((removed.json().data as EditableRole).cardFileCount).toBe(0)
    expect(await rowsOf(roleId)).toEqual([])

    // Deleting a character deletes its files.
    const again = (await send('POST', '/api/roles/import', { file: { bytes: card, name: 'many.charx' } })).json()
      .data as ImportResult
    const second = (await send('POST', '/api/addRole', { ...form, cardFiles: again.cardFiles?.token ?? '' })).json()
      .data as EditableRole
    const [secondRow] = await t.database.db.select({ id: roleAssets.roleId }).from(roleAssets).limit(1)
    expect(secondRow).toBeDefined()
    expect(
      (
        await t.app.inject({
          method: 'DELETE',
          url: `/api/roles/${second.roleId}`,
          headers: { authorization: `Bearer ${token}` },
        })
      ).statusCode,
    ).toBe(200)
    expect(await t.database.db.select().from(roleAssets)).toEqual([])
  })
})
