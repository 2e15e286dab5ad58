import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { TRANSLATE_DRAFTS_PER_HOUR, translateDraftBody, translateDraftSchema } from '#contracts/role-translate-draft.ts'
import { AppError } from '#server/lib/errors.ts'
import type { KeyValueStore } from '#server/lib/key-value-store.ts'
import { enforceLimit } from '#server/lib/rate-limit.ts'
import { ok, okSchema } from '#server/lib/reply.ts'
import type { TranslateDraftService } from './translate-draft.ts'

const DRAFT_LIMIT = { max: TRANSLATE_DRAFTS_PER_HOUR, windowMs: 60 * 60_000 }

/**
 * `POST /api/role/translate-draft` (ADR 040): a signed-in user is required before the body is read
 * (`app.requireUser`); only the character's creator gets a draft, at most TRANSLATE_DRAFTS_PER_HOUR
 * an hour (429 RATE_LIMITED with retryAfterSeconds). The answer may take as long as the model needs
 * to translate every text (minutes on a CPU): the editor waits without the usual request deadline.
 */
export function translateDraftRoutes(drafts: TranslateDraftService, kv: KeyValueStore): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/role/translate-draft',
      {
        preHandler: app.requireUser,
        schema: {
          tags: ['characters'],
          summary: "Your character's texts translated by the model into one locale, for you to review (not stored)",
          description:
            'Translates `texts` (unsaved edits) or the saved texts. 503 TRANSLATION_UNAVAILABLE (machine translation off, or the model failed: details.reason), 503 TRANSLATION_BUDGET_USED (the daily budget is used up), 429 RATE_LIMITED.',
          security: [{ bearer: [] }],
          body: translateDraftBody,
          response: { 200: okSchema(translateDraftSchema) },
        },
      },
      async (request) => {
        const userId = request.userId
        if (!userId) throw AppError.unauthorized()
        const { roleId, locale, sourceLanguage, texts } = request.body
        return ok(
          await drafts.draft(userId, { roleId, locale, sourceLanguage, texts }, () =>
            enforceLimit(kv, `translate-draft:${userId}`, DRAFT_LIMIT),
          ),
        )
      },
    )
  }
}
