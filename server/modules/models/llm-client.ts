import { createHash } from 'node:crypto'
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError, OpenAIError } from 'openai'
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions'
import { completionChunks } from './completion-stream.ts'
import { classifyFailure, type ModelFailureReason } from './model-failures.ts'
import { modelFetch } from './model-fetch.ts'
import type { ModelConfig } from './models.ts'
import { createThinkSplitter } from './reasoning.ts'

/**
 * The one way the server talks to a model: OpenAI-compatible Chat Completions through the
 * `openai` client, so OpenAI, OpenRouter, vLLM, llama.cpp, LM Studio and Ollama all work.
 *
 * Time limits fit streaming (ADR 031): a streamed call waits up to `firstTokenTimeoutMs` for its
 * first token (a queued request on a busy llama.cpp server waits within it), then up to
 * `idleTimeoutMs` between tokens, so a slow CPU server that keeps writing is never cut off. One
 * generous overall deadline (`timeoutMs`) stays as a safety net; a non-streamed call has only it.
 * The openai client's own timeout only covers the wait for the headers and its retries would replay
 * a reply the user is watching, so retries are off (the user retries) and its timeout is set to
 * what is left of the deadline.
 *
 * Reasoning (`delta.reasoning_content`, or `<think>…</think>` inside the content for servers that
 * do not split it) goes to `onReasoning`, never into the reply text.
 */

export const DEFAULT_TIMEOUT_MS = 60_000

/**
 * The `user` a model call carries for one of our users: stable (the embedded model's fair queue
 * groups a user's chats by it, ADR 036) and opaque (a digest, never the account id itself).
 */
export const opaqueUserId = (userId: string) =>
  createHash('sha256').update(`taleweave-user:${userId}`).digest('base64url').slice(0, 22)

export type ChatRole = 'system' | 'user' | 'assistant'
export type ChatMessage = { role: ChatRole; content: string; name?: string }

/** Where and what to ask: a `ModelConfig` fits. */
export type LlmEndpoint = Pick<ModelConfig, 'baseUrl' | 'apiKey' | 'model'>

export type ChatRequest = {
  model: LlmEndpoint
  messages: readonly ChatMessage[]
  /** The user's stop button. */
  signal?: AbortSignal | undefined
  /** Overall deadline of the call, from the first request byte to the last chunk (a safety net). */
  timeoutMs?: number | undefined
  /** Streaming: the longest wait for the first token (reasoning or reply), queueing included. */
  firstTokenTimeoutMs?: number | undefined
  /** Streaming: the longest wait between two tokens once the first came. */
  idleTimeoutMs?: number | undefined
  /** Streaming: receives the model's reasoning ("thinking") as it comes; it is never part of the reply. */
  onReasoning?: ((text: string) => void) | undefined
  /** Extra request fields the provider takes (e.g. turning reasoning off: `reasoningOff`). */
  extraBody?: Record<string, unknown> | undefined
  maxTokens?: number | undefined
  temperature?: number | undefined
  /**
   * A stable opaque id of the user the call is for (`user` of Chat Completions): the embedded
   * model queues fairly by it (ADR 036); OpenAI uses it for abuse monitoring. Never the user's id.
   */
  user?: string | undefined
}

/**
 * How a streamed reply ended: `stop` (complete), `length` (maxTokens reached), `content_filter`, ...
 * `promptTokens`: the server's count of the prompt (`usage.prompt_tokens`), when it reported one.
 */
export type ChatStreamEnd = { finishReason: string; text: string; promptTokens?: number | undefined }

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
  /** For `provider` errors: what the refusal means (model-failures.ts); `other` for every other kind. */
  readonly reason: ModelFailureReason
  /** The provider's Retry-After (429, 503), in seconds. */
  readonly retryAfterSeconds: number | undefined

  constructor(
    kind: LlmErrorKind,
    message: string,
    options: {
      partial?: string
      status?: number
      cause?: unknown
      reason?: ModelFailureReason
      retryAfterSeconds?: number
    } = {},
  ) {
    super(message, { cause: options.cause })
    this.name = 'LlmError'
    this.kind = kind
    this.partial = options.partial ?? ''
    this.status = options.status
    this.reason = options.reason ?? 'other'
    this.retryAfterSeconds = options.retryAfterSeconds
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
      // `embedded://` base URLs are answered in-process by the embedded model (ADR 036).
      fetch: modelFetch,
    })
    clients.set(key, client)
  }
  return client
}

/**
 * The deadlines and stop signal of one call, merged into the one signal handed to the client:
 * the overall deadline, and (streaming) the wait for the next token, restarted by `tokenCame`.
 */
function startCall(request: ChatRequest, streaming: boolean) {
  const timeoutMs = request.timeoutMs ?? DEFAULT_TIMEOUT_MS
  if (request.signal?.aborted) throw new LlmError('aborted', 'The reply was stopped before it started')
  const startedAt = performance.now()
  const controller = new AbortController()
  let reason: 'timeout' | 'aborted' | undefined
  let timeoutMessage = `The model did not finish within ${timeoutMs} ms`
  const expire = (message: string) => () => {
    if (reason) return
    reason = 'timeout'
    timeoutMessage = message
    controller.abort()
  }
  const timer = setTimeout(expire(timeoutMessage), timeoutMs)
  let tokenTimer: ReturnType<typeof setTimeout> | undefined
  const firstTokenMs = streaming ? request.firstTokenTimeoutMs : undefined
  if (firstTokenMs !== undefined && firstTokenMs < timeoutMs) {
    tokenTimer = setTimeout(expire(`The model sent no first token within ${firstTokenMs} ms`), firstTokenMs)
  }
  const onAbort = () => {
    reason ??= 'aborted'
    controller.abort()
  }
  request.signal?.addEventListener('abort', onAbort, { once: true })
  return {
    timeoutMs,
    timeoutMessage: () => timeoutMessage,
    /** A token came: the idle limit starts again. */
    tokenCame() {
      clearTimeout(tokenTimer)
      const idleMs = request.idleTimeoutMs
      if (idleMs !== undefined) {
        tokenTimer = setTimeout(expire(`The model sent no token for ${idleMs} ms`), idleMs)
      }
    },
    signal: controller.signal,
    /** What is left of the deadline, as the whole positive milliseconds the client accepts. */
    remaining: () => Math.max(1, Math.ceil(timeoutMs - (performance.now() - startedAt))),
    reason: () => reason,
    /** `answered`: the whole answer was read, so its connection is free already. */
    end(answered: boolean) {
      clearTimeout(timer)
      clearTimeout(tokenTimer)
      request.signal?.removeEventListener('abort', onAbort)
      // Releases the connection when the caller stopped reading early. Not after a whole answer: an
      // abort builds a DOMException with its stack, twice (the client aborts its own signal too),
      // ~1% of a send's CPU.
      if (!answered) controller.abort()
    },
  }
}

type Call = ReturnType<typeof startCall>

function toLlmError(error: unknown, call: Call, partial: string, midStream: boolean): LlmError {
  if (error instanceof LlmError) return error
  const cause = error
  const reason = call.reason()
  if (reason === 'timeout' || (reason === undefined && error instanceof APIConnectionTimeoutError)) {
    return new LlmError('timeout', call.timeoutMessage(), { partial, cause })
  }
  if (reason === 'aborted' || error instanceof APIUserAbortError) {
    return new LlmError('aborted', 'The reply was stopped', { partial, cause })
  }
  if (error instanceof APIConnectionError) {
    return new LlmError('provider', `The model provider could not be reached: ${error.message}`, {
      partial,
      cause,
      reason: 'unreachable',
    })
  }
  if (error instanceof APIError) {
    // With a status: an HTTP error answer. Without: an error event inside the stream.
    const classified = classifyFailure(error)
    return new LlmError('provider', `The model provider failed: ${error.message}`, {
      partial,
      cause,
      ...classified,
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

/** The connection closed before any answer came: undici's "other side closed" or a reset socket. */
function closedBeforeAnswer(error: unknown): boolean {
  if (!(error instanceof APIConnectionError) || error instanceof APIConnectionTimeoutError) return false
  for (let cause: unknown = error.cause, depth = 0; cause && depth < 5; depth++) {
    const { code, message } = cause as { code?: unknown; message?: unknown }
    if (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || /other side closed/.test(String(message))) return true
    cause = (cause as { cause?: unknown }).cause
  }
  return false
}

function body(request: ChatRequest) {
  return {
    model: request.model.model,
    messages: request.messages.map((m) =>
      m.name ? { role: m.role, content: m.content, name: m.name } : { role: m.role, content: m.content },
    ) as ChatCompletionMessageParam[],
    ...(request.maxTokens === undefined ? {} : { max_tokens: request.maxTokens }),
    ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    ...(request.user === undefined ? {} : { user: request.user }),
    ...request.extraBody,
  }
}

/**
 * The request fields that turn a model's reasoning off, by the way its server takes it:
 * `chat_template_kwargs` (llama.cpp and vLLM with Qwen 3-style templates) or `reasoning_effort`
 * (OpenAI-style APIs; `minimal` is the least they take). Unknown fields are ignored by llama.cpp.
 */
export function reasoningOff(style: 'template' | 'effort'): Record<string, unknown> {
  return style === 'template' ? { chat_template_kwargs: { enable_thinking: false } } : { reasoning_effort: 'minimal' }
}

/**
 * Streams the reply as content deltas. Ends normally only when the provider gave a finish reason;
 * anything else throws `LlmError` carrying the text received so far. Breaking out of the loop
 * cancels the request. The generator's return value (`ChatStreamEnd`) tells how the reply ended.
 */
export async function* streamChat(request: ChatRequest): AsyncGenerator<string, ChatStreamEnd, undefined> {
  const call = startCall(request, true)
  let answered = false
  let partial = ''
  const thinking = createThinkSplitter()
  try {
    let response: Response | undefined
    for (let attempt = 0; !response; attempt++) {
      try {
        // The client sends the request and turns a refusal into its errors; the events are read
        // here (completion-stream.ts), which costs less than the client's own stream.
        response = await clientFor(request.model)
          .chat.completions.create(
            // The usage comes in a last chunk (OpenAI, llama.cpp, vLLM, OpenRouter; Ollama ignores the
            // option): the server's own prompt count corrects ours (model-server-info.ts, ADR 030).
            { ...body(request), stream: true, stream_options: { include_usage: true } },
            { signal: call.signal, timeout: call.remaining(), maxRetries: 0 },
          )
          .asResponse()
      } catch (error) {
        // A pooled keep-alive connection the server had just closed (llama.cpp does after a while):
        // the request never reached it, so it is sent once more on a new connection.
        if (attempt === 0 && call.reason() === undefined && closedBeforeAnswer(error)) continue
        throw toLlmError(error, call, partial, false)
      }
    }
    let events = 0
    let finishReason: string | null = null
    let promptTokens: number | undefined
    try {
      for await (const batch of completionChunks(response)) {
        for (const chunk of batch) {
          events++
          const reported = chunk.usage?.prompt_tokens
          if (typeof reported === 'number' && reported > 0) promptTokens = reported
          const choice = chunk.choices?.[0]
          // Not in the openai types: llama.cpp, vLLM and DeepSeek send it (OpenRouter: `reasoning`).
          const extra = choice?.delta as { reasoning_content?: unknown; reasoning?: unknown } | undefined
          const reasoning = extra?.reasoning_content ?? extra?.reasoning
          const content = choice?.delta?.content
          if ((typeof reasoning === 'string' && reasoning) || content) call.tokenCame()
          if (typeof reasoning === 'string' && reasoning) request.onReasoning?.(reasoning)
          if (content) {
            const parts = thinking.push(content)
            if (parts.reasoning) request.onReasoning?.(parts.reasoning)
            if (parts.content) {
              partial += parts.content
              yield parts.content
            }
          }
          if (choice?.finish_reason) finishReason = choice.finish_reason
        }
      }
      answered = true
      const rest = thinking.flush()
      if (rest.reasoning) request.onReasoning?.(rest.reasoning)
      if (rest.content) {
        partial += rest.content
        yield rest.content
      }
    } catch (error) {
      throw toLlmError(error, call, partial, true)
    }
    if (finishReason === null) {
      // No finish reason: the stream ended early. A stop or a deadline may have ended it.
      const reason = call.reason()
      if (reason === 'timeout') {
        throw new LlmError('timeout', call.timeoutMessage(), { partial })
      }
      if (reason === 'aborted') throw new LlmError('aborted', 'The reply was stopped', { partial })
      if (events === 0) throw new LlmError('invalid', 'The model provider answered without a stream event', { partial })
      throw new LlmError('cut', 'The reply stream ended before the reply was complete', { partial })
    }
    return { finishReason, text: partial, promptTokens }
  } finally {
    call.end(answered)
  }
}

/**
 * The whole reply in one answer (no streaming), for work the user does not watch (memory
 * summaries). `retries` lets the client retry failures it considers transient (408, 409, 429,
 * 5xx, connection errors), within the same overall deadline; none by default.
 */
export async function completeChat(request: ChatRequest & { retries?: number }): Promise<string> {
  const call = startCall(request, false)
  let answered = false
  try {
    const completion: unknown = await clientFor(request.model).chat.completions.create(
      { ...body(request), stream: false },
      { signal: call.signal, timeout: call.remaining(), maxRetries: request.retries ?? 0 },
    )
    answered = true
    // A provider that answers 200 with something else than JSON reaches here as a string.
    const content = (completion as Partial<OpenAI.Chat.ChatCompletion> | null)?.choices?.[0]?.message?.content
    if (typeof content !== 'string') {
      throw new LlmError('invalid', 'The model provider answered without a reply message')
    }
    return content
  } catch (error) {
    throw toLlmError(error, call, '', false)
  } finally {
    call.end(answered)
  }
}
