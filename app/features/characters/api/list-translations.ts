import { api } from '#app/lib/http.ts'
import type { RoleTranslationList } from '#contracts/role-texts.ts'

/**
 * `POST /api/role/translations`: the character's source language and every translation of its
 * texts, for its creator (someone else's character answers 404 or 403).
 */
export function listTranslations(roleId: string, signal?: AbortSignal) {
  return api<RoleTranslationList>('/role/translations', { method: 'POST', body: { roleId }, signal })
}
