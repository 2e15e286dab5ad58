import type { RoleSort } from '#contracts/catalogue.ts'

/** What the character list shows; it all lives in the URL so pages are shareable and Back works. */
export type ListState = { sort: RoleSort; tags: string[]; q: string; page: number }

/** `?sort=newest&tags=a&tags=b&q=x&page=2`, leaving defaults out so URLs stay short and canonical. */
export function listSearch(state: Partial<ListState>): string {
  const params = new URLSearchParams()
  if (state.sort && state.sort !== 'popularity') params.set('sort', state.sort)
  for (const tag of [...(state.tags ?? [])].sort()) params.append('tags', tag)
  if (state.q) params.set('q', state.q)
  if (state.page && state.page > 1) params.set('page', String(state.page))
  const search = params.toString()
  return search ? `?${search}` : ''
}
