import { describe, expect, it } from 'vitest'
import { safeRedirectPath, sameOriginPath } from './redirects.ts'

/** Every spelling a browser, a proxy or a server may read as another origin or a scheme. */
const HOSTILE_PATHS = [
  'https://evil.example/',
  'https:evil.example',
  'https:/evil.example',
  '//evil.example/path',
  '///evil.example',
  '/\\evil.example',
  '\\/evil.example',
  '/.//evil.example',
  '/./\\evil.example',
  '/a/..//evil.example',
  '/%2F%2Fevil.example',
  '/%2f/evil.example',
  '/%5C%5Cevil.example',
  '/%5Cevil.example',
  '/\t/evil.example',
  '/\n/evil.example',
  '/\r\n/evil.example',
  '/\u0000/evil.example',
  ' //evil.example',
  'javascript:alert(1)',
  'evil.example',
  '',
  null,
  undefined,
]

describe('sameOriginPath', () => {
  it('keeps same-origin paths with their query and hash', () => {
    expect(sameOriginPath('/characters/abc?x=1#top')).toBe('/characters/abc?x=1#top')
    expect(sameOriginPath('/fr/chat/7')).toBe('/fr/chat/7')
    expect(sameOriginPath('/')).toBe('/')
    expect(sameOriginPath('/a/./b/../c')).toBe('/a/c')
    // A query may hold anything: it never decides the origin.
    expect(sameOriginPath('/search?next=//evil.example')).toBe('/search?next=//evil.example')
  })

  it.each(HOSTILE_PATHS)('refuses %j', (value) => {
    expect(sameOriginPath(value)).toBeNull()
  })
})

describe('safeRedirectPath', () => {
  it.each(HOSTILE_PATHS)('sends %j to the fallback', (value) => {
    expect(safeRedirectPath(value, '/home')).toBe('/home')
  })

  it('keeps a path of this site', () => {
    expect(safeRedirectPath('/fr/chat/7?x=1', '/')).toBe('/fr/chat/7?x=1')
  })
})
