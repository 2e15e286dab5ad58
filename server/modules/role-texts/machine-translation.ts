import type { Locale } from '#contracts/locales.ts'
import { type Config, ConfigError } from '#server/config.ts'
import { reasoningFields } from '#server/modules/chat/generation.ts'
import { type ModelActivity, SummaryYielded } from '#server/modules/chat/model-activity.ts'
import type { JobPayloads } from '#server/modules/jobs/job-kinds.ts'
import { DeferJobError, type JobQueue } from '#server/modules/jobs/job-queue.ts'
import { completeChat, LlmError, opaqueUserId } from '#server/modules/models/llm-client.ts'
import { OPERATOR_HINTS } from '#server/modules/models/model-failures.ts'
import type { ModelConfig, ModelRegistry } from '#server/modules/models/models.ts'
import type { RoleTextsRepo } from './role-texts.repo.ts'
import type { RoleTextsListener, RoleTextsService } from './role-texts.service.ts'
import type { TranslationUsageRepo } from './translation-usage.repo.ts'
import { type Ask, sourceCharacters, type TranslatableTexts, type Translator } from './translator.ts'

/**
 * Machine translation of public characters' texts (ADR 040): the `translate-role` job, what queues
 * it (a page shown in a locale without a fresh translation, a changed source, the locales translated
 * ahead), the operator's daily budget and the model's availability. A translation never costs a
 * user's reply: it gives way to replies on the same model endpoint as memory summaries do (ADR 034).
 */

type Log = (info: Record<string, unknown>, msg: string) => void

/** A translation that gave way to a reply runs again after this long (not counted as a failure). */
export const YIELD_DEFER_MS = 5_000
/** A model that could not be reached is asked again after this long, doubling to an hour. */
const UNREACHABLE_FIRST_MS = 30_000
const UNREACHABLE_MAX_MS = 60 * 60_000
/** Jobs over the budget wake spread over this long after midnight UTC. */
const NEXT_DAY_SPREAD_MS = 5 * 60_000
/** A job stops asking the model after this long (its lease is 30 minutes: job-kinds.ts). */
export const JOB_DEADLINE_MS = 25 * 60_000
/** A page shown again in the same locale does not queue the job again before this long. */
const WANTED_QUIET_MS = 10 * 60_000
const WANTED_REMEMBERED = 10_000
/** Characters the ahead pass queues per locale each time (hourly). */
export const AHEAD_BATCH = 200

/** Model failures that mean "not now": the job waits (not counted) instead of failing. */
const UNAVAILABLE = new Set([
  'unreachable',
  'overloaded',
  'rate_limited',
  'preparing',
  'credentials_refused',
  'model_not_found',
])

export function modelUnavailable(error: unknown): error is LlmError {
  if (!(error instanceof LlmError)) return false
  return (
    error.kind === 'timeout' || error.kind === 'cut' || (error.kind === 'provider' && UNAVAILABLE.has(error.reason))
  )
}

/** `YYYY-MM-DD` of `at` in UTC: the budget's day. */
export const utcDay = (at: Date) => at.toISOString().slice(0, 10)

/** Milliseconds from `at` to the next midnight UTC. */
export function msToNextUtcDay(at: Date): number {
  const next = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1)
  return next - at.getTime()
}

/**
 * The model translations run on: TRANSLATE_MODEL (an id of MODELS_FILE, or LLM_MODEL, or
 * `embedded`), else `fallback` (the summaries' model: SUMMARY_MODEL, else the first free one). An
 * unknown id stops the start (exit 78), like SUMMARY_MODEL.
 */
export function translationModel(
  id: string | undefined,
  registry: Pick<ModelRegistry, 'find' | 'models'>,
  fallback: ModelConfig,
): ModelConfig {
  if (!id) return fallback
  const model = registry.find(id)
  if (!model) {
    throw new ConfigError([
      `TRANSLATE_MODEL: "${id}" is not a model id (known: ${registry.models.map((m) => m.id).join(', ')})`,
    ])
  }
  return model
}

export const jobKey = (roleId: string, locale: Locale) => `translate-role:${roleId}:${locale}`

export type MachineTranslationDeps = {
  texts: Pick<RoleTextsService, 'sourceOf' | 'saveMachineTranslation'>
  repo: Pick<RoleTextsRepo, 'translationsIn' | 'translationsOf' | 'rolesToTranslate'>
  usage: Pick<TranslationUsageRepo, 'reserve' | 'release'>
  jobs: Pick<JobQueue, 'enqueue'>
  translator: Translator
  /** TRANSLATE_MODEL's model, else the one memory summaries run on. */
  model: ModelConfig
  /** Replies being written per endpoint: a translation gives way to them (ADR 034). */
  activity: Pick<ModelActivity, 'summary'>
  settings: Config['translate']
  /** Cap on each model call (LLM_TIMEOUT_MS). */
  timeoutMs: number
  log: Log
  warn?: Log | undefined
  /** Tests move the clock (the budget's day). */
  now?: () => Date
}

/** The texts of a role the job translates. */
function translatable(role: TranslatableTexts): TranslatableTexts {
  return {
    introduction: role.introduction,
    scenario: role.scenario,
    firstMessage: role.firstMessage,
    alternateGreetings: role.alternateGreetings,
  }
}

export function createMachineTranslation(deps: MachineTranslationDeps) {
  const { texts, repo, usage, jobs, translator, model, activity, settings, timeoutMs, log } = deps
  const warn = deps.warn ?? log
  const now = deps.now ?? (() => new Date())
  const enabled = settings.dailyCharacters > 0
  /** The model is not asked before this moment (it could not be reached); 0: ask. */
  let downUntil = 0
  let downFailures = 0
  /** The UTC day whose used-up budget was logged. */
  let budgetLoggedDay = ''
  const recentlyWanted = new Map<string, number>()

  function queue(roleId: string, locale: Locale) {
    return jobs.enqueue('translate-role', { roleId, locale }, { key: jobKey(roleId, locale) })
  }

  /** Page views queue the job at most once per WANTED_QUIET_MS per character and locale (per instance). */
  function quiet(key: string): boolean {
    const at = Date.now()
    const last = recentlyWanted.get(key)
    if (last !== undefined && at - last < WANTED_QUIET_MS) return true
    recentlyWanted.delete(key)
    recentlyWanted.set(key, at)
    if (recentlyWanted.size > WANTED_REMEMBERED) {
      const oldest = recentlyWanted.keys().next().value
      if (oldest !== undefined) recentlyWanted.delete(oldest)
    }
    return false
  }

  function modelFailed(error: LlmError): number {
    downFailures++
    const backoff = Math.min(UNREACHABLE_FIRST_MS * 2 ** (downFailures - 1), UNREACHABLE_MAX_MS)
    const delay = Math.max(backoff, (error.retryAfterSeconds ?? 0) * 1000)
    downUntil = Date.now() + delay
    warn(
      {
        modelId: model.id,
        kind: error.kind,
        reason: error.reason,
        status: error.status,
        retryInMs: delay,
        hint: error.kind === 'provider' ? OPERATOR_HINTS[error.reason] : undefined,
        err: error,
      },
      'machine translation: the model cannot be reached; translations wait',
    )
    return delay
  }

  /** How the job asks the model: giving way to replies on its endpoint, reasoning off. */
  const askFor =
    (signal: AbortSignal): Ask =>
    (messages, maxTokens) =>
      activity.summary(model, signal, (yieldSignal) =>
        completeChat({
          model,
          messages,
          signal: yieldSignal,
          timeoutMs,
          maxTokens,
          extraBody: reasoningFields(model),
          user: opaqueUserId('machine-translation'),
        }),
      )

  async function run({ roleId, locale }: JobPayloads['translate-role'], signal: AbortSignal): Promise<void> {
    if (!enabled) return
    const role = await texts.sourceOf(roleId)
    if (role?.visibility !== 'public' || locale === role.sourceLanguage) return
    const [row] = await repo.translationsIn([role.id], locale)
    if (row?.origin === 'author') return
    if (row && !row.stale && row.sourceHash === role.sourceHash) return
    const source = translatable(role)
    const characters = sourceCharacters(source)
    if (characters === 0) return
    const waitMs = downUntil - Date.now()
    if (waitMs > 0) throw new DeferJobError(waitMs + Math.random() * 5_000, 'the model could not be reached')

    const at = now()
    const day = utcDay(at)
    if ((await usage.reserve(day, characters, settings.dailyCharacters)) === null) {
      if (budgetLoggedDay !== day) {
        budgetLoggedDay = day
        warn(
          { day, dailyCharacters: settings.dailyCharacters },
          'machine translation: the daily budget (TRANSLATE_DAILY_CHARACTERS) is used up; translations wait for the next UTC day',
        )
      }
      throw new DeferJobError(msToNextUtcDay(at) + Math.random() * NEXT_DAY_SPREAD_MS, 'daily translation budget used')
    }
    const deadline = AbortSignal.timeout(JOB_DEADLINE_MS)
    let result: Awaited<ReturnType<Translator['translate']>>
    try {
      result = await translator.translate(
        source,
        role.sourceLanguage,
        locale,
        askFor(AbortSignal.any([signal, deadline])),
      )
    } catch (error) {
      // Nothing was translated: the characters go back to the day's budget.
      await usage.release(day, characters).catch((e: unknown) => log({ err: e }, 'translation budget not released'))
      if (error instanceof SummaryYielded) throw new DeferJobError(YIELD_DEFER_MS, error.message, { cause: error })
      if (signal.aborted) throw error
      if (modelUnavailable(error) && !deadline.aborted) throw new DeferJobError(modelFailed(error), error.message)
      throw error
    }
    downFailures = 0
    downUntil = 0
    if (result.untranslated.length === result.attempted) {
      throw new LlmError('invalid', `No usable translation of ${roleId} into ${locale} came from the model`)
    }
    const stored = await texts.saveMachineTranslation(roleId, locale, { name: null, ...result.texts }, role.sourceHash)
    log(
      { roleId, locale, characters, stored, untranslated: result.untranslated },
      stored ? 'character texts machine-translated' : 'machine translation not stored (an author translation exists)',
    )
    // Its source changed while it was translated: the stored row is stale, this job runs again.
    const after = await texts.sourceOf(roleId)
    if (stored && after && after.visibility === 'public' && after.sourceHash !== role.sourceHash) {
      throw new DeferJobError(1_000, 'the source texts changed while they were translated')
    }
  }

  /** The locales to (re)translate after a role's source texts changed: its machine ones and the ahead ones. */
  async function changed(roleId: string) {
    const role = await texts.sourceOf(roleId)
    if (role?.visibility !== 'public') return
    const rows = await repo.translationsOf(role.id)
    const author = new Set(rows.filter((r) => r.origin === 'author').map((r) => r.locale))
    const locales = new Set<Locale>([
      ...(rows.filter((r) => r.origin === 'machine').map((r) => r.locale) as Locale[]),
      ...settings.aheadLocales,
    ])
    for (const locale of locales) {
      if (locale !== role.sourceLanguage && !author.has(locale)) await queue(roleId, locale)
    }
  }

  return {
    /** Registered with `roleTexts.listen` (server/services.ts). */
    listener: {
      wanted(roleId: string, locale: Locale) {
        if (!enabled || quiet(jobKey(roleId, locale))) return
        return queue(roleId, locale)
      },
      sourceChanged(roleId: string) {
        if (!enabled) return
        return changed(roleId)
      },
    } satisfies RoleTextsListener,

    /** The `translate-role` job. */
    run,

    /** The `translate-ahead` job: public characters lacking an ahead locale get a `translate-role` job. */
    async queueAhead(): Promise<number> {
      if (!enabled) return 0
      let queued = 0
      for (const locale of settings.aheadLocales) {
        for (const roleId of await repo.rolesToTranslate(locale, AHEAD_BATCH)) {
          if (await queue(roleId, locale)) queued++
        }
      }
      if (queued > 0) log({ queued, locales: settings.aheadLocales }, 'machine translations queued ahead')
      return queued
    },
  }
}

export type MachineTranslation = ReturnType<typeof createMachineTranslation>
