import { describe, expect, it } from 'vitest'
import {
  REFRESH_IDLE_REMEMBER_SECONDS,
  REFRESH_IDLE_SESSION_SECONDS,
  REFRESH_TTL_REMEMBER_SECONDS,
  REFRESH_TTL_SESSION_SECONDS,
} from '#contracts/accounts.ts'
import { loginDeadlines } from './sessions.ts'

// The deadlines alone (ADR 019); auth.routes.test.ts drives them through refreshes.
describe('login deadlines', () => {
  const started = new Date('2030-01-01T00:00:00Z')
  const at = (seconds: number) => new Date(started.getTime() + seconds * 1000)

  it('ends a login its lifetime after sign-in, and a token the idle span after it was issued', () => {
    for (const [remember, lifetime, idle] of [
      [true, REFRESH_TTL_REMEMBER_SECONDS, REFRESH_IDLE_REMEMBER_SECONDS],
      [false, REFRESH_TTL_SESSION_SECONDS, REFRESH_IDLE_SESSION_SECONDS],
    ] as const) {
      const { endsAt, expiresAt } = loginDeadlines(remember, started, at(60))
      expect(endsAt).toEqual(at(lifetime))
      expect(expiresAt).toEqual(at(60 + idle))
    }
  })

  it('never lets a token issued near the end outlive its login', () => {
    const late = at(REFRESH_TTL_SESSION_SECONDS - 10)
    const { endsAt, expiresAt } = loginDeadlines(false, started, late)
    expect(expiresAt).toEqual(endsAt)
  })
})
