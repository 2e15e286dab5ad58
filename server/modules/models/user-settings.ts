import { z } from 'zod'
import { type ChatGenerationSettings, REPLY_TOKENS_MIN, TEMPERATURE_MAX } from '#contracts/chat.ts'

/**
 * What a user may set per chat within the operator's bounds (issue 18 item 9, ADR 033): the
 * temperature and the reply length. The operator states the bounds per model in MODELS_FILE
 * (`userTemperature`, `userReplyTokens`: `{ "min", "max" }`, or `false` to forbid the change);
 * without them the defaults below apply. A chat's stored choice is clamped to the bounds of the
 * model in use at every generation: the operator may narrow them later, the chat may switch models.
 */

/** The longest reply asked for when the operator states no `maxReplyTokens`. */
export const DEFAULT_MAX_REPLY_TOKENS = 1024

/** Without `userTemperature`: from 0 up to 1.5, or to the model's own temperature when higher. */
const DEFAULT_TEMPERATURE_MAX = 1.5
/** Without `userReplyTokens`: from this many tokens (or the model's cap when lower) up to the cap. */
const DEFAULT_REPLY_TOKENS_MIN = 64

export type Bounds = Readonly<{ min: number; max: number }>

/** One setting's bounds for the client: null when the operator forbids changing it. */
export type UserBounds = Readonly<{
  temperature: (Bounds & { default: number | null }) | null
  replyTokens: (Bounds & { default: number }) | null
}>

/** What MODELS_FILE may say about one setting: bounds, or `false` (users may not change it). */
const boundsOf = (value: z.ZodNumber) =>
  z
    .union([z.literal(false), z.strictObject({ min: value, max: value })])
    .optional()
    .refine((b) => !b || b.min <= b.max, 'min must be at most max')

export const userSettingsSchema = {
  userTemperature: boundsOf(z.number().min(0).max(TEMPERATURE_MAX)),
  userReplyTokens: boundsOf(z.number().int().min(REPLY_TOKENS_MIN).max(1_000_000)),
}

type OperatorBounds = Readonly<{
  temperature?: number | undefined
  maxReplyTokens?: number | undefined
  userTemperature?: Bounds | false | undefined
  userReplyTokens?: Bounds | false | undefined
}>

/** The reply length the model is asked for when the chat chose none: the operator's cap, else the default. */
export const replyTokensCap = (model: Pick<OperatorBounds, 'maxReplyTokens'>) =>
  model.maxReplyTokens ?? DEFAULT_MAX_REPLY_TOKENS

/**
 * Problems of a MODELS_FILE entry's user bounds against its own settings, as [key, message]:
 * the model's temperature must lie within `userTemperature`, and `userReplyTokens` within the cap.
 */
export function userBoundsProblems(entry: OperatorBounds): [string, string][] {
  const problems: [string, string][] = []
  const t = entry.userTemperature
  if (t && entry.temperature !== undefined && (entry.temperature < t.min || entry.temperature > t.max)) {
    problems.push(['userTemperature', `must include the model's temperature (${entry.temperature})`])
  }
  const r = entry.userReplyTokens
  if (r && r.max > replyTokensCap(entry)) {
    problems.push([
      'userReplyTokens',
      `max must be at most maxReplyTokens (${replyTokensCap(entry)}; ${DEFAULT_MAX_REPLY_TOKENS} when unset)`,
    ])
  }
  return problems
}

/** A model's bounds, the defaults filled in. */
export function userBoundsOf(model: {
  sampling: { temperature?: number | undefined }
  maxReplyTokens: number | undefined
  userTemperature?: Bounds | false | undefined
  userReplyTokens?: Bounds | false | undefined
}): UserBounds {
  const own = model.sampling.temperature
  const cap = replyTokensCap(model)
  const temperature =
    model.userTemperature === false
      ? null
      : (model.userTemperature ?? { min: 0, max: Math.max(DEFAULT_TEMPERATURE_MAX, own ?? 0) })
  const replyTokens =
    model.userReplyTokens === false
      ? null
      : (model.userReplyTokens ?? { min: Math.min(DEFAULT_REPLY_TOKENS_MIN, cap), max: cap })
  return {
    temperature: temperature && { min: temperature.min, max: temperature.max, default: own ?? null },
    replyTokens: replyTokens && { min: replyTokens.min, max: replyTokens.max, default: cap },
  }
}

const clamp = (value: number, bounds: Bounds) => Math.min(bounds.max, Math.max(bounds.min, value))

/**
 * What a generation uses: the chat's choices clamped to the model's current bounds; the model's
 * own setting where the chat chose none or the operator forbids the change. `temperature`
 * undefined: none is sent (the server's default).
 */
export function effectiveSettings(
  model: Parameters<typeof userBoundsOf>[0],
  chat: ChatGenerationSettings,
): { temperature: number | undefined; replyTokens: number } {
  const bounds = userBoundsOf(model)
  return {
    temperature:
      chat.temperature !== null && bounds.temperature
        ? clamp(chat.temperature, bounds.temperature)
        : model.sampling.temperature,
    replyTokens:
      chat.replyTokens !== null && bounds.replyTokens
        ? Math.round(clamp(chat.replyTokens, bounds.replyTokens))
        : replyTokensCap(model),
  }
}

/** Why a choice is refused: the setting is forbidden, or outside the bounds. Null: accepted. */
export function refusalOf(
  bounds: UserBounds,
  field: keyof ChatGenerationSettings,
  value: number | null,
):
  | { field: keyof ChatGenerationSettings; locked: true }
  | { field: keyof ChatGenerationSettings; min: number; max: number }
  | null {
  if (value === null) return null
  const b = bounds[field]
  if (!b) return { field, locked: true }
  if (value < b.min || value > b.max) return { field, min: b.min, max: b.max }
  return null
}
