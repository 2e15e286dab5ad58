import { createHash } from 'node:crypto'
import { solveChallenge } from 'altcha-lib'
import { deriveKey } from 'altcha-lib/algorithms/sha'
import { eq } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { jobs } from '#db/schema/jobs.ts'
import { users } from '#db/schema/users.ts'
import en from '#locales/en/email.json' with { type: 'json' }
import { linksIn, startSmtpServer } from '#tests/doubles/smtp.ts'
import { createUser } from '#tests/factories/user.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'
import { LIMITS, sourceOf } from './abuse-limits.ts'
import { hashPassword } from './passwords.ts'

// The real hashing, counted: registration must do the same slow work whether or not the address has an account.
vi.mock('./passwords.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('./passwords.ts')>()
  return { ...actual, hashPassword: vi.fn(actual.hashPassword) }
})

// ADR 023: login throttling that a stranger cannot turn against the owner, registration that tells
// nothing about addresses, and mails with links capped per address without refusing its owner.
describe('abuse limits that a stranger cannot turn against the owner', () => {
  let t: TestApp
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>
  let n = 0
  const unique = () => {
    n += 1
    return `${Date.now().toString(36)}${n}`
  }
  const PASSWORD = 'a quiet lantern by the sea'

  beforeAll(async () => {
    smtp = await startSmtpServer()
    t = await buildTestApp({ env: { SMTP_URL: smtp.url } })
  })
  afterAll(async () => {
    await t.close()
    await smtp.close()
  })

  /** Solves a real challenge from the server, as the browser widget does. */
  async function humanToken(): Promise<string> {
    const challenge = (await t.app.inject({ method: 'GET', url: '/api/public/altcha/challenge' })).json()
    const solution = await solveChallenge({ challenge, deriveKey })
    return Buffer.from(JSON.stringify({ challenge, solution })).toString('base64')
  }

  const post = (url: string, payload: object, ip: string) =>
    t.app.inject({ method: 'POST', url, payload, remoteAddress: ip })

  async function owner() {
    const email = `owner-${unique()}@example.test`
    await createUser(t.database.db, { email, passwordHash: await hashPassword(PASSWORD) })
    return email
  }

  const login = (email: string, password: string, ip: string, turnstileToken?: string) =>
    post('/api/login', { email, password, ...(turnstileToken ? { turnstileToken } : {}) }, ip)

  /** Waits until no account mail is left in the queue, then the mails that reached `email`. */
  async function mailsTo(email: string, subject?: string) {
    await expect
      .poll(async () => (await t.database.db.select().from(jobs).where(eq(jobs.kind, 'account-mail'))).length, {
        timeout: 15_000,
      })
      .toBe(0)
    return smtp.messages.filter((m) => m.to.includes(email) && (!subject || m.subject === subject))
  }

  describe('login (item 5)', () => {
    it('counts failures only: the right password from one place any number of times', async () => {
      const email = await owner()
      const codes: number[] = []
      for (let i = 0; i < 15; i++) codes.push((await login(email, PASSWORD, '192.0.2.1')).statusCode)
      expect(codes).toEqual(Array(15).fill(200))
    })

    it('makes the source that failed solve a human check, and no one else', async () => {
      const email = await owner()
      const stranger = '192.0.2.20'
      for (let i = 0; i < LIMITS.loginFailuresPerSource.max; i++) {
        expect((await login(email, 'not the password at all', stranger)).statusCode).toBe(401)
      }
      // The stranger's own next try needs a solved check, whatever the password.
      const asked = await login(email, 'still not the password', stranger)
      expect(asked.statusCode).toBe(403)
      expect(asked.json().error).toBe('HUMAN_VERIFICATION_REQUIRED')
      expect((await login(email, PASSWORD, stranger)).json().error).toBe('HUMAN_VERIFICATION_REQUIRED')
      const forged = await login(email, PASSWORD, stranger, 'forged')
      expect(forged.json()).toMatchObject({ error: 'VERIFICATION_FAILED' })
      // The owner, elsewhere, is not affected at all.
      expect((await login(email, PASSWORD, '192.0.2.21')).statusCode).toBe(200)
      // From the stranger's place too, the right password gets in after one proof-of-work...
      expect((await login(email, PASSWORD, stranger, await humanToken())).statusCode).toBe(200)
      // ...which starts that place afresh.
      expect((await login(email, PASSWORD, stranger)).statusCode).toBe(200)
    })

    it('never locks the owner out when guesses come from everywhere: known places get in, new ones after a proof-of-work', async () => {
      const email = await owner()
      const home = '198.51.100.200'
      expect((await login(email, PASSWORD, home)).statusCode).toBe(200)
      // A botnet: one wrong guess from each of many addresses, well past the account's bound.
      const guesses = LIMITS.loginFailuresPerAccount.max + 10
      for (let i = 0; i < guesses; i++) {
        const res = await login(email, `guess number ${i}`, `203.0.113.${i + 1}`)
        expect([401, 403]).toContain(res.statusCode)
      }
      // Sources the account never signed in from now solve a check before their password is looked at...
      const fresh = await login(email, 'one more guess', '203.0.113.250')
      expect(fresh.json().error).toBe('HUMAN_VERIFICATION_REQUIRED')
      // ...the owner at home does not...
      expect((await login(email, PASSWORD, home)).statusCode).toBe(200)
      // ...and the owner on a new network gets in after one proof-of-work: a correct password always does.
      const travelling = '192.0.2.77'
      expect((await login(email, PASSWORD, travelling)).json().error).toBe('HUMAN_VERIFICATION_REQUIRED')
      expect((await login(email, PASSWORD, travelling, await humanToken())).statusCode).toBe(200)
      expect((await login(email, PASSWORD, travelling)).statusCode).toBe(200)
    })

    it('answers an unknown address exactly like a registered one', async () => {
      const email = await owner()
      const nobody = `nobody-${unique()}@example.test`
      const answers = async (address: string, ip: string) => {
        const codes: unknown[] = []
        for (let i = 0; i <= LIMITS.loginFailuresPerSource.max; i++) {
          codes.push((await login(address, 'not the password at all', ip)).json())
        }
        return codes
      }
      expect(await answers(nobody, '192.0.2.30')).toEqual(await answers(email, '192.0.2.31'))
    })

    it('takes an IPv6 /64 as one source, and still limits every attempt from one source', async () => {
      expect(sourceOf('2001:db8:1:2:aaaa::1')).toBe(sourceOf('2001:db8:1:2::ffff'))
      expect(sourceOf('2001:db8:1:2::1')).not.toBe(sourceOf('2001:db8:1:3::1'))
      expect(sourceOf('::ffff:192.0.2.9')).toBe('192.0.2.9')
      const email = await owner()
      for (let i = 0; i < LIMITS.loginFailuresPerSource.max; i++) {
        expect((await login(email, 'not the password at all', `2001:db8:1:2::${i + 1}`)).statusCode).toBe(401)
      }
      expect((await login(email, PASSWORD, '2001:db8:1:2::beef')).json().error).toBe('HUMAN_VERIFICATION_REQUIRED')

      // Credential stuffing from one place: every attempt counts, whichever account.
      const codes: number[] = []
      for (let i = 0; i <= LIMITS.loginPerIp.max; i++) {
        codes.push((await login(`victim-${i}-${unique()}@example.test`, 'leaked password 1', '192.0.2.99')).statusCode)
      }
      expect(codes.at(-1)).toBe(429)
      expect(codes.slice(0, LIMITS.loginPerIp.max).every((c) => c === 401)).toBe(true)
    })
  })

  describe('registration (items 6 and 15)', () => {
    const register = async (fields: { username?: string; email: string }, ip: string) =>
      post(
        '/api/register',
        {
          username: fields.username ?? `reader_${unique()}`,
          email: fields.email,
          password: PASSWORD,
          turnstileToken: await humanToken(),
        },
        ip,
      )

    it('answers the same, after the same hashing, whether or not the address has an account', async () => {
      const email = await owner()
      const [taken] = await t.database.db.select({ username: users.username }).from(users).where(eq(users.email, email))
      const hashes = vi.mocked(hashPassword)
      const compare = async (fields: { username?: string }) => {
        const results = []
        for (const address of [email, `unknown-${unique()}@example.test`]) {
          hashes.mockClear()
          const res = await register({ ...fields, email: address }, `198.51.100.${n % 250}`)
          results.push({ status: res.statusCode, body: res.json(), hashes: hashes.mock.calls.length })
        }
        return results
      }
      // A taken name is refused alike, the address known or not (names are public anyway).
      const [known, unknown] = await compare({ username: taken?.username.toUpperCase() })
      expect(known?.status).toBe(409)
      expect(known).toEqual(unknown)
      // A free name: the same success, and the password is hashed on both paths, so the time is alike too.
      const [known2, unknown2] = await compare({})
      expect(known2?.status).toBe(200)
      expect(known2).toEqual(unknown2)
      expect(known2?.hashes).toBe(1)
    })

    it('caps "account exists" mails per address, answering every request the same', async () => {
      const email = await owner()
      for (let i = 0; i < 6; i++) {
        const res = await register({ email }, `198.51.100.${100 + i}`)
        expect(res.statusCode).toBe(200)
      }
      expect(await mailsTo(email, en.accountExists.subject)).toHaveLength(LIMITS.resetMailsPerAccount.max)
    })
  })

  describe('password reset and verification mails (item 15)', () => {
    it('never refuses the owner: a stranger fills the cap, the owner still has a working link', async () => {
      const email = await owner()
      for (let i = 0; i < 6; i++) {
        const res = await post('/api/forgot-password', { email }, `192.0.2.${150 + i}`)
        expect(res.statusCode).toBe(200)
      }
      // The owner's own request answers like any other...
      expect((await post('/api/forgot-password', { email }, '192.0.2.160')).statusCode).toBe(200)
      // ...and the mailbox holds only the capped number of mails, whose links all still work.
      const mails = await mailsTo(email, en.resetPassword.subject)
      expect(mails).toHaveLength(LIMITS.resetMailsPerAccount.max)
      const link = linksIn(mails.at(-1)?.text ?? '').find((l) => l.includes('/reset-password?token='))
      const token = new URL(link ?? 'http://x').searchParams.get('token') ?? ''
      const reset = await post('/api/reset-password', { token, password: 'a brand new evening tide' }, '192.0.2.160')
      expect(reset.statusCode).toBe(200)
      expect((await login(email, 'a brand new evening tide', '192.0.2.160')).statusCode).toBe(200)
    })

    it('caps verification mails per address', async () => {
      const email = `unverified-${unique()}@example.test`
      await createUser(t.database.db, { email, emailVerifiedAt: null })
      const resendPause = `rate:resend:account:${createHash('sha256').update(email).digest('hex').slice(0, 32)}`
      for (let i = 0; i < LIMITS.verifyMailsPerAccount.max + 3; i++) {
        // Past the once-a-minute pause of the page's countdown, as if a minute had gone by.
        await t.kv.delete(resendPause)
        const res = await post('/api/resend-email', { email }, `192.0.2.${170 + i}`)
        expect(res.statusCode).toBe(200)
      }
      const mails = await mailsTo(email, en.verifyEmail.subject)
      expect(mails).toHaveLength(LIMITS.verifyMailsPerAccount.max)
    })
  })
})
