import { api } from '#app/lib/http.ts'
import type { RoleList, RoleListQuery } from '#contracts/catalogue.ts'

/** GET /api/roles from the browser (for 'Show more characters'). Pages load through their loaders. */
export function getRoles(query: Partial<RoleListQuery> & { locale: string }, signal?: AbortSignal) {
  return api<RoleList>('/roles', {
    query: {
      page: query.page,
      pageSize: query.pageSize,
      sort: query.sort,
      tags: query.tags,
      q: query.q,
      locale: query.locale,
    },
    signal,
  })
}
