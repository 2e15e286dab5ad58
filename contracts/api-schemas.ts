import { z } from 'zod'
import { CHAT_PROVIDER_KINDS, CHAT_PROVIDER_STATES } from './chat.ts'

// zod schemas of the API envelope, for the server and for forms. Kept apart from `api.ts` so a
// page that only needs the constants does not ship zod.

/** The success envelope of every `/api` response (DESIGN.md, API conventions). */
export function okEnvelope<T extends z.ZodType>(data: T) {
  return z.object({
    code: z.literal(0),
    success: z.literal(true),
    message: z.literal('ok'),
    data,
  })
}

export const healthResponse = z.object({ status: z.literal('ok') })
/** The last check of a model's server (server/modules/health/model-health.ts, ADR 031). */
export const MODEL_HEALTH_STATUSES = ['ok', 'unreachable', 'credentials_refused', 'failing', 'unknown'] as const
export type ModelHealth = (typeof MODEL_HEALTH_STATUSES)[number]

export const readinessResponse = z.object({
  status: z.enum(['ok', 'unavailable']),
  checks: z.record(z.string(), z.enum(['ok', 'failed'])),
  /** Each model's server, by model id: reported, never failing readiness (ADR 031). */
  models: z.record(z.string(), z.enum(MODEL_HEALTH_STATUSES)).optional(),
  /** What serves chat (ADR 037): reported, never failing readiness; `model` names the embedded model's file. */
  chatProvider: z
    .object({
      kind: z.enum(CHAT_PROVIDER_KINDS),
      state: z.enum(CHAT_PROVIDER_STATES),
      percent: z.number().nullable(),
      failure: z.string().nullable(),
      model: z.string().optional(),
    })
    .optional(),
})
