import { renderToString } from 'react-dom/server'
import { MemoryRouter } from 'react-router'
import { describe, expect, it } from 'vitest'
import type { RoleSummary } from '#contracts/catalogue.ts'
import { RoleCard } from './role-card.tsx'

const role: RoleSummary = {
  roleId: 'r1',
  name: 'Aiko',
  avatarUrl: null,
  tags: [],
  summary: '*She bows.* A guide for {{user}}, says {{char}}',
  chatCount: 3,
  popularity: 3,
  rating: { average: 4.5, count: 2 },
  createdAt: '2026-01-01T00:00:00Z',
  isAdult: false,
  gated: false,
  language: 'en',
}

const render = (pathname: string, shown: RoleSummary = role) =>
  renderToString(
    <MemoryRouter initialEntries={[pathname]}>
      <ul>
        <RoleCard role={shown} href="/characters/r1" />
      </ul>
    </MemoryRouter>,
  )

describe('a character card', () => {
  it('shows the rating in the page locale’s number format', () => {
    expect(render('/de/characters')).toContain('4,5</span>')
    expect(render('/characters')).toContain('4.5</span>')
  })

  it('shows the summary with its names filled in and without emphasis marks', () => {
    expect(render('/characters')).toContain('She bows. A guide for you, says Aiko')
  })

  it("marks name and summary with their language when it is not the page's, {{user}} in that language", () => {
    const japanese: RoleSummary = { ...role, name: '藍子', summary: '{{user}}を案内する{{char}}', language: 'ja' }
    const onEnglish = render('/characters', japanese)
    expect(onEnglish).toMatch(/<a[^>]* lang="ja"[^>]*>藍子<\/a>/)
    expect(onEnglish).toMatch(/<p[^>]* lang="ja"[^>]*>あなたを案内する藍子<\/p>/)
    // On the Japanese page it is the page's language: no attribute.
    expect(render('/ja/characters', japanese)).not.toContain('lang=')
    expect(render('/zh-cn/characters', { ...japanese, language: 'zh-cn' })).not.toContain('lang=')
    expect(render('/ja/characters', role)).toContain('lang="en"')
  })
})
