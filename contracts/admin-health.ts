import { z } from 'zod'
import { MODEL_HEALTH_STATUSES } from './api-schemas.ts'
import { chatProviderSchema } from './chat-schemas.ts'

/** The console's health dashboard (ADR 057). Days are UTC dates (YYYY-MM-DD), oldest first. */
export const HEALTH_DAYS = 30

/** What ended a reply that failed: the model error's kind (llm-client.ts); `aborted`: a shutdown cut it. */
export const REPLY_ERROR_KINDS = ['timeout', 'provider', 'invalid', 'cut', 'aborted'] as const

const ttftSchema = z.object({
  /** Replies whose first token came (whatever their end). */
  count: z.number().int(),
  meanMs: z.number().int().nullable(),
  /**
   * The histogram bucket's upper bound that holds the median (p95): "at most this". Null when
   * there is no reply, or when it lies above the last bound (`overLastBound`).
   */
  p50Ms: z.number().int().nullable(),
  p95Ms: z.number().int().nullable(),
  p50OverLastBound: z.boolean(),
  p95OverLastBound: z.boolean(),
  /** Replies per bucket of `ttftBucketsMs`, the last one above every bound. */
  histogram: z.array(z.number().int()),
})

export const healthDaySchema = z.object({
  day: z.string(),
  signUps: z.number().int(),
  /** Accounts that sent at least one message that day. */
  activeUsers: z.number().int(),
  userMessages: z.number().int(),
  /** Replies generated and stored (every alternative). */
  replies: z.number().int(),
  /** Replies that failed, by the error's kind. */
  errors: z.record(z.enum(REPLY_ERROR_KINDS), z.number().int()),
  /** Replies their user stopped. */
  stopped: z.number().int(),
  ttft: ttftSchema,
  /** Paid orders (the sandbox's excluded) per currency, in minor units. */
  revenue: z.array(z.object({ currency: z.string(), amount: z.number().int(), orders: z.number().int() })),
})
export type HealthDay = z.infer<typeof healthDaySchema>

export const healthDailySchema = z.object({
  days: z.array(healthDaySchema),
  ttftBucketsMs: z.array(z.number().int()),
  currencies: z.array(z.string()),
})
export type HealthDaily = z.infer<typeof healthDailySchema>

export const JOB_STATES = ['waiting', 'scheduled', 'running', 'failed'] as const

export const healthJobsSchema = z.object({
  /** Per kind, how many jobs are in each state (every state present, zeros included). */
  kinds: z.array(z.object({ kind: z.string(), counts: z.record(z.enum(JOB_STATES), z.number().int()) })),
  /** The newest 100 that failed for good. */
  failed: z.array(
    z.object({
      id: z.number().int(),
      kind: z.string(),
      attempts: z.number().int(),
      maxAttempts: z.number().int(),
      lastError: z.string().nullable(),
      failedAt: z.string(),
      createdAt: z.string(),
    }),
  ),
})
export type HealthJobs = z.infer<typeof healthJobsSchema>

export const retryJobBody = z.object({
  id: z.number().int().positive(),
  /** Why (the audit log keeps it): required, as every console action's. */
  note: z.string().trim().min(1).max(2000),
})

export const healthModelsSchema = z.object({
  models: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      /** The endpoint's host (no path, no credentials). */
      host: z.string(),
      premium: z.boolean(),
      default: z.boolean(),
      status: z.enum(MODEL_HEALTH_STATUSES),
      /** Today (UTC): replies that ended well, and those that failed. */
      today: z.object({ ok: z.number().int(), failed: z.number().int() }),
    }),
  ),
  anyReachable: z.boolean(),
  chatProvider: chatProviderSchema,
})
export type HealthModels = z.infer<typeof healthModelsSchema>
