import { z } from 'zod'
import { TEMPERATURE_MAX } from '#contracts/chat.ts'

/**
 * Per-model generation settings of MODELS_FILE (issue 18 item 9) and the request fields they
 * become. Only what the operator set is sent: OpenAI proper refuses fields it does not know
 * (top_k, min_p, repetition_penalty), which llama.cpp, vLLM, Ollama and OpenRouter take as extra
 * body fields of Chat Completions.
 */

/** The ranges the servers accept (llama.cpp, vLLM, OpenAI); a value outside is an operator's typo. */
export const samplingSchema = {
  temperature: z.number().min(0).max(TEMPERATURE_MAX).optional(),
  top_p: z.number().gt(0).max(1).optional(),
  top_k: z.number().int().min(0).max(1000).optional(),
  min_p: z.number().min(0).max(1).optional(),
  repetition_penalty: z.number().gt(0).max(2).optional(),
  presence_penalty: z.number().min(-2).max(2).optional(),
  frequency_penalty: z.number().min(-2).max(2).optional(),
  /**
   * Strings that end the reply; `{{user}}` and `{{char}}` are filled in per chat. Unset: the
   * defaults below. `[]`: none (OpenAI's reasoning models refuse `stop`; OpenAI takes at most 4).
   */
  stop: z.array(z.string().min(1).max(100)).max(16).optional(),
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 32 - 1)
    .optional(),
}

export type Sampling = Readonly<{
  temperature?: number | undefined
  top_p?: number | undefined
  top_k?: number | undefined
  min_p?: number | undefined
  repetition_penalty?: number | undefined
  presence_penalty?: number | undefined
  frequency_penalty?: number | undefined
  stop?: readonly string[] | undefined
  seed?: number | undefined
}>

/**
 * Without `stop` in MODELS_FILE: a role-play model that starts a line with the user's name (or a
 * generic "User:") is about to write the user's part; the reply ends there instead.
 */
export const DEFAULT_STOP = ['\n{{user}}:', '\nUser:'] as const

const SAMPLING_KEYS = [
  'temperature',
  'top_p',
  'top_k',
  'min_p',
  'repetition_penalty',
  'presence_penalty',
  'frequency_penalty',
  'seed',
] as const

export type SamplingBody = Partial<Record<(typeof SAMPLING_KEYS)[number], number>> & { stop?: string[] }

const MACRO = /\{\{\s*(user|char)\s*\}\}/gi

/**
 * The Chat Completions body fields of a model's settings, for one chat: what llm-client spreads
 * into the request. Names are filled into the stop strings; duplicates and empty results dropped.
 */
export function samplingParams(
  model: { sampling: Sampling },
  names: { user: string; char?: string | undefined },
): SamplingBody {
  const body: SamplingBody = {}
  for (const key of SAMPLING_KEYS) {
    const value = model.sampling[key]
    if (value !== undefined) body[key] = value
  }
  const stop = (model.sampling.stop ?? DEFAULT_STOP)
    .map((s) => s.replace(MACRO, (_m, who: string) => (who.toLowerCase() === 'user' ? names.user : (names.char ?? ''))))
    .filter((s) => s.trim() !== '')
  if (stop.length > 0) body.stop = [...new Set(stop)]
  return body
}

// A quantization tag at the end of a GGUF name: Q4_K_M, Q8_0, IQ3_XS, F16, BF16, ...
const QUANT = /[-_.](I?Q\d[A-Z0-9_]*|B?F16|F32)$/i

/**
 * A readable name for a model named only by its id, never a server path:
 * "/models/Mistral-Nemo-Q4_K_M.gguf" → "Mistral-Nemo Q4_K_M", "meta-llama/Llama-3.1-8B" → "Llama-3.1-8B".
 */
export function displayNameOf(id: string): string {
  const base = id.split(/[\\/]/).filter(Boolean).at(-1) ?? id
  const stem = base.replace(/\.gguf$/i, '')
  const quant = QUANT.exec(stem)
  const name = quant ? `${stem.slice(0, quant.index)} ${quant[1]}` : stem
  return name.trim().slice(0, 80) || 'Model'
}
