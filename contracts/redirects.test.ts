import { describe, expect, it } from 'vitest'
import { safeRedirectPath } from './redirects.ts'

describe('safeRedirectPath', () => {
  it('keeps same-origin paths with their query', () => {
    expect(safeRedirectPath('/characters/abc?x=1#top', '/')).toBe('/characters/abc?x=1#top')
    expect(safeRedirectPath('/fr/chat/7', '/')).toBe('/fr/chat/7')
  })

  it.each([
    'https://evil.example/',
    '//evil.example/path',
    '/\\evil.example',
    'javascript:alert(1)',
    'evil.example',
    '',
    null,
    undefined,
    '/%5C%5Cevil.example',
  ])('refuses %j', (value) => {
    const result = safeRedirectPath(value, '/home')
    expect(result === '/home' || result.startsWith('/%5C')).toBe(true)
    expect(new URL(result, 'https://taleweave.example').origin).toBe('https://taleweave.example')
  })
})
