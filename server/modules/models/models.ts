import { readFileSync } from 'node:fs'
import path from 'node:path'
import { z } from 'zod'
import { REPLY_TOKENS_MIN } from '#contracts/chat.ts'
import { type Config, ConfigError } from '#server/config.ts'
import { isPlainHttpToPublicHost } from '#server/lib/outside-urls.ts'
import { displayNameOf, type Sampling, samplingSchema } from './generation-settings.ts'
import { knownContextTokens } from './model-server-info.ts'
import { type Bounds, type UserBounds, userBoundsOf, userBoundsProblems, userSettingsSchema } from './user-settings.ts'

/**
 * The models the platform offers. Without MODELS_FILE there is one free model, the LLM_* one;
 * with it, the file's list. The registry is read once at start; a bad file stops the start with
 * a `ConfigError` (exit 78, like any other configuration problem).
 */

/** One model as the server knows it, endpoint and key included. Never sent to a browser. */
export type ModelConfig = Readonly<{
  id: string
  name: string
  description: string
  /** OpenAI-compatible base URL, ending in `/v1` for most providers. */
  baseUrl: string
  apiKey: string | undefined
  /** The provider's name for the model (the `model` field of the request). */
  model: string
  premium: boolean
  diamondsPerMessage: number
  /**
   * What the model can take in: prompt plus reply, in tokens. MODELS_FILE's figure, else
   * DEFAULT_CONTEXT_TOKENS; what the server reports replies the default (model-server-info.ts).
   */
  contextTokens: number
  /** True when MODELS_FILE states `contextTokens`: the operator's figure wins over the server's. */
  contextConfigured: boolean
  /** The longest reply asked for (`max_tokens`), when the operator caps it. */
  maxReplyTokens: number | undefined
  /** Generation settings sent with every request (generation-settings.ts). */
  sampling: Sampling
  /** How to turn the model's reasoning off (ADR 031); absent: the server's default. */
  reasoningOff?: 'chat_template_kwargs' | 'reasoning_effort' | undefined
  /** How the messages are shaped for the model's chat template (chat/message-shaping.ts, ADR 029); absent: strict. */
  promptStyle?: 'strict' | 'system-anywhere' | undefined
  /** How Continue asks for more: the partial reply as the last assistant turn, or a user turn (ADR 031). */
  continueStyle?: 'prefill' | 'user-turn' | undefined
  /** What a user may set per chat (user-settings.ts, ADR 033): bounds, `false` forbidden, absent the defaults. */
  userTemperature?: Bounds | false | undefined
  userReplyTokens?: Bounds | false | undefined
  /** This model's own time limits, over LLM_TIMEOUT_MS, LLM_FIRST_TOKEN_TIMEOUT_MS, LLM_IDLE_TIMEOUT_MS (ADR 035). */
  timeLimits?: Readonly<{ timeoutMs?: number; firstTokenTimeoutMs?: number; idleTimeoutMs?: number }> | undefined
}>

/** What `GET /api/models` may show: no endpoint, no key, no provider model name. */
export type PublicModel = Readonly<
  Pick<ModelConfig, 'id' | 'name' | 'description' | 'premium' | 'diamondsPerMessage' | 'contextTokens'> & {
    userSettings: UserBounds
  }
>

export type ModelRegistry = Readonly<{
  /** Every model, in the order of the file. */
  models: readonly ModelConfig[]
  /** The first model: what a chat uses when it names none. */
  defaultModel: ModelConfig
  /** SUMMARY_MODEL's model, when set: memory summaries run there (ADR 034). */
  summaryModel?: ModelConfig | undefined
  /** The public view of every model, for the models list. */
  listPublic(): PublicModel[]
  /** The model with this id, or undefined. */
  find(id: string): ModelConfig | undefined
}>

type LlmConfig = Pick<Config['llm'], 'baseUrl' | 'apiKey' | 'model' | 'modelsFile'> & {
  /** The embedded model (ADR 036): the one free model, served in-process. */
  embedded?: Config['llm']['embedded']
  requireTls?: boolean
  /** LLM_TIMEOUT_MS: no model's own `timeoutMs` may exceed it (ADR 035). */
  timeoutMs?: number
  summaryModel?: string | undefined
}

/**
 * The context assumed when neither MODELS_FILE nor the server tells it (model-server-info.ts asks
 * llama.cpp, vLLM, Ollama and OpenRouter). Ollama serves 4096 tokens unless told otherwise
 * (`OLLAMA_CONTEXT_LENGTH`) and silently drops the start of a longer prompt, which is where the
 * character's system prompt sits.
 */
export const DEFAULT_CONTEXT_TOKENS = 4096

/** The embedded model's id (ADR 036): stable whichever GGUF EMBEDDED_MODEL names. */
export const EMBEDDED_MODEL_ID = 'embedded'

/**
 * A readable name of EMBEDDED_MODEL: `hf:bartowski/Qwen2.5-1.5B-Instruct-GGUF:Q4_K_M` →
 * "Qwen2.5-1.5B-Instruct Q4_K_M", `/models/tiny-llama.gguf` → "tiny-llama".
 */
export function embeddedDisplayName(source: string): string {
  // A named file (a path, an hf: file or a URL): its name, "Qwen3-1.7B Q4_K_M".
  if (/\.gguf(#.*)?$/i.test(source)) return displayNameOf(source.replace(/#.*$/, ''))
  const hf = /^hf:(?:[^/]+\/)?([^:/]+)(?::([^/]+))?/.exec(source)
  if (!hf) return displayNameOf(source)
  const repo = (hf[1] ?? '').replace(/[-_.]GGUF$/i, '')
  return displayNameOf(hf[2] ? `${repo}-${hf[2]}` : repo)
}

/** The embedded model as a model of the registry: its endpoint is in-process (model-fetch.ts). */
function embeddedModel(llm: LlmConfig, embedded: NonNullable<LlmConfig['embedded']>): ModelConfig {
  const name = embeddedDisplayName(embedded.source)
  return Object.freeze({
    id: EMBEDDED_MODEL_ID,
    name,
    description: '',
    baseUrl: llm.baseUrl,
    apiKey: undefined,
    model: name,
    premium: false,
    diamondsPerMessage: 0,
    // EMBEDDED_CONTEXT; the loaded context (GET /props) replaces it once the model is loaded.
    contextTokens: embedded.contextTokens,
    contextConfigured: false,
    maxReplyTokens: undefined,
    sampling: Object.freeze({}),
  })
}

const modelId = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:/@-]{0,99}$/, 'must be 1-100 letters, digits or . _ : / @ -')

/** A time limit of one model (ADR 035), as the LLM_*_TIMEOUT_MS variables take them. */
const milliseconds = z.number().int().min(100).max(3_600_000).optional()

const modelEntry = z
  .strictObject(
    {
      id: modelId,
      /** `name` is the older spelling of `displayName`. Neither: derived from the id, without paths. */
      name: z.string().trim().min(1).max(80).optional(),
      displayName: z.string().trim().min(1).max(80).optional(),
      description: z.string().trim().max(500).default(''),
      baseUrl: z.url({ protocol: /^https?$/ }).optional(),
      apiKey: z.string().trim().optional(),
      model: z.string().trim().min(1).max(200).optional(),
      premium: z.boolean(),
      diamondsPerMessage: z.number().int().min(0).default(0),
      contextTokens: z.number().int().min(256).max(10_000_000).optional(),
      maxReplyTokens: z.number().int().min(REPLY_TOKENS_MIN).max(1_000_000).optional(),
      reasoningOff: z.enum(['chat_template_kwargs', 'reasoning_effort']).optional(),
      continueStyle: z.enum(['prefill', 'user-turn']).optional(),
      promptStyle: z.enum(['strict', 'system-anywhere']).optional(),
      timeoutMs: milliseconds,
      firstTokenTimeoutMs: milliseconds,
      idleTimeoutMs: milliseconds,
      ...samplingSchema,
      ...userSettingsSchema,
    },
    {
      // Unknown keys are refused (a typo would otherwise silently do nothing); say which and where to look.
      error: (issue) =>
        issue.code === 'unrecognized_keys'
          ? `unknown key(s) ${issue.keys.map((k) => `"${k}"`).join(', ')} (the keys are listed in docs/configuration.md, MODELS_FILE)`
          : undefined,
    },
  )
  .superRefine((entry, ctx) => {
    if (entry.name !== undefined && entry.displayName !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['name'],
        message: 'give displayName or name (its older spelling), not both',
      })
    }
    if (
      entry.maxReplyTokens !== undefined &&
      entry.contextTokens !== undefined &&
      entry.maxReplyTokens > entry.contextTokens / 2
    ) {
      ctx.addIssue({ code: 'custom', path: ['maxReplyTokens'], message: 'must be at most half of contextTokens' })
    }
    for (const [key, message] of userBoundsProblems(entry)) ctx.addIssue({ code: 'custom', path: [key], message })
    for (const limit of ['firstTokenTimeoutMs', 'idleTimeoutMs'] as const) {
      if ((entry[limit] ?? 0) > (entry.timeoutMs ?? Number.POSITIVE_INFINITY)) {
        ctx.addIssue({
          code: 'custom',
          path: [limit],
          message: 'must be at most timeoutMs, the cap of the whole reply',
        })
      }
    }
    if (entry.premium && entry.diamondsPerMessage === 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['diamondsPerMessage'],
        message: 'a premium model must cost at least 1 diamond per message',
      })
    }
    if (!entry.premium && entry.diamondsPerMessage !== 0) {
      ctx.addIssue({ code: 'custom', path: ['diamondsPerMessage'], message: 'a free model costs 0 diamonds' })
    }
  })

const modelsFileSchema = z
  .array(modelEntry)
  .min(1, 'must list at least one model')
  .superRefine((list, ctx) => {
    const seen = new Set<string>()
    list.forEach((entry, index) => {
      if (seen.has(entry.id))
        ctx.addIssue({ code: 'custom', path: [index, 'id'], message: `duplicate id "${entry.id}"` })
      seen.add(entry.id)
    })
  })

/** A MODELS_FILE that cannot be used. `problems` name the entry and field of each. */
export class ModelsFileError extends ConfigError {
  readonly file: string
  constructor(file: string, problems: string[]) {
    super(problems.map((p) => `MODELS_FILE (${file}): ${p}`))
    this.name = 'ModelsFileError'
    this.file = file
  }
}

const sameEndpoint = (a: string, b: string) => a.replace(/\/+$/, '') === b.replace(/\/+$/, '')

/** Reads and checks MODELS_FILE. Throws `ModelsFileError` naming the file and every problem. */
export function readModelsFile(
  file: string,
  llm: Pick<LlmConfig, 'baseUrl' | 'apiKey' | 'requireTls' | 'timeoutMs'>,
): ModelConfig[] {
  const resolved = path.resolve(file)
  let text: string
  try {
    text = readFileSync(resolved, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw new ModelsFileError(resolved, [code === 'ENOENT' ? 'file not found' : `cannot be read (${code ?? error})`])
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw new ModelsFileError(resolved, [`not valid JSON (${(error as Error).message})`])
  }
  const parsed = modelsFileSchema.safeParse(json)
  if (!parsed.success) {
    throw new ModelsFileError(
      resolved,
      parsed.error.issues.map((issue) => {
        const where = issue.path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('')
        return `${where ? `${where.replace(/^\./, '')}: ` : ''}${issue.message}`
      }),
    )
  }
  if (llm.requireTls) {
    const clear = parsed.data.filter((entry) => entry.baseUrl && isPlainHttpToPublicHost(entry.baseUrl))
    if (clear.length > 0) {
      throw new ModelsFileError(
        resolved,
        clear.map(
          (entry) =>
            `${entry.id}: baseUrl must be https:// in production (plain http only to this machine or a private network)`,
        ),
      )
    }
  }
  const cap = llm.timeoutMs
  const over = cap === undefined ? [] : parsed.data.filter((entry) => (entry.timeoutMs ?? 0) > cap)
  if (over.length > 0) {
    throw new ModelsFileError(
      resolved,
      over.map((e) => `${e.id}: timeoutMs must be at most LLM_TIMEOUT_MS (${cap}): unpaid holds are released after it`),
    )
  }
  return parsed.data.map((entry) => {
    const baseUrl = entry.baseUrl ?? llm.baseUrl
    const model = entry.model ?? entry.id
    return Object.freeze({
      id: entry.id,
      name: entry.displayName ?? entry.name ?? displayNameOf(model),
      description: entry.description,
      baseUrl,
      // LLM_API_KEY belongs to LLM_BASE_URL: a model on another endpoint never receives it, so a
      // forgotten apiKey cannot hand the platform's key to a third party. "" means "no key".
      apiKey:
        entry.apiKey !== undefined
          ? entry.apiKey || undefined
          : sameEndpoint(baseUrl, llm.baseUrl)
            ? llm.apiKey
            : undefined,
      model,
      premium: entry.premium,
      diamondsPerMessage: entry.diamondsPerMessage,
      contextTokens: entry.contextTokens ?? DEFAULT_CONTEXT_TOKENS,
      contextConfigured: entry.contextTokens !== undefined,
      maxReplyTokens: entry.maxReplyTokens,
      reasoningOff: entry.reasoningOff,
      continueStyle: entry.continueStyle,
      promptStyle: entry.promptStyle,
      userTemperature: entry.userTemperature,
      userReplyTokens: entry.userReplyTokens,
      timeLimits: Object.freeze({
        timeoutMs: entry.timeoutMs,
        firstTokenTimeoutMs: entry.firstTokenTimeoutMs,
        idleTimeoutMs: entry.idleTimeoutMs,
      }),
      sampling: Object.freeze({
        temperature: entry.temperature,
        top_p: entry.top_p,
        top_k: entry.top_k,
        min_p: entry.min_p,
        repetition_penalty: entry.repetition_penalty,
        presence_penalty: entry.presence_penalty,
        frequency_penalty: entry.frequency_penalty,
        stop: entry.stop ? Object.freeze([...entry.stop]) : undefined,
        seed: entry.seed,
      }),
    })
  })
}

export function toPublicModel(model: ModelConfig): PublicModel {
  return {
    id: model.id,
    name: model.name,
    description: model.description,
    premium: model.premium,
    diamondsPerMessage: model.diamondsPerMessage,
    // What the server told, once asked (model-server-info.ts), else MODELS_FILE's or the default.
    contextTokens: knownContextTokens(model),
    userSettings: userBoundsOf(model),
  }
}

/** The registry from the parsed configuration (`config.llm`). Reads MODELS_FILE synchronously. */
export function loadModelRegistry(llm: LlmConfig): ModelRegistry {
  const models: ModelConfig[] = llm.modelsFile
    ? readModelsFile(llm.modelsFile, llm)
    : llm.embedded
      ? [embeddedModel(llm, llm.embedded)]
      : [
          Object.freeze({
            id: llm.model,
            name: displayNameOf(llm.model),
            description: '',
            baseUrl: llm.baseUrl,
            apiKey: llm.apiKey,
            model: llm.model,
            premium: false,
            diamondsPerMessage: 0,
            contextTokens: DEFAULT_CONTEXT_TOKENS,
            contextConfigured: false,
            maxReplyTokens: undefined,
            sampling: Object.freeze({}),
          }),
        ]
  const byId = new Map(models.map((m) => [m.id, m]))
  const [defaultModel] = models
  // Both sources give at least one model (the schema requires it); this keeps the type honest.
  if (!defaultModel) throw new ConfigError(['MODELS_FILE: no model'])
  const summaryModel = llm.summaryModel ? byId.get(llm.summaryModel) : undefined
  if (llm.summaryModel && !summaryModel) {
    throw new ConfigError([
      `SUMMARY_MODEL: "${llm.summaryModel}" is not a model id of ${llm.modelsFile ? 'MODELS_FILE' : llm.embedded ? 'the embedded model' : 'LLM_MODEL'} (known: ${[...byId.keys()].join(', ')})`,
    ])
  }
  return Object.freeze({
    models: Object.freeze(models),
    defaultModel,
    summaryModel,
    listPublic: () => models.map(toPublicModel),
    find: (id: string) => byId.get(id),
  })
}
