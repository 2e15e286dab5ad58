import { api } from '#app/lib/http.ts'
import type { Locale } from '#contracts/locales.ts'
import type { RoleTranslationList } from '#contracts/role-texts.ts'

/** `POST /api/role/translations/remove`: that locale shows the source texts again. Answers the list as it is now. */
export function removeTranslation(roleId: string, locale: Locale) {
  return api<RoleTranslationList>('/role/translations/remove', { method: 'POST', body: { roleId, locale } })
}
