import type { Locale } from '#contracts/locales.ts'
import { checkTranslationTexts } from '#contracts/role-texts.ts'
import type { TranslateDraft } from '#contracts/role-translate-draft.ts'
import type { Config } from '#server/config.ts'
import { AppError } from '#server/lib/errors.ts'
import { reasoningFields } from '#server/modules/chat/generation.ts'
import type { ModelActivity } from '#server/modules/chat/model-activity.ts'
import { completeChat, LlmError, opaqueUserId } from '#server/modules/models/llm-client.ts'
import type { ModelConfig } from '#server/modules/models/models.ts'
import { msToNextUtcDay, utcDay } from './machine-translation.ts'
import type { RoleTextsService } from './role-texts.service.ts'
import type { TranslationUsageRepo } from './translation-usage.repo.ts'
import { sourceCharacters, type TranslatableTexts, type Translator } from './translator.ts'

/**
 * "Translate with the model" in the editor (ADR 040): the creator's texts (saved, or the unsaved
 * ones sent) translated into one locale for review, never stored. It is a user's request like a
 * reply: background summaries and translations on the same endpoint give way to it. It counts
 * against the operator's daily budget like the job.
 */

export type TranslateDraftDeps = {
  texts: Pick<RoleTextsService, 'sourceOf'>
  usage: Pick<TranslationUsageRepo, 'reserve' | 'release'>
  translator: Translator
  model: ModelConfig
  activity: Pick<ModelActivity, 'replyStarted'>
  settings: Pick<Config['translate'], 'dailyCharacters'>
  timeoutMs: number
  log: (info: Record<string, unknown>, msg: string) => void
}

export type DraftRequest = {
  roleId: string
  locale: Locale
  sourceLanguage?: Locale | undefined
  texts?: TranslatableTexts | undefined
}

function validationError(path: string, code: string, limit?: number): AppError {
  return new AppError(400, 'VALIDATION_ERROR', 'Some fields are not valid.', [
    { path, code, message: code, in: 'body', ...(limit === undefined ? {} : { limit }) },
  ])
}

export function createTranslateDraft(deps: TranslateDraftDeps) {
  const { texts, usage, translator, model, activity, settings, timeoutMs, log } = deps

  return {
    /**
     * Only the character's creator may ask (404 for someone else's private character, 403 for
     * someone else's public one, as the translation routes). Throws TRANSLATION_UNAVAILABLE when
     * machine translation is off or the model failed, TRANSLATION_BUDGET_USED past the day's budget.
     * `admit` (the route's rate limit) runs once the request is known to be valid, before the model.
     */
    async draft(
      userId: string,
      request: DraftRequest,
      admit: () => Promise<void> = async () => {},
    ): Promise<TranslateDraft> {
      const role = await texts.sourceOf(request.roleId)
      if (!role || (role.visibility === 'private' && role.creatorId !== userId)) {
        throw AppError.notFound('No such character')
      }
      if (role.creatorId !== userId) throw AppError.forbidden('Only its creator may translate this character')
      const from = request.sourceLanguage ?? role.sourceLanguage
      if (request.locale === from) throw validationError('locale', 'source_language')
      const source: TranslatableTexts = request.texts ?? {
        introduction: role.introduction,
        scenario: role.scenario,
        firstMessage: role.firstMessage,
        alternateGreetings: role.alternateGreetings,
      }
      const problem = checkTranslationTexts({ name: null, ...source }).find((p) => p.code !== 'required')
      if (problem) throw validationError(problem.path, problem.code, problem.limit)
      await admit()
      if (settings.dailyCharacters === 0) {
        throw new AppError(503, 'TRANSLATION_UNAVAILABLE', 'Machine translation is turned off.', { reason: 'disabled' })
      }
      const characters = sourceCharacters(source)
      if (characters === 0) {
        const empty = {
          introduction: '',
          scenario: '',
          firstMessage: '',
          alternateGreetings: source.alternateGreetings.map(() => ''),
        }
        return { texts: empty, untranslated: [] }
      }
      const at = new Date()
      const day = utcDay(at)
      if ((await usage.reserve(day, characters, settings.dailyCharacters)) === null) {
        throw new AppError(503, 'TRANSLATION_BUDGET_USED', "Today's machine translation budget is used up.", {
          retryAfterSeconds: Math.ceil(msToNextUtcDay(at) / 1000),
        })
      }
      const reply = activity.replyStarted(model)
      try {
        await reply.ready
        const result = await translator.translate(source, from, request.locale, (messages, maxTokens) =>
          completeChat({
            model,
            messages,
            timeoutMs,
            maxTokens,
            extraBody: reasoningFields(model),
            user: opaqueUserId(userId),
          }),
        )
        return { texts: result.texts, untranslated: result.untranslated }
      } catch (error) {
        await usage.release(day, characters).catch((e: unknown) => log({ err: e }, 'translation budget not released'))
        if (!(error instanceof LlmError)) throw error
        log({ roleId: request.roleId, modelId: model.id, err: error }, 'translation draft failed')
        const modelReason = error.kind === 'timeout' ? 'timeout' : error.reason
        throw new AppError(503, 'TRANSLATION_UNAVAILABLE', 'The model could not translate the texts now.', {
          reason: 'model',
          modelReason,
        })
      } finally {
        reply.end()
      }
    },
  }
}

export type TranslateDraftService = ReturnType<typeof createTranslateDraft>
