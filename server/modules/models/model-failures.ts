import { APIConnectionError, APIError } from 'openai'
import { MODEL_FAILURE_REASONS, type ModelFailureReason } from '#contracts/chat.ts'

export { MODEL_FAILURE_REASONS, type ModelFailureReason }

/**
 * What a refused or failed model call means for the user and the operator (ADR 031): the provider's
 * answer (HTTP status, its error type and code, its message) sorted into a reason the chat can name
 * and the operator can fix. The shapes are those of llama.cpp's server and of OpenAI (which vLLM,
 * OpenRouter, LM Studio and Ollama copy).
 */

/** Whether the same request may succeed when sent again later, unchanged. */
export const RETRYABLE: Record<ModelFailureReason, boolean> = {
  context_too_long: false,
  model_not_found: false,
  unreachable: true,
  credentials_refused: false,
  rate_limited: true,
  overloaded: true,
  template_refused: false,
  // A thinking model may close its think block next time; a longer reply length helps too.
  reasoning_only: true,
  // The embedded model is being downloaded or loaded: the same message works once it is ready.
  preparing: true,
  other: true,
}

/** What an operator reads in the log at warn level: what is wrong and how to fix it. */
export const OPERATOR_HINTS: Record<ModelFailureReason, string> = {
  context_too_long:
    'the prompt exceeds the model context: set contextTokens of this model in MODELS_FILE to the server context (llama.cpp -c)',
  model_not_found:
    "the server does not serve this model name: check the model's `model` in MODELS_FILE (or LLM_MODEL) against GET /v1/models",
  unreachable:
    'nothing answers at the base URL: start the model server or fix baseUrl in MODELS_FILE (or LLM_BASE_URL)',
  credentials_refused: 'the model server refused the API key: set apiKey in MODELS_FILE (or LLM_API_KEY)',
  rate_limited: 'the provider rate-limits this key: raise the limit with the provider or lower the traffic',
  overloaded: 'the model server is overloaded or loading: add slots or capacity (llama.cpp --parallel), or wait',
  template_refused:
    "the model's chat template refused the messages: check the template (llama.cpp --chat-template-file) and the prompt style",
  reasoning_only:
    'the reply was only reasoning (a <think> block not closed within the reply length): raise maxReplyTokens, or turn thinking off (reasoningOff in MODELS_FILE, llama.cpp --reasoning off or --reasoning-budget 0 where the template has a switch; DeepSeek-R1 templates have none)',
  preparing:
    'the embedded model is still being downloaded or loaded (see the download progress in the log); GET /readyz shows its state',
  other: 'the model server failed: see its own log',
}

export type Classified = { reason: ModelFailureReason; retryAfterSeconds?: number }

const TEMPLATE_WORDS = /template|roles? must|must alternate|system message|conversation roles|jinja/i

/** The longest Retry-After passed on to users; a provider asking for more is waited out by retries later. */
const MAX_RETRY_AFTER_SECONDS = 3600

function retryAfterOf(headers: Headers | undefined): number | undefined {
  const raw = headers?.get('retry-after')
  if (!raw) return undefined
  const seconds = /^\d+$/.test(raw.trim()) ? Number(raw) : (Date.parse(raw) - Date.now()) / 1000
  if (!Number.isFinite(seconds)) return undefined
  return Math.min(MAX_RETRY_AFTER_SECONDS, Math.max(1, Math.ceil(seconds)))
}

/** Sorts an openai-client error (or anything a call threw) into a reason. */
export function classifyFailure(error: unknown): Classified {
  if (error instanceof APIConnectionError) return { reason: 'unreachable' }
  if (!(error instanceof APIError)) return { reason: 'other' }
  const body = (error.error ?? {}) as { type?: unknown; code?: unknown; message?: unknown }
  const type = typeof body.type === 'string' ? body.type : (error.type ?? '')
  const code = typeof body.code === 'string' ? body.code : String(error.code ?? '')
  const message = `${typeof body.message === 'string' ? body.message : ''} ${error.message}`
  // llama.cpp: 400 {type: exceed_context_size_error}; OpenAI and vLLM: code context_length_exceeded.
  if (type === 'exceed_context_size_error' || code === 'context_length_exceeded') return { reason: 'context_too_long' }
  if (/maximum context length|context (size|window|length)/i.test(message) && error.status === 400) {
    return { reason: 'context_too_long' }
  }
  // The embedded provider while its model is downloaded or loaded (ADR 037): 503 {error: {type: model_preparing}}.
  if (error.status === 503 && type === 'model_preparing') return { reason: 'preparing' }
  // Its model could not be had (download failed, engine missing): chat cannot answer until the
  // operator acts; the chat page's notice says how (ADR 036).
  if (error.status === 503 && type === 'model_unavailable') return { reason: 'unreachable' }
  switch (error.status) {
    case 401:
    case 403:
      return { reason: 'credentials_refused' }
    case 404:
      return { reason: 'model_not_found' }
    case 429: {
      const retryAfterSeconds = retryAfterOf(error.headers)
      return retryAfterSeconds === undefined
        ? { reason: 'rate_limited' }
        : { reason: 'rate_limited', retryAfterSeconds }
    }
    case 503: {
      const retryAfterSeconds = retryAfterOf(error.headers)
      return retryAfterSeconds === undefined ? { reason: 'overloaded' } : { reason: 'overloaded', retryAfterSeconds }
    }
  }
  if ((error.status === 400 || error.status === 500) && TEMPLATE_WORDS.test(message)) {
    return { reason: 'template_refused' }
  }
  return { reason: 'other' }
}
