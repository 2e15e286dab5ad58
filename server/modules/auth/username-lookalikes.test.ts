import { solveChallenge } from 'altcha-lib'
import { deriveKey } from 'altcha-lib/algorithms/sha'
import { eq, inArray } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { users } from '#db/schema/users.ts'
import { usernameSkeleton } from '#server/lib/username-skeleton.ts'
import { createUser } from '#tests/factories/user.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

describe('username skeletons (UTS #39)', () => {
  it('are equal for names that look alike, across scripts, case and compatibility forms', () => {
    const alike: [string, string][] = [
      ['аdmin', 'admin'], // Cyrillic а
      ['paypaI', 'paypal'], // capital I for l
      ['Вob', 'bob'], // Cyrillic В, and case
      ['ＡＤＭＩＮ', 'ADMIN'], // fullwidth
      ['rnary', 'mary'],
      ['user_1', 'user_l'],
      ['Zoë', 'Zoë'], // precomposed and combining diaeresis
      ['ℓeo', 'leo'],
    ]
    for (const [a, b] of alike) expect(usernameSkeleton(a), `${a} / ${b}`).toBe(usernameSkeleton(b))
  })

  it('stay different for names that do not', () => {
    const different: [string, string][] = [
      ['alice', 'alicia'],
      ['Zoë', 'Zoe'],
      ['al', 'ai'],
      ['дима', 'dima'],
      ['ユキ', 'ユミ'],
    ]
    for (const [a, b] of different) expect(usernameSkeleton(a), `${a} / ${b}`).not.toBe(usernameSkeleton(b))
  })
})

describe('usernames that look like an existing one', () => {
  let t: TestApp
  let n = 0
  const next = () => {
    n += 1
    return n
  }

  beforeAll(async () => {
    t = await buildTestApp()
  })
  afterAll(async () => {
    await t.close()
  })

  async function humanToken(): Promise<string> {
    const challenge = (await t.app.inject({ method: 'GET', url: '/api/public/altcha/challenge' })).json()
    const solution = await solveChallenge({ challenge, deriveKey })
    return Buffer.from(JSON.stringify({ challenge, solution })).toString('base64')
  }

  async function register(username: string) {
    const id = next()
    return t.app.inject({
      method: 'POST',
      url: '/api/register',
      payload: {
        username,
        email: `look-${id}-${Date.now()}@example.test`,
        password: 'a quiet lantern by the sea',
        turnstileToken: await humanToken(),
      },
      remoteAddress: `203.0.113.${id}`,
    })
  }

  const tag = () => Date.now().toString(36).replace(/[0-9]/g, 'x')

  it('refuses to register one, with the answer of a taken name, and changes nothing', async () => {
    const name = `admin${tag()}`
    await createUser(t.database.db, { username: name })
    // A Cyrillic а for the Latin a; "rn" for "m".
    for (const lookAlike of [`а${name.slice(1)}`, name.replace('admin', 'adrnin')]) {
      const res = await register(lookAlike)
      expect(res.statusCode, lookAlike).toBe(409)
      expect(res.json().error).toBe('USERNAME_TAKEN')
      expect(await t.database.db.select().from(users).where(eq(users.username, lookAlike))).toHaveLength(0)
    }
    const paypal = `paypal${tag()}`
    await createUser(t.database.db, { username: paypal })
    expect((await register(paypal.replace('paypal', 'paypaI'))).json().error).toBe('USERNAME_TAKEN')
    // A name that merely shares letters is free.
    expect((await register(`${name}_two`)).statusCode).toBe(200)
  })

  it('lets only one of two look-alikes registering at the same moment in', async () => {
    const name = `racer${tag()}`
    const results = await Promise.all([register(name), register(name.replace('a', 'а'))])
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409])
    const rows = await t.database.db
      .select({ username: users.username })
      .from(users)
      .where(inArray(users.usernameSkeleton, [usernameSkeleton(name)]))
    expect(rows).toHaveLength(1)
  })

  it('fills in the look of names stored before it, at startup, keeping the first of two look-alikes', async () => {
    const name = `oldtimer${tag()}`
    // Rows as they were before the column: no skeleton, and two that already look alike.
    const first = await createUser(t.database.db, { username: name, usernameSkeleton: null })
    const twin = await createUser(t.database.db, { username: name.replace('o', 'о'), usernameSkeleton: null })
    const other = await createUser(t.database.db, { username: `plain${tag()}`, usernameSkeleton: null })

    const result = await t.app.services.auth.backfillUsernameSkeletons()
    expect(result).toMatchObject({ lookAlikes: 1 })
    expect(result.filled).toBeGreaterThanOrEqual(2)
    const skeletonOf = async (id: string) =>
      (await t.database.db.select().from(users).where(eq(users.id, id)))[0]?.usernameSkeleton
    expect(await skeletonOf(first.id)).toBe(usernameSkeleton(name))
    expect(await skeletonOf(twin.id)).toBeNull()
    expect(await skeletonOf(other.id)).toBe(usernameSkeleton(other.username))
    // Now a third look-alike (a Cyrillic і) is refused, and running it again changes nothing.
    expect((await register(name.replace('i', 'і'))).json().error).toBe('USERNAME_TAKEN')
    expect(await t.app.services.auth.backfillUsernameSkeletons()).toEqual({ filled: 0, lookAlikes: 1 })
  })
})
