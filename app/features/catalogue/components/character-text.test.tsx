import { renderToString } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import { CharacterText } from './character-text.tsx'

const render = (text: string, user = 'you') =>
  renderToString(<CharacterText text={text} empty="Nothing yet" names={{ char: 'Aiko', user }} />)

describe('a character page text', () => {
  it('fills in the names as the chat does', () => {
    const html = render('{{char}} waves at {{user}}. <USER> waves back at <BOT>.', 'Ada')
    expect(html).toContain('Aiko waves at Ada. Ada waves back at Aiko.')
    expect(html).not.toMatch(/\{\{|&lt;(USER|BOT)&gt;/)
    expect(render('Hello, {{user}}!')).toContain('Hello, you!')
  })

  it('renders markdown emphasis as emphasis and keeps raw HTML as text', () => {
    const html = render('*She smiles.* **Welcome!**\n\nA second paragraph <img src=x onerror=alert(1)>')
    expect(html).toContain('<em>She smiles.</em>')
    expect(html).toContain('<strong>Welcome!</strong>')
    expect(html).not.toContain('*She')
    expect(html).not.toContain('<img')
    expect(html.match(/<p>/g)).toHaveLength(2)
    expect(html).toContain('dir="auto"')
  })

  it('says so when there is no text', () => {
    expect(render('  ')).toContain('Nothing yet')
  })
})
