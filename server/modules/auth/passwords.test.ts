import { describe, expect, it } from 'vitest'
import { hashPassword, verifyPassword } from './passwords.ts'

describe('password hashing (ASVS 2.4.1)', () => {
  it('uses argon2id with OWASP’s parameters (19 MiB, two passes, one lane) and a fresh salt each time', async () => {
    const password = 'a quiet lantern by the sea'
    const [first, second] = await Promise.all([hashPassword(password), hashPassword(password)])
    expect(first).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/)
    expect(second).not.toBe(first)
    expect(first).not.toContain(password)
  })

  it('verifies the right password only, and refuses accounts without one', async () => {
    const stored = await hashPassword('Correct-Horse-Battery')
    expect(await verifyPassword(stored, 'Correct-Horse-Battery')).toBe(true)
    expect(await verifyPassword(stored, 'correct-horse-battery')).toBe(false)
    expect(await verifyPassword(null, 'Correct-Horse-Battery')).toBe(false)
    expect(await verifyPassword('not a hash', 'Correct-Horse-Battery')).toBe(false)
  })
})
