import { createHash } from 'node:crypto'
import { solveChallenge } from 'altcha-lib'
import { deriveKey } from 'altcha-lib/algorithms/sha'
import { eq } from 'drizzle-orm'
import { expect } from 'vitest'
import { users } from '#db/schema/users.ts'
import { linksIn, type SmtpDouble } from '#tests/doubles/smtp.ts'
import type { TestApp } from '#tests/helpers/test-app.ts'

export const sha256 = (value: string) => createHash('sha256').update(value).digest('hex')

/**
 * Accounts as a browser makes them, through the API: solved human checks, registrations, the
 * links of the mails. `env` gives the test file's app and SMTP double once its `beforeAll` ran.
 */
export function accountsApi(env: () => { t: TestApp; smtp: SmtpDouble }) {
  let n = 0
  const unique = () => {
    n += 1
    return `${Date.now().toString(36)}${n}`
  }

  /** Solves a real challenge from the server, as the browser widget does. */
  async function humanToken(): Promise<string> {
    const challenge = (await env().t.app.inject({ method: 'GET', url: '/api/public/altcha/challenge' })).json()
    const solution = await solveChallenge({ challenge, deriveKey })
    return Buffer.from(JSON.stringify({ challenge, solution })).toString('base64')
  }

  const post = (url: string, payload: unknown, ip = '203.0.113.7') =>
    env().t.app.inject({ method: 'POST', url, payload: payload as object, remoteAddress: ip })

  async function register(fields: Partial<{ username: string; email: string; password: string }> = {}, ip?: string) {
    const id = unique()
    const body = {
      username: `reader_${id}`,
      email: `reader-${id}@example.test`,
      password: 'a quiet lantern by the sea',
      turnstileToken: await humanToken(),
      ...fields,
    }
    return { body, res: await post('/api/register', body, ip ?? `198.51.100.${n % 250}`) }
  }

  async function userId(email: string) {
    const [row] = await env().t.database.db.select({ id: users.id }).from(users).where(eq(users.email, email))
    return row?.id
  }

  function tokenIn(text: string, page: string) {
    const link = linksIn(text).find((l) => l.includes(`${page}?token=`))
    expect(link, `${page} link`).toBeTruthy()
    return new URL(link ?? '').searchParams.get('token') ?? ''
  }

  async function verifyLinkFor(email: string) {
    return tokenIn((await env().smtp.waitForMail(email)).text, '/verify')
  }

  async function registeredAndVerified() {
    const { body } = await register()
    const token = await verifyLinkFor(body.email)
    expect((await post(`/api/verify?token=${token}`, {})).statusCode).toBe(200)
    return body
  }

  return { unique, humanToken, post, register, userId, tokenIn, verifyLinkFor, registeredAndVerified }
}
