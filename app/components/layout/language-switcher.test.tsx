import { describe, expect, it } from 'vitest'
import { localeSwitchHref } from './language-switcher.tsx'

describe('the language switcher links', () => {
  it('lead to the same page in the other language', () => {
    expect(localeSwitchHref('de', '/fr/characters/abc', '?x=1', '#top')).toBe('/de/characters/abc?x=1#top')
    expect(localeSwitchHref('en', '/fr/characters')).toBe('/characters')
    expect(localeSwitchHref('fr', '/')).toBe('/fr')
  })

  // The path comes from the address bar: /fr//evil.example/pwn once linked to //evil.example/pwn.
  it.each(['/fr//evil.example/pwn', '//evil.example/pwn', '/fr/.//evil.example', '/fr/%2F%2Fevil.example'])(
    'never leave the site from %j',
    (pathname) => {
      for (const locale of ['en', 'fr'] as const) {
        const href = localeSwitchHref(locale, pathname)
        expect(new URL(href, 'https://taleweave.example').origin).toBe('https://taleweave.example')
        expect(href).toBe(locale === 'en' ? '/' : '/fr')
      }
    },
  )

  it.each([
    '/\\evil.example',
    '/./\\evil.example',
    '/a/..//evil.example',
    '/%2f/evil.example',
    '/%5C%5Cevil.example',
    '/\t/evil.example',
    '/\n/evil.example',
  ])('stay on the site for the path %j', (rest) => {
    const href = localeSwitchHref('en', `/fr${rest}`)
    expect(new URL(href, 'https://taleweave.example').origin).toBe('https://taleweave.example')
    expect(href.startsWith('//') || href.includes('\\')).toBe(false)
  })
})
