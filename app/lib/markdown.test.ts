import { describe, expect, it } from 'vitest'
import { renderMarkdown } from './markdown.ts'
import { previewText, withoutEmphasis } from './plain-text.ts'

describe('chat markdown', () => {
  it('renders emphasis, lists and code', () => {
    const html = renderMarkdown('*She smiles.*\n\n- one\n- two\n\n`code`')
    expect(html).toContain('<em>She smiles.</em>')
    expect(html).toContain('<li>one</li>')
    expect(html).toContain('<code>code</code>')
  })

  it('escapes raw HTML and refuses script links', () => {
    const html = renderMarkdown('<script>alert(1)</script> <img src=x onerror=alert(1)> [x](javascript:alert(1))')
    expect(html).not.toContain('<script')
    expect(html).not.toContain('<img')
    expect(html).toContain('&lt;script&gt;')
    expect(html).not.toContain('href="javascript:')
  })

  it('opens links in a new tab without the opener and shows images as their alt text', () => {
    const html = renderMarkdown('[site](https://example.com) ![a cat](https://tracker.example/p.gif)')
    expect(html).toContain(
      '<a href="https://example.com" target="_blank" rel="noopener noreferrer nofollow ugc">site</a>',
    )
    expect(html).not.toContain('tracker.example')
    expect(html).toContain('a cat')
  })

  it.each([
    '[x](tel:+15550100)',
    '[x](intent://scan/#Intent;scheme=zxing;end)',
    '[x](ms-msdt:/id)',
    '[x](ftp://files.example/a)',
    '[x](data:text/html;base64,PHNjcmlwdD4=)',
    '[x](vbscript:msgbox)',
    '[x](JaVaScRiPt:alert(1))',
    '[x](java\tscript:alert(1))',
    '[x](/account)',
    '[x](//evil.example/pwn)',
    '[x](#top)',
    '<ftp://files.example/a>',
    'ftp://files.example/a',
  ])('makes no link of %j', (text) => {
    const html = renderMarkdown(text)
    expect(html).not.toContain('<a ')
    expect(html).not.toContain('href=')
  })

  it.each([
    ['[x](https://example.com/a?b=1)', 'https://example.com/a?b=1'],
    ['[x](http://example.com)', 'http://example.com'],
    ['[x](mailto:someone@example.com)', 'mailto:someone@example.com'],
    ['write to someone@example.com', 'mailto:someone@example.com'],
  ])('links %j', (text, href) => {
    expect(renderMarkdown(text)).toContain(`href="${href}"`)
  })

  it('drops emphasis marks from short plain texts', () => {
    expect(withoutEmphasis('*She smiles.* "Hi," **she** says, __loud__. 2 * 3 = 6, snake_case')).toBe(
      'She smiles. "Hi," she says, loud. 2 * 3 = 6, snake_case',
    )
  })

  it('drops the half of an emphasis mark a preview cut left behind', () => {
    expect(previewText('*The back room of the Blue Cellar is all cigarette…')).toBe(
      'The back room of the Blue Cellar is all cigarette…',
    )
    expect(previewText('"Hi." *She waves.* 2 * 3 = 6, snake_case')).toBe('"Hi." She waves. 2 * 3 = 6, snake_case')
  })
})
