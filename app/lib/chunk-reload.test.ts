import { describe, expect, it } from 'vitest'
import { mayReload } from './chunk-reload.ts'

function memoryStorage() {
  const items = new Map<string, string>()
  return { getItem: (k: string) => items.get(k) ?? null, setItem: (k: string, v: string) => void items.set(k, v) }
}

describe('chunk-load reload guard', () => {
  it('reloads a path at most once within 10 seconds', () => {
    const storage = memoryStorage()
    expect(mayReload('/characters', 1_000, storage)).toBe(true)
    expect(mayReload('/characters', 5_000, storage)).toBe(false)
    expect(mayReload('/characters', 10_999, storage)).toBe(false)
    expect(mayReload('/characters', 11_000, storage)).toBe(true)
  })

  it('guards each path separately', () => {
    const storage = memoryStorage()
    expect(mayReload('/a', 1_000, storage)).toBe(true)
    expect(mayReload('/b', 1_500, storage)).toBe(true)
    expect(mayReload('/a', 2_000, storage)).toBe(false)
  })
})
