import { randomUUID } from 'node:crypto'
import { ContextExceededError, type Engine, type EngineMessage, type GenerateOptions } from './engine.ts'
import type { FairQueue } from './fair-queue.ts'

/**
 * The embedded model behind the same OpenAI-compatible protocol as llama-server (ADR 036), reached
 * in-process through the model fetch seam (model-fetch.ts): llm-client, model-server-info and
 * model-health talk to it exactly as to a server. What llama-server answers, this answers:
 * `POST /v1/chat/completions` (streamed as SSE or not), `GET /v1/models`, `GET /props`,
 * `POST /tokenize`, and its error shapes (`exceed_context_size_error`, 503 while loading).
 */

export type HandlerState =
  | { state: 'ready'; engine: Engine }
  | { state: 'downloading' | 'loading'; percent: number | null }
  | { state: 'failed'; failure: { code: string; hint: string } }

export type EmbeddedHandler = (
  url: URL,
  init: { method?: string; body?: unknown; signal?: AbortSignal | null },
) => Promise<Response>

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })

const error = (status: number, type: string, message: string, extra: Record<string, unknown> = {}) =>
  json(status, { error: { code: status, type, message, ...extra } })

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined)

type Body = Record<string, unknown>

function parseMessages(body: Body): EngineMessage[] | string {
  if (!Array.isArray(body.messages) || body.messages.length === 0) return "'messages' must be a non-empty array"
  const out: EngineMessage[] = []
  for (const m of body.messages as unknown[]) {
    const { role, content } = (m ?? {}) as { role?: unknown; content?: unknown }
    if (role !== 'system' && role !== 'user' && role !== 'assistant') return `unsupported message role: ${String(role)}`
    const text =
      typeof content === 'string'
        ? content
        : Array.isArray(content)
          ? content.map((part) => (typeof part?.text === 'string' ? part.text : '')).join('')
          : null
    if (text === null) return "each message needs a string 'content'"
    out.push({ role, content: text })
  }
  return out
}

/** OpenAI's `{token: bias}` or llama.cpp's `[[token, bias | false], ...]`. */
function logitBiasOf(value: unknown): Record<string, number> | undefined {
  const out: Record<string, number> = {}
  if (Array.isArray(value)) {
    for (const pair of value) {
      if (Array.isArray(pair) && typeof pair[0] === 'number') {
        out[pair[0]] = pair[1] === false ? -100 : (num(pair[1]) ?? 0)
      }
    }
  } else if (value && typeof value === 'object') {
    for (const [token, bias] of Object.entries(value)) {
      const n = num(bias)
      if (n !== undefined) out[token] = n
    }
  }
  return Object.keys(out).length > 0 ? out : undefined
}

function generateOptions(body: Body): Omit<GenerateOptions, 'signal' | 'onContent' | 'onReasoning'> {
  const kwargs = body.chat_template_kwargs
  const templateKwargs =
    kwargs && typeof kwargs === 'object' && !Array.isArray(kwargs) ? (kwargs as Record<string, unknown>) : undefined
  const stop = typeof body.stop === 'string' ? [body.stop] : Array.isArray(body.stop) ? body.stop : undefined
  return {
    maxTokens: num(body.max_completion_tokens) ?? num(body.max_tokens) ?? num(body.n_predict),
    temperature: num(body.temperature),
    topP: num(body.top_p),
    topK: num(body.top_k),
    minP: num(body.min_p),
    repetitionPenalty: num(body.repetition_penalty) ?? num(body.repeat_penalty),
    presencePenalty: num(body.presence_penalty),
    frequencyPenalty: num(body.frequency_penalty),
    seed: num(body.seed),
    stop: stop?.filter((s): s is string => typeof s === 'string' && s !== ''),
    logitBias: logitBiasOf(body.logit_bias),
    thinking: templateKwargs?.enable_thinking !== false,
    templateKwargs,
  }
}

/** The first signal of several that fires; the listeners go with `done`. */
function anyOf(...signals: (AbortSignal | null | undefined)[]) {
  const present = signals.filter((s): s is AbortSignal => Boolean(s))
  return AbortSignal.any(present)
}

export function createEmbeddedHandler(deps: {
  state: () => HandlerState
  queue: FairQueue
  /** The model's name in answers (`model`, `/v1/models`). */
  modelName: string
  /** How a request that is not from a chat is queued. */
  defaultUser?: string
}): EmbeddedHandler {
  const notReady = (s: Exclude<HandlerState, { state: 'ready' }>) =>
    s.state === 'failed'
      ? error(503, 'model_unavailable', `The embedded model is not available: ${s.failure.hint}`, {
          reason: s.failure.code,
        })
      : error(503, 'model_preparing', 'The embedded model is being prepared', { percent: s.percent })

  async function chatCompletions(body: Body, signal: AbortSignal | null | undefined): Promise<Response> {
    const s = deps.state()
    if (s.state !== 'ready') return notReady(s)
    const messages = parseMessages(body)
    if (typeof messages === 'string') return error(400, 'invalid_request_error', messages)
    const options = generateOptions(body)
    const { engine } = s
    const prompt = engine.promptTokens(messages, options.templateKwargs)
    if (prompt >= engine.contextTokens) {
      return error(400, 'exceed_context_size_error', new ContextExceededError(prompt, engine.contextTokens).message, {
        n_prompt_tokens: prompt,
        n_ctx: engine.contextTokens,
      })
    }
    const user = typeof body.user === 'string' && body.user ? body.user : (deps.defaultUser ?? 'anonymous')
    // Stop while waiting: the request leaves the queue and the call rejects, as fetch does when
    // its signal fires before the answer.
    const lease = await deps.queue.acquire(user, signal ?? undefined)
    const id = `chatcmpl-${randomUUID().replaceAll('-', '')}`
    const created = Math.floor(Date.now() / 1000)
    const model = typeof body.model === 'string' && body.model ? body.model : deps.modelName
    const stop = new AbortController()
    const generation = anyOf(signal, stop.signal)
    const run = (onContent: (t: string) => void, onReasoning: (t: string) => void) =>
      engine.generate(lease.slot, messages, { ...options, signal: generation, onContent, onReasoning }).finally(() => {
        lease.release()
      })

    if (body.stream !== true) {
      let content = ''
      let reasoning = ''
      try {
        const result = await run(
          (t) => {
            content += t
          },
          (t) => {
            reasoning += t
          },
        )
        return json(200, {
          id,
          object: 'chat.completion',
          created,
          model,
          choices: [
            {
              index: 0,
              finish_reason: result.finishReason,
              message: { role: 'assistant', content, ...(reasoning ? { reasoning_content: reasoning } : {}) },
            },
          ],
          usage: usageOf(result),
        })
      } catch (failure) {
        return failureResponse(failure, generation)
      }
    }

    const includeUsage = (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true
    const encoder = new TextEncoder()
    const chunk = (delta: Record<string, unknown>, finish: string | null) =>
      JSON.stringify({
        choices: [{ finish_reason: finish, index: 0, delta }],
        created,
        id,
        model,
        object: 'chat.completion.chunk',
      })
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        let open = true
        const send = (data: string) => {
          if (open) controller.enqueue(encoder.encode(`data: ${data}\n\n`))
        }
        send(chunk({ role: 'assistant', content: null }, null))
        run(
          (t) => send(chunk({ content: t }, null)),
          (t) => send(chunk({ reasoning_content: t }, null)),
        ).then(
          (result) => {
            send(chunk({}, result.finishReason))
            if (includeUsage) {
              send(
                JSON.stringify({
                  choices: [],
                  created,
                  id,
                  model,
                  object: 'chat.completion.chunk',
                  usage: usageOf(result),
                }),
              )
            }
            send('[DONE]')
            open = false
            controller.close()
          },
          (failure: unknown) => {
            if (generation.aborted) {
              // The reader is gone or stopped: nothing more to say.
              open = false
              controller.error(generation.reason)
              return
            }
            const shaped = shapeFailure(failure)
            send(JSON.stringify({ error: { code: shaped.status, type: shaped.type, message: shaped.message } }))
            open = false
            controller.close()
          },
        )
      },
      cancel() {
        stop.abort(new Error('the reader went away'))
      },
    })
    return new Response(stream, {
      status: 200,
      headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' },
    })
  }

  return async (url, init) => {
    const method = (init.method ?? 'GET').toUpperCase()
    const route = url.pathname.replace(/\/+$/, '').replace(/^\/v1(?=\/)/, '')
    let body: Body = {}
    if (method === 'POST') {
      try {
        const text = typeof init.body === 'string' ? init.body : new TextDecoder().decode(init.body as ArrayBuffer)
        body = JSON.parse(text) as Body
      } catch {
        return error(400, 'invalid_request_error', 'The request body is not valid JSON')
      }
      if (!body || typeof body !== 'object') return error(400, 'invalid_request_error', 'The body must be an object')
    }
    const s = deps.state()
    if (method === 'POST' && route === '/chat/completions') return chatCompletions(body, init.signal)
    if (method === 'GET' && route === '/models') {
      // Listed while the model is prepared too: the provider is there (the model health check).
      const meta = s.state === 'ready' ? { n_ctx: s.engine.contextTokens } : undefined
      return json(200, {
        object: 'list',
        data: [{ id: deps.modelName, object: 'model', owned_by: 'embedded', created: 0, ...(meta ? { meta } : {}) }],
      })
    }
    if (method === 'GET' && route === '/props') {
      if (s.state !== 'ready') return notReady(s)
      return json(200, {
        default_generation_settings: { n_ctx: s.engine.contextTokens },
        total_slots: s.engine.slots,
        model_alias: deps.modelName,
      })
    }
    if (method === 'POST' && route === '/tokenize') {
      if (s.state !== 'ready') return notReady(s)
      if (typeof body.content !== 'string') return error(400, 'invalid_request_error', "'content' must be a string")
      return json(200, { tokens: s.engine.tokenize(body.content) })
    }
    return error(404, 'not_found_error', 'File Not Found')
  }
}

const usageOf = (r: { promptTokens: number; completionTokens: number }) => ({
  prompt_tokens: r.promptTokens,
  completion_tokens: r.completionTokens,
  total_tokens: r.promptTokens + r.completionTokens,
})

function shapeFailure(failure: unknown): {
  status: number
  type: string
  message: string
  extra?: Record<string, unknown>
} {
  if (failure instanceof ContextExceededError) {
    return {
      status: 400,
      type: 'exceed_context_size_error',
      message: failure.message,
      extra: { n_prompt_tokens: failure.promptTokens, n_ctx: failure.contextTokens },
    }
  }
  return { status: 500, type: 'server_error', message: failure instanceof Error ? failure.message : String(failure) }
}

function failureResponse(failure: unknown, signal: AbortSignal): Response {
  // As fetch does when its signal fires before the answer.
  if (signal.aborted) throw signal.reason
  const shaped = shapeFailure(failure)
  return error(shaped.status, shaped.type, shaped.message, shaped.extra)
}
