import { describe, expect, it } from 'vitest'
import { USERNAME_MAX, USERNAME_MIN, USERNAME_PATTERN } from '#contracts/accounts.ts'
import { usernameBase } from './google-accounts.ts'

// The username a new Google account starts from; google-sign-in.test.ts covers the sign-in itself.
describe('username from a Google display name', () => {
  it('keeps allowed characters, joins words with underscores and leaves room for a suffix', () => {
    expect(usernameBase('Ada Lovelace')).toBe('Ada_Lovelace')
    expect(usernameBase('Zoë  (the “reader”)!')).toBe('Zoë_the_reader')
    expect([...usernameBase('x'.repeat(80))]).toHaveLength(USERNAME_MAX - 5)
  })

  it('pads names too short, or with nothing allowed in them, to a valid one', () => {
    for (const name of ['Al', '!!!', '', '🙂🙂🙂']) {
      const base = usernameBase(name)
      expect([...base].length, name).toBeGreaterThanOrEqual(USERNAME_MIN)
      expect(base, name).toMatch(USERNAME_PATTERN)
      expect(base.startsWith('reader_'), name).toBe(true)
    }
  })
})
