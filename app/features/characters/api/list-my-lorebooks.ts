import { api } from '#app/lib/http.ts'
import { LOREBOOK_LIMITS, type MyLorebooks } from '#contracts/lorebooks.ts'

/** `GET /api/my/lorebooks`: the user's lorebooks, newest first (the largest page: a user keeps a few). */
export function listMyLorebooks(signal?: AbortSignal, page = 1) {
  return api<MyLorebooks>('/my/lorebooks', { query: { page, pageSize: LOREBOOK_LIMITS.pageSize }, signal })
}
