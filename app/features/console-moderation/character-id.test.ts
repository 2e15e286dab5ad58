import { describe, expect, it } from 'vitest'
import { characterIdFrom } from './character-id.ts'

describe('a character id typed into the console', () => {
  it('takes an id as typed, or the one in a character page address', () => {
    expect(characterIdFrom(' r3f9a2b1c0 ')).toBe('r3f9a2b1c0')
    expect(characterIdFrom('https://taleweave.example/characters/r3f9a2b1c0')).toBe('r3f9a2b1c0')
    expect(characterIdFrom('https://taleweave.example/ar/characters/r3f9a2b1c0?x=1#top')).toBe('r3f9a2b1c0')
    expect(characterIdFrom('/fr/characters/demo-knight')).toBe('demo-knight')
  })

  it('refuses what cannot be an id', () => {
    for (const text of ['', '   ', 'two words', 'a/b', '../etc', 'x'.repeat(41)])
      expect([text, characterIdFrom(text)]).toEqual([text, null])
  })
})
