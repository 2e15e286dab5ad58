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

  // Every tag the renderer may write, with the attributes each may carry; anything else is an injection.
  const ALLOWED: Record<string, readonly string[]> = {
    a: ['href', 'title', 'target', 'rel'],
    code: ['class'],
    ol: ['start'],
    th: ['align'],
    td: ['align'],
  }
  const PLAIN = 'p br em strong s del code pre ul ol li blockquote h1 h2 h3 h4 h5 h6 hr table thead tbody tr th td'
  for (const tag of PLAIN.split(' ')) ALLOWED[tag] ??= []
  /** The tags of `html` that are not allowed, or carry an attribute their tag may not have. */
  const intruders = (html: string) =>
    [...html.matchAll(/<(\/?)([^\s>/]*)([^>]*)>/g)].flatMap(([whole, , name = '', rest = '']) => {
      const allowed = ALLOWED[name.toLowerCase()]
      if (!allowed) return [whole]
      const attributes = [...rest.matchAll(/\s([^\s=]+)(?:="[^"<>]*")?/g)].map((m) => m[1] ?? '')
      const leftover = rest.replace(/\s([^\s=]+)(?:="[^"<>]*")?/g, '').replace(/\s*\/?$/, '')
      return attributes.every((a) => allowed.includes(a)) && leftover === '' ? [] : [whole]
    })

  it('tells an injected tag or attribute from the renderer’s own', () => {
    expect(intruders('<p><img src=x></p><a href="https://a.example" onclick="x">y</a><em>z</em>')).toEqual([
      '<img src=x>',
      '<a href="https://a.example" onclick="x">',
    ])
  })

  it.each([
    '[a](<javascript:alert(1)>)',
    '[a](&#106;avascript:alert(1))',
    '<javascript:alert(1)>',
    '[a][r]\n\n[r]: javascript:alert(1)',
    '[a](https://x.example "a\\" onmouseover=alert(1) x=\\"")',
    '![x"onerror=alert(1)](https://x)',
    '```\n<script>alert(1)</script>\n```',
    '| a | b |\n|---|---|\n| <img src=x onerror=alert(1)> | `<b>` |',
    'www.example.com<script>alert(1)</script>',
    '<a href="javascript:alert(1)">x</a>',
    '<!-- x --><svg onload=alert(1)>',
    '[x](https://a.example/"><script>alert(1)</script>)',
    '[<b onclick=alert(1)>x</b>](https://a.example)',
    '<details open ontoggle=alert(1)>',
    '> quote <b>x</b>\n# h1 <i>x</i>',
    '[a](data:text/html,<script>alert(1)</script>)',
    '- [ ] task\n- [x] done\n\n~~gone~~ ***both*** &copy; &lt;b&gt;',
  ])('writes only the tags and attributes it may for %j', (text) => {
    const html = renderMarkdown(text)
    expect(intruders(html)).toEqual([])
    expect(html).not.toMatch(/href="(?!https?:|mailto:)/i)
  })

  it('keeps a new line as a line break and a blank line as a new paragraph', () => {
    expect(renderMarkdown('one\ntwo\n\nthree').replace(/\n/g, '')).toBe('<p>one<br>two</p><p>three</p>')
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
