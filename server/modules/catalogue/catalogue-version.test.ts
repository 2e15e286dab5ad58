import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RoleList } from '#contracts/catalogue.ts'
import { createRole } from '#tests/factories/catalogue.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

// In production the catalogue version is read at most every 200 ms (server/lib/throttled-read.ts):
// here a minute, so only the app's write watch can make a listing read it anew.
describe('the catalogue version read once per interval, and anew after a write the app answered', () => {
  let t: TestApp
  const names = async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/roles?sort=newest' })
    expect(res.statusCode, res.body).toBe(200)
    return (res.json().data as RoleList).items.map((r) => r.name)
  }

  beforeAll(async () => {
    t = await buildTestApp({ listingCache: { versionMaxAgeMs: 60_000 } })
    await createRole(t.database.db, { name: 'Ada' })
  })
  afterAll(() => t?.close())

  it('keeps serving the version it read until the app answers a write', async () => {
    expect(await names()).toEqual(['Ada'])
    // Made behind the app's back (as another instance or a background job would): the version in
    // the database moves, the one in memory does not, within its interval.
    await createRole(t.database.db, { name: 'Bram' })
    expect(await names()).toEqual(['Ada'])
    // Any write this instance answers (even a refused one) makes the next read ask the database.
    const write = await t.app.inject({ method: 'POST', url: '/api/logout', payload: {} })
    expect(write.statusCode).toBeLessThan(500)
    expect(await names()).toEqual(['Bram', 'Ada'])
  })
})
