import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { sql } from 'drizzle-orm'
import { Redis } from 'ioredis'
import pg from 'pg'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type DatabaseHandle, openDatabase } from '#db/client.ts'
import { users } from '#db/schema/users.ts'
import { hashPassword } from '#server/modules/auth/passwords.ts'
import { type StripeApiDouble, startStripeApi } from '#tests/doubles/stripe-api.ts'
import { type RunningServer, startServer } from '#tests/e2e/browser.ts'

// Issue 11, several instances: two app processes on one PostgreSQL and one Redis, exactly as
// docs/deployment.md describes, started at the same moment (their migrations and demo seeding race).
// Runs when TEST_DATABASE_URL and TEST_REDIS_URL are set (the CI's second pass); each run takes a
// database of its own on that server and a Redis database it empties first. It needs `npm run build`.

const databaseUrl = process.env.TEST_DATABASE_URL
const redisUrl = process.env.TEST_REDIS_URL
// The real server needs the production build (CI builds it before this pass).
const built = existsSync(path.resolve(import.meta.dirname, '..', '..', 'build', 'server', 'index.js'))
const REDIS_DB = 11
const PASSWORD = 'Two-instances-password-42'
const stripeKeys = { secretKey: 'sk_test_two_instances', webhookSecret: 'whsec_test_two_instances' }

describe.skipIf(!databaseUrl || !redisUrl || !built)('two instances on one PostgreSQL and Redis', () => {
  let a: RunningServer
  let b: RunningServer
  let stripe: StripeApiDouble
  let database: DatabaseHandle
  let scratchUrl = ''
  const scratchName = `two_instances_${randomBytes(4).toString('hex')}`

  async function admin<T>(run: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: databaseUrl })
    await client.connect()
    try {
      return await run(client)
    } finally {
      await client.end()
    }
  }

  async function newUser(name: string) {
    const email = `${name}@two.test`
    await database.db.insert(users).values({
      username: name,
      email,
      passwordHash: await hashPassword(PASSWORD),
      emailVerifiedAt: new Date(),
    })
    return email
  }

  const call = async (
    server: RunningServer,
    path: string,
    init: { body?: unknown; token?: string; method?: string } = {},
  ) => {
    const res = await fetch(`${server.url}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: {
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    })
    const text = await res.text()
    // biome-ignore lint/suspicious/noExplicitAny: each test reads the fields of the call it made
    return { status: res.status, body: text ? (JSON.parse(text) as { data?: any; error?: string }) : {} }
  }

  const login = (server: RunningServer, email: string, password = PASSWORD) =>
    call(server, '/api/login', { body: { email, password } })

  beforeAll(async () => {
    await admin((client) => client.query(`create database ${scratchName}`))
    const url = new URL(databaseUrl as string)
    url.pathname = `/${scratchName}`
    scratchUrl = url.toString()
    const redis = new Redis(`${(redisUrl as string).replace(/\/\d*$/, '')}/${REDIS_DB}`)
    await redis.flushdb()
    redis.disconnect()
    stripe = await startStripeApi(stripeKeys)
    const env = {
      NODE_ENV: 'test',
      DATABASE_URL: scratchUrl,
      REDIS_URL: `${(redisUrl as string).replace(/\/\d*$/, '')}/${REDIS_DB}`,
      JWT_SECRET: 'two-instances-share-this-secret-0123456789',
      CRON_SECRET: 'two-instances-cron-secret-0123456789',
      STRIPE_SECRET_KEY: stripeKeys.secretKey,
      STRIPE_WEBHOOK_SECRET: stripeKeys.webhookSecret,
      STRIPE_API_URL: stripe.url,
      PAYMENTS_SANDBOX: 'false',
      LLM_BASE_URL: 'http://127.0.0.1:9/v1',
    }
    // Both at once: migrations (advisory lock) and the demo content must cope with a twin.
    ;[a, b] = await Promise.all([startServer(env), startServer(env)])
    database = openDatabase({ url: scratchUrl, dataDir: '' })
  }, 180_000)

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()])
    await database?.close()
    await stripe?.close()
    await admin((client) => client.query(`drop database if exists ${scratchName} with (force)`))
  }, 60_000)

  it('both start on the same database at the same moment and serve the same catalogue', async () => {
    const [fromA, fromB] = await Promise.all([call(a, '/api/roles?pageSize=100'), call(b, '/api/roles?pageSize=100')])
    expect(fromA.status).toBe(200)
    expect(fromB.body.data.total).toBe(fromA.body.data.total)
    expect(fromA.body.data.total).toBeGreaterThan(0)
  })

  it('a login on one is valid on the other; refresh rotation is shared (a reused token revokes the family)', async () => {
    const email = await newUser('alba')
    const first = await login(a, email)
    expect(first.status).toBe(200)
    const { token, refreshToken } = first.body.data
    expect((await call(b, '/api/userInfo', { body: {}, token })).body.data.username).toBe('alba')

    const rotated = await call(a, '/api/refresh', { body: { refreshToken } })
    expect(rotated.status).toBe(200)
    // A sibling request within seconds would still be let in (ADR 026); a replay after that is not.
    await database.db.execute(
      sql`update refresh_tokens set used_at = used_at - interval '1 minute' where used_at is not null`,
    )
    // The old refresh token, replayed on the other instance, is refused and ends the login there too.
    expect((await call(b, '/api/refresh', { body: { refreshToken } })).status).toBe(401)
    expect((await call(a, '/api/refresh', { body: { refreshToken: rotated.body.data.refreshToken } })).status).toBe(401)
  })

  it('"log out everywhere" on one ends the access tokens on the other at once, even one it already checked', async () => {
    const email = await newUser('wren')
    const phone = (await login(b, email)).body.data
    const laptop = (await login(a, email)).body.data
    // Instance b has checked the laptop's token once: its signature check is cached there.
    expect((await call(b, '/api/userInfo', { body: {}, token: laptop.token })).status).toBe(200)

    const ended = await call(a, '/api/logout-all', { method: 'POST', token: laptop.token })
    expect(ended.status).toBe(200)
    expect(ended.body.data.loginsEnded).toBe(2)
    for (const server of [a, b]) {
      expect((await call(server, '/api/userInfo', { body: {}, token: laptop.token })).status).toBe(401)
      expect((await call(server, '/api/userInfo', { body: {}, token: phone.token })).status).toBe(401)
    }
    expect((await call(b, '/api/refresh', { body: { refreshToken: phone.refreshToken } })).status).toBe(401)
    // A new login, on either, works.
    const again = (await login(b, email)).body.data
    expect((await call(a, '/api/userInfo', { body: {}, token: again.token })).status).toBe(200)
  })

  it('rate limits count attempts on both instances together', async () => {
    const email = await newUser('brisk')
    const answers: number[] = []
    for (let i = 0; i < 5; i++) answers.push((await login(i % 2 ? b : a, email, 'wrong-password-123')).status)
    expect(answers.every((s) => s === 401)).toBe(true)
    // The five failures from this address (ADR 023) add up across the two: on either, its next try
    // needs a solved human check first.
    for (const server of [a, b]) {
      const asked = await login(server, email)
      expect(asked.status).toBe(403)
      expect(asked.body.error).toBe('HUMAN_VERIFICATION_REQUIRED')
    }
  })

  it('a payment webhook delivered to both instances credits once', async () => {
    const email = await newUser('carmen')
    const { token } = (await login(a, email)).body.data
    const before = (await call(b, '/api/points', { token })).body.data.totalPoints as number
    const order = await call(a, '/api/subscription', {
      body: { paymentType: 'card', planId: 'plus', billingCycle: 'monthly' },
      token,
    })
    expect(order.status).toBe(200)
    const { orderId } = order.body.data
    const checkoutSession = [...stripe.sessions.values()].find((s) => s.client_reference_id === orderId) as Record<
      string,
      unknown
    >
    const { completed, invoicePaid } = stripe.paidCheckout(checkoutSession)
    const deliver = (server: RunningServer, delivery: { payload: string; signature: string }) =>
      fetch(`${server.url}/api/webhooks/stripe`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': delivery.signature },
        body: delivery.payload,
      }).then((r) => r.status)
    const statuses = await Promise.all(
      [a, b, a, b, a, b].flatMap((server) => [deliver(server, completed), deliver(server, invoicePaid)]),
    )
    expect(statuses.every((s) => s === 200)).toBe(true)
    const after = (await call(a, '/api/points', { token })).body.data.totalPoints as number
    const plus = (await call(b, '/api/plan')).body.data.plans.find((p: { planId: string }) => p.planId === 'plus')
    expect(after - before).toBe(plus.diamondsPerMonth)
    expect((await call(b, '/api/payment/status', { body: { orderId } })).body.data.status).toBe('paid')
  })

  it('a picture uploaded through one is served by the other', async () => {
    const email = await newUser('dario')
    const { token } = (await login(a, email)).body.data
    const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#0ea5e9' } })
      .png()
      .toBuffer()
    const form = new FormData()
    form.append('name', 'Shared Picture')
    form.append('visibility', 'public')
    form.append('avatar', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'avatar.png')
    const created = await fetch(`${a.url}/api/addRole`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    })
    expect(created.status).toBe(200)
    const roleId = ((await created.json()) as { data: { roleId: string } }).data.roleId
    const role = await call(b, `/api/role?roleId=${roleId}`)
    const avatarUrl = role.body.data.avatarUrl as string
    expect(avatarUrl).toBeTruthy()
    const picture = await fetch(new URL(avatarUrl, b.url))
    expect(picture.status).toBe(200)
    expect(picture.headers.get('content-type')).toBe('image/webp')
  })

  it('the monthly award, called on both at once, credits each account once', async () => {
    const cron = (server: RunningServer) =>
      fetch(`${server.url}/api/cron/award-monthly-points`, {
        method: 'POST',
        headers: { authorization: 'Bearer two-instances-cron-secret-0123456789' },
      }).then((r) => r.status)
    expect(await Promise.all([cron(a), cron(b), cron(a), cron(b)])).toEqual([200, 200, 200, 200])
    const doubled = await database.db.execute(sql`
      select reference, count(*) from diamond_ledger where reference like 'monthly:%'
      group by reference having count(*) > 1`)
    expect((doubled as unknown as { rows: unknown[] }).rows).toEqual([])
    const awarded = await database.db.execute(
      sql`select count(*)::int as n from diamond_ledger where reference like 'monthly:%'`,
    )
    expect((awarded as unknown as { rows: { n: number }[] }).rows[0]?.n).toBeGreaterThan(0)
  })
})
