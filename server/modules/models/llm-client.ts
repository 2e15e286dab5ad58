import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError, OpenAIError } from 'openai'
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions'
import type { ModelConfig } from './models.ts'

/**
 * The one way the server talks to a model: OpenAI-compatible Chat Completions through the
 * `openai` client, so OpenAI, OpenRouter, vLLM, llama.cpp, LM Studio and Ollama all work.
 *
 * Every call has one overall deadline (60 s, DESIGN.md's chat limit) covering the connection,
 * the headers and every chunk after them, so a provider that stalls mid-reply fails like one that
 * never answers. The openai client's own timeout only covers the wait for the headers and its
 * retries would replay a reply the user is watching, so retries are off (the user retries) and its
 * timeout is set to what is left of the deadline.
 */

export const DEFAULT_TIMEOUT_MS = 60_000

export type ChatRole = 'system' | 'user' | 'assistant'
export type ChatMessage = { role: ChatRole; content: string; name?: string }

/** Where and what to ask: a `ModelConfig` fits. */
export type LlmEndpoint = Pick<ModelConfig, 'baseUrl' | 'apiKey' | 'model'>

export type ChatRequest = {
  model: LlmEndpoint
  messages: readonly ChatMessage[]
  /** The user's stop button. */
  signal?: AbortSignal | undefined
  /** Overall deadline of the call, from the first request byte to the last chunk. */
  timeoutMs?: number | undefined
  maxTokens?: number | undefined
  temperature?: number | undefined
}

/** How a streamed reply ended: `stop` (complete), `length` (maxTokens reached), `content_filter`, ... */
export type ChatStreamEnd = { finishReason: string; text: string }

/**
 * - `timeout`: the deadline passed (no answer, or no chunk for the rest of it);
 * - `aborted`: the caller's signal fired (the user stopped the reply);
 * - `provider`: the provider refused or failed (`status` when it answered with one), or was unreachable;
 * - `cut`: the reply broke off: connection lost mid-answer, or the stream ended without a finish reason;
 * - `invalid`: the answer does not follow the protocol.
 */
export type LlmErrorKind = 'timeout' | 'aborted' | 'provider' | 'cut' | 'invalid'

export class LlmError extends Error {
  readonly kind: LlmErrorKind
  /** The reply text received before the failure; callers may keep it. */
  readonly partial: string
  /** The provider's HTTP status, for `provider` errors that had one. */
  readonly status: number | undefined

  constructor(
    kind: LlmErrorKind,
    message: string,
    options: { partial?: string; status?: number; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause })
    this.name = 'LlmError'
    this.kind = kind
    this.partial = options.partial ?? ''
    this.status = options.status
  }
}

const clients = new Map<string, OpenAI>()

/** One client per endpoint and key, kept for the life of the process (they pool connections). */
export function clientFor(endpoint: Pick<LlmEndpoint, 'baseUrl' | 'apiKey'>): OpenAI {
  const key = `${endpoint.baseUrl}\n${endpoint.apiKey ?? ''}`
  let client = clients.get(key)
  if (!client) {
    client = new OpenAI({
      baseURL: endpoint.baseUrl,
      // Local servers (Ollama, llama.cpp) take no key, but the client insists on one: a placeholder
      // satisfies it and the Authorization header is then removed.
      apiKey: endpoint.apiKey || 'none',
      defaultHeaders: endpoint.apiKey ? undefined : { Authorization: null },
      // Never pick up OPENAI_* variables of the environment: they belong to OpenAI, and a model of
      // MODELS_FILE may live elsewhere.
      organization: null,
      project: null,
      adminAPIKey: null,
      webhookSecret: null,
      maxRetries: 0,
      timeout: DEFAULT_TIMEOUT_MS,
      // Failures reach the caller as LlmError; the client's own console output would only repeat them.
      logLevel: 'off',
    })
    clients.set(key, client)
  }
  return client
}

/** The deadline and stop signal of one call, merged into the one signal handed to the client. */
function startCall(request: ChatRequest) {
  const timeoutMs = request.timeoutMs ?? DEFAULT_TIMEOUT_MS
  if (request.signal?.aborted) throw new LlmError('aborted', 'The reply was stopped before it started')
  const startedAt = performance.now()
  const controller = new AbortController()
  let reason: 'timeout' | 'aborted' | undefined
  const timer = setTimeout(() => {
    reason ??= 'timeout'
    controller.abort()
  }, timeoutMs)
  const onAbort = () => {
    reason ??= 'aborted'
    controller.abort()
  }
  request.signal?.addEventListener('abort', onAbort, { once: true })
  return {
    timeoutMs,
    signal: controller.signal,
    /** What is left of the deadline, as the whole positive milliseconds the client accepts. */
    remaining: () => Math.max(1, Math.ceil(timeoutMs - (performance.now() - startedAt))),
    reason: () => reason,
    end() {
      clearTimeout(timer)
      request.signal?.removeEventListener('abort', onAbort)
      // Releases the connection when the caller stopped reading early.
      controller.abort()
    },
  }
}

type Call = ReturnType<typeof startCall>

function toLlmError(error: unknown, call: Call, partial: string, midStream: boolean): LlmError {
  if (error instanceof LlmError) return error
  const cause = error
  const reason = call.reason()
  if (reason === 'timeout' || (reason === undefined && error instanceof APIConnectionTimeoutError)) {
    return new LlmError('timeout', `The model did not finish within ${call.timeoutMs} ms`, { partial, cause })
  }
  if (reason === 'aborted' || error instanceof APIUserAbortError) {
    return new LlmError('aborted', 'The reply was stopped', { partial, cause })
  }
  if (error instanceof APIConnectionError) {
    return new LlmError('provider', `The model provider could not be reached: ${error.message}`, { partial, cause })
  }
  if (error instanceof APIError) {
    // With a status: an HTTP error answer. Without: an error event inside the stream.
    return new LlmError('provider', `The model provider failed: ${error.message}`, {
      partial,
      cause,
      ...(error.status === undefined ? {} : { status: error.status }),
    })
  }
  if (error instanceof SyntaxError || error instanceof OpenAIError) {
    return new LlmError('invalid', `The model provider's answer does not follow the protocol: ${error.message}`, {
      partial,
      cause,
    })
  }
  // fetch reports a connection lost while the body was read as a TypeError ("terminated").
  if (midStream || error instanceof TypeError) {
    return new LlmError('cut', 'The connection to the model provider broke off mid-reply', { partial, cause })
  }
  return new LlmError('provider', `The model call failed: ${String(error)}`, { partial, cause })
}

function body(request: ChatRequest) {
  return {
    model: request.model.model,
    messages: request.messages.map((m) =>
      m.name ? { role: m.role, content: m.content, name: m.name } : { role: m.role, content: m.content },
    ) as ChatCompletionMessageParam[],
    ...(request.maxTokens === undefined ? {} : { max_tokens: request.maxTokens }),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
  }
}

/**
 * Streams the reply as content deltas. Ends normally only when the provider gave a finish reason;
 * anything else throws `LlmError` carrying the text received so far. Breaking out of the loop
 * cancels the request. The generator's return value (`ChatStreamEnd`) tells how the reply ended.
 */
export async function* streamChat(request: ChatRequest): AsyncGenerator<string, ChatStreamEnd, undefined> {
  const call = startCall(request)
  let partial = ''
  try {
    let stream: AsyncIterable<OpenAI.Chat.ChatCompletionChunk>
    try {
      stream = await clientFor(request.model).chat.completions.create(
        { ...body(request), stream: true },
        { signal: call.signal, timeout: call.remaining(), maxRetries: 0 },
      )
    } catch (error) {
      throw toLlmError(error, call, partial, false)
    }
    let events = 0
    let finishReason: string | null = null
    try {
      for await (const chunk of stream) {
        events++
        const choice = chunk.choices?.[0]
        const delta = choice?.delta?.content
        if (delta) {
          partial += delta
          yield delta
        }
        if (choice?.finish_reason) finishReason = choice.finish_reason
      }
    } catch (error) {
      throw toLlmError(error, call, partial, true)
    }
    if (finishReason === null) {
      // The client ends a stream quietly when its signal fires, so a stop or a deadline lands here too.
      const reason = call.reason()
      if (reason === 'timeout') {
        throw new LlmError('timeout', `The model did not finish within ${call.timeoutMs} ms`, { partial })
      }
      if (reason === 'aborted') throw new LlmError('aborted', 'The reply was stopped', { partial })
      if (events === 0) throw new LlmError('invalid', 'The model provider answered without a stream event', { partial })
      throw new LlmError('cut', 'The reply stream ended before the reply was complete', { partial })
    }
    return { finishReason, text: partial }
  } finally {
    call.end()
  }
}

/**
 * The whole reply in one answer (no streaming), for work the user does not watch (memory
 * summaries). `retries` lets the client retry failures it considers transient (408, 409, 429,
 * 5xx, connection errors), within the same overall deadline; none by default.
 */
export async function completeChat(request: ChatRequest & { retries?: number }): Promise<string> {
  const call = startCall(request)
  try {
    const completion: unknown = await clientFor(request.model).chat.completions.create(
      { ...body(request), stream: false },
      { signal: call.signal, timeout: call.remaining(), maxRetries: request.retries ?? 0 },
    )
    // A provider that answers 200 with something else than JSON reaches here as a string.
    const content = (completion as Partial<OpenAI.Chat.ChatCompletion> | null)?.choices?.[0]?.message?.content
    if (typeof content !== 'string') {
      throw new LlmError('invalid', 'The model provider answered without a reply message')
    }
    return content
  } catch (error) {
    throw toLlmError(error, call, '', false)
  } finally {
    call.end()
  }
}
