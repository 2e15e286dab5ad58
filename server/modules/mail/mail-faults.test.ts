import { solveChallenge } from 'altcha-lib'
import { deriveKey } from 'altcha-lib/algorithms/sha'
import { eq } from 'drizzle-orm'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { jobs } from '#db/schema/jobs.ts'
import { users } from '#db/schema/users.ts'
import { linksIn, type SmtpDouble, startSmtpServer } from '#tests/doubles/smtp.ts'
import { startTcpProxy } from '#tests/doubles/tcp-proxy.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'
import { openTestDatabase } from '#tests/helpers/test-database.ts'

/**
 * Mail goes through the job queue (ADR 017): a mail server that refuses connections, hangs, or is
 * down while the app restarts never fails a registration or the contact form, and the mail
 * arrives once it answers again.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
let n = 0
const unique = () => `${Date.now().toString(36)}${++n}`

async function waitFor<T>(check: () => Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const until = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value) return value
    if (Date.now() > until) throw new Error('condition not met in time')
    await sleep(50)
  }
}

async function humanToken(t: TestApp): Promise<string> {
  const challenge = (await t.app.inject({ method: 'GET', url: '/api/public/altcha/challenge' })).json()
  const solution = await solveChallenge({ challenge, deriveKey })
  return Buffer.from(JSON.stringify({ challenge, solution })).toString('base64')
}

async function register(t: TestApp) {
  const id = unique()
  const body = {
    username: `mailfault_${id}`,
    email: `mailfault-${id}@example.test`,
    password: 'a quiet lantern by the sea',
    turnstileToken: await humanToken(t),
  }
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/register',
    payload: body,
    remoteAddress: `198.51.100.${n % 250}`,
  })
  return { body, res }
}

const pendingJobs = (t: TestApp) => t.database.db.select().from(jobs).orderBy(jobs.id)

describe('mail while the mail server is down', () => {
  let smtp: SmtpDouble
  let proxy: Awaited<ReturnType<typeof startTcpProxy>>
  let t: TestApp

  beforeAll(async () => {
    smtp = await startSmtpServer()
    proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(smtp.url).port) })
    // Short timeouts and retry delays so the test sees several attempts.
    const smtpUrl = `smtp://${proxy.host}:${proxy.port}?pool=false&connectionTimeout=400&greetingTimeout=400&socketTimeout=400`
    t = await buildTestApp({
      env: { SMTP_URL: smtpUrl, PUBLIC_URL: 'https://taleweave.example', CONTACT_EMAIL: 'operator@example.test' },
      jobQueue: { pollMs: 50, retryDelayMs: () => 150 },
    })
  })
  afterEach(() => proxy.restore())
  afterAll(async () => {
    await t?.close()
    await proxy?.close()
    await smtp?.close()
  })

  it('refusing connections: the registration succeeds, the mail is retried and arrives once the server is back', async () => {
    proxy.cut()
    const { body, res } = await register(t)
    expect(res.statusCode).toBe(200)
    expect(res.json().data.message).toBe('Registration successful, please check your email to verify your account.')
    const [user] = await t.database.db.select().from(users).where(eq(users.email, body.email))
    expect(user).toBeTruthy()

    // Several attempts fail while it is down; the job stays, with why it failed.
    const failing = await waitFor(async () => {
      const [job] = await pendingJobs(t)
      return job && job.attempts >= 2 && job
    })
    expect(failing).toMatchObject({ kind: 'account-mail', failedAt: null })
    expect(failing.lastError).toMatch(/ECONNREFUSED|ECONNRESET|closed|Connection/i)
    expect(smtp.messages.filter((m) => m.to.includes(body.email))).toHaveLength(0)

    proxy.restore()
    const mail = await smtp.waitForMail(body.email, 15_000)
    const link = linksIn(mail.text).find((l) => l.includes('/verify?token='))
    const token = new URL(link ?? 'https://x').searchParams.get('token')
    const verified = await t.app.inject({ method: 'POST', url: `/api/verify?token=${token}`, payload: {} })
    expect(verified.statusCode).toBe(200)
    await waitFor(async () => (await pendingJobs(t)).length === 0)
    // Sent once, not once per attempt.
    await sleep(300)
    expect(smtp.messages.filter((m) => m.to.includes(body.email))).toHaveLength(1)
  })

  it('hanging without a greeting: the registration answers at once, and the mail follows when it answers', async () => {
    proxy.stall()
    const started = Date.now()
    const { body, res } = await register(t)
    expect(res.statusCode).toBe(200)
    // The request does not wait for the mail server's timeouts.
    expect(Date.now() - started).toBeLessThan(10_000)
    const timedOut = await waitFor(async () => {
      const [job] = await pendingJobs(t)
      return job?.lastError ? job : undefined
    })
    expect(timedOut.lastError).toMatch(/timeout|ETIMEDOUT|greeting/i)
    proxy.restore()
    await smtp.waitForMail(body.email, 15_000)
    await waitFor(async () => (await pendingJobs(t)).length === 0)
  })

  it('the contact form says sent while the server is down, and the message arrives later', async () => {
    proxy.cut()
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/public/contact',
      remoteAddress: '192.0.2.44',
      payload: {
        name: 'Ada',
        email: 'ada@example.test',
        message: 'Is anyone there at all?',
        turnstileToken: await humanToken(t),
      },
    })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ success: true, data: { message: 'sent' } })
    await waitFor(async () => ((await pendingJobs(t))[0]?.attempts ?? 0) >= 1)
    proxy.restore()
    const mail = await smtp.waitForMail('operator@example.test', 15_000)
    expect(mail.text).toContain('Is anyone there at all?')
    // Once sent, the visitor's message is not kept.
    await waitFor(async () => (await pendingJobs(t)).length === 0)
  })
})

describe('mail the server refuses for good', () => {
  it('is tried once and kept as failed, not retried forever', async () => {
    const smtp = await startSmtpServer({ rejectRecipients: true })
    const t = await buildTestApp({
      env: { SMTP_URL: `${smtp.url}?pool=false` },
      jobQueue: { pollMs: 50, retryDelayMs: () => 50 },
    })
    try {
      const { res } = await register(t)
      expect(res.statusCode).toBe(200)
      const failed = await waitFor(async () => {
        const [job] = await pendingJobs(t)
        return job?.failedAt ? job : undefined
      })
      expect(failed.attempts).toBe(1)
      expect(failed.lastError).toMatch(/55\d/)
      await sleep(300)
      expect((await pendingJobs(t))[0]?.attempts).toBe(1)
    } finally {
      await t.close()
      await smtp.close()
    }
  })
})

describe('mail queued when the app stops', () => {
  it('is sent by the next app on the same database', async () => {
    const smtp = await startSmtpServer()
    const env = { SMTP_URL: `${smtp.url}?pool=false` }
    // The first app has no worker running: it stands for a process that died after answering.
    const database = await openTestDatabase()
    const first = await buildTestApp({ env, database, jobQueue: { worker: false } })
    const second = { app: undefined as TestApp | undefined }
    try {
      const { body, res } = await register(first)
      expect(res.statusCode).toBe(200)
      await first.app.close()
      expect(await pendingJobs(first)).toHaveLength(1)
      expect(smtp.messages).toHaveLength(0)

      second.app = await buildTestApp({ env, database, jobQueue: { pollMs: 50 } })
      const mail = await smtp.waitForMail(body.email, 15_000)
      expect(linksIn(mail.text).some((l) => l.includes('/verify?token='))).toBe(true)
    } finally {
      await second.app?.close()
      await database.close()
      await smtp.close()
    }
  })
})
