import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTurnstile } from '#tests/doubles/turnstile.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

describe('registration with Cloudflare Turnstile configured', () => {
  let turnstile: Awaited<ReturnType<typeof startTurnstile>>
  let t: TestApp
  beforeAll(async () => {
    turnstile = await startTurnstile({ secret: 'turnstile-secret', valid: ['good-token-1'] })
    t = await buildTestApp({
      env: {
        CAPTCHA_PROVIDER: 'turnstile',
        TURNSTILE_SITE_KEY: 'site-key',
        TURNSTILE_SECRET_KEY: 'turnstile-secret',
        TURNSTILE_VERIFY_URL: turnstile.verifyUrl,
      },
    })
  })
  afterAll(async () => {
    await t.close()
    await turnstile.close()
  })

  const register = (turnstileToken: string, n: number) =>
    t.app.inject({
      method: 'POST',
      url: '/api/register',
      remoteAddress: '198.51.100.20',
      payload: {
        username: `tt_user_${n}`,
        email: `tt-${n}@example.test`,
        password: 'the tide comes in slowly',
        turnstileToken,
      },
    })

  it('asks Cloudflare (its protocol) about every token and accepts a valid one once', async () => {
    expect((await register('good-token-1', 1)).statusCode).toBe(200)
    expect(turnstile.requests.at(-1)).toEqual({
      secret: 'turnstile-secret',
      response: 'good-token-1',
      remoteip: '198.51.100.20',
    })
    const replay = await register('good-token-1', 2)
    expect(replay.statusCode).toBe(400)
    expect(replay.json()).toMatchObject({ error: 'VERIFICATION_FAILED', details: { reason: 'timeout-or-duplicate' } })
    const forged = await register('forged', 3)
    expect(forged.json()).toMatchObject({ error: 'VERIFICATION_FAILED', details: { reason: 'invalid-input-response' } })
  })

  it('offers no ALTCHA challenge then', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/public/altcha/challenge' })).statusCode).toBe(404)
  })
})
