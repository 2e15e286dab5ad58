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
}

const render = (pathname: string) =>
  renderToString(
    <MemoryRouter initialEntries={[pathname]}>
      <ul>
        <RoleCard role={role} href="/characters/r1" />
      </ul>
    </MemoryRouter>,
  )

describe('a character card', () => {
  it('shows the rating in the page locale’s number format', () => {
    expect(render('/de/characters')).toContain('4,5</span>')
    expect(render('/characters')).toContain('4.5</span>')
  })

  it('shows the summary with its names filled in and without emphasis marks', () => {
    // No i18n instance in this test: the neutral word shows as its key.
    expect(render('/characters')).toContain('She bows. A guide for role.userStandIn, says Aiko')
  })
})
