import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type KeyValueStore, openKeyValueStore } from '#server/lib/key-value-store.ts'
import { LIMITS } from './abuse-limits.ts'
import { loginThrottle } from './login.ts'

// The throttle alone, on the in-process store (ADR 023); abuse-limits.test.ts drives it through the API.
describe('login throttle', () => {
  let kv: KeyValueStore
  beforeEach(() => {
    kv = openKeyValueStore(undefined)
  })
  afterEach(() => kv.close())
  const email = 'owner@example.test'

  async function fail(ip: string, times: number) {
    for (let i = 0; i < times; i++) await loginThrottle(kv, email, ip).failed()
  }

  it('asks the source that failed for a human check, and no other source, once it reaches its bound', async () => {
    await fail('192.0.2.1', LIMITS.loginFailuresPerSource.max - 1)
    expect(await loginThrottle(kv, email, '192.0.2.1').humanCheckNeeded()).toBe(false)
    await fail('192.0.2.1', 1)
    expect(await loginThrottle(kv, email, '192.0.2.1').humanCheckNeeded()).toBe(true)
    // Any spelling of the address is the same account.
    expect(await loginThrottle(kv, ' OWNER@example.TEST ', '192.0.2.1').humanCheckNeeded()).toBe(true)
    expect(await loginThrottle(kv, email, '192.0.2.2').humanCheckNeeded()).toBe(false)
    expect(await loginThrottle(kv, 'other@example.test', '192.0.2.1').humanCheckNeeded()).toBe(false)
  })

  it('once the account is past its bound, asks new sources only; a success clears its source and makes it known', async () => {
    await loginThrottle(kv, email, '198.51.100.7').succeeded()
    for (let n = 0; n < LIMITS.loginFailuresPerAccount.max; n++) await fail(`203.0.113.${n}`, 1)
    expect(await loginThrottle(kv, email, '203.0.113.250').humanCheckNeeded()).toBe(true)
    expect(await loginThrottle(kv, email, '198.51.100.7').humanCheckNeeded()).toBe(false)
    await fail('192.0.2.9', LIMITS.loginFailuresPerSource.max)
    await loginThrottle(kv, email, '192.0.2.9').succeeded()
    expect(await loginThrottle(kv, email, '192.0.2.9').humanCheckNeeded()).toBe(false)
  })

  it('counts every attempt of one source, an IPv6 /64 as one, and refuses beyond its bound with 429', async () => {
    for (let i = 0; i < LIMITS.loginPerIp.max; i++) {
      await loginThrottle(kv, `a${i}@example.test`, `2001:db8:5:6::${i.toString(16)}`).countAttempt()
    }
    await expect(loginThrottle(kv, 'b@example.test', '2001:db8:5:6:ffff::1').countAttempt()).rejects.toMatchObject({
      status: 429,
      code: 'RATE_LIMITED',
    })
    await expect(loginThrottle(kv, 'b@example.test', '2001:db8:5:7::1').countAttempt()).resolves.toBeUndefined()
  })
})
