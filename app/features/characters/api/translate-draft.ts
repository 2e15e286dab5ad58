import { api } from '#app/lib/http.ts'
import type { Locale } from '#contracts/locales.ts'

/** What the model proposes: `name` only when it offers one (names usually stay as they are). */
export type DraftTexts = {
  name?: string | null
  introduction: string
  scenario: string
  firstMessage: string
  alternateGreetings: string[]
}

/** The model has a while to translate five texts; the page shows it is busy meanwhile. */
const DRAFT_TIMEOUT_MS = 180_000

/**
 * `POST /api/role/translate-draft` `{ roleId, locale }`: the character's saved texts translated by
 * the model into `locale`, for the creator to review. Nothing is stored. Refusals: RATE_LIMITED
 * (per user, `retryAfterSeconds`), MODEL_* and SERVICE_UNAVAILABLE when no model can do it.
 */
export async function translateDraft(roleId: string, locale: Locale, signal?: AbortSignal): Promise<DraftTexts> {
  const { texts } = await api<{ texts: DraftTexts }>('/role/translate-draft', {
    method: 'POST',
    body: { roleId, locale },
    timeoutMs: DRAFT_TIMEOUT_MS,
    signal,
  })
  return texts
}
