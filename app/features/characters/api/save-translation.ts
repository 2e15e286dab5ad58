import { api } from '#app/lib/http.ts'
import type { Locale } from '#contracts/locales.ts'
import type { RoleTranslationList, TranslationTexts } from '#contracts/role-texts.ts'

/**
 * `POST /api/role/translations/save`: the creator's translation into `locale`, replacing any (a
 * machine translation saved this way becomes the creator's). Answers the list as it is now;
 * refused texts come back as VALIDATION_ERROR with `details` `[{ path: 'texts.<field>', code, limit? }]`.
 */
export function saveTranslation(roleId: string, locale: Locale, texts: TranslationTexts) {
  return api<RoleTranslationList>('/role/translations/save', { method: 'POST', body: { roleId, locale, texts } })
}
