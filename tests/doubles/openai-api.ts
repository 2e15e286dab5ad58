import { randomUUID } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

/**
 * An OpenAI-compatible Chat Completions server (what OpenAI, OpenRouter, vLLM, llama.cpp and Ollama
 * speak): `POST /v1/chat/completions`, streamed as server-sent events or answered as one JSON, and
 * `GET /v1/models`. Tests tell it what to answer, how fast, and which faults to play next.
 *
 * Streaming, as OpenAI sends it: a first chunk with the role, one chunk per content delta (here a
 * word with its leading space), a last chunk with `finish_reason: "stop"`, then `data: [DONE]`.
 */

export type ChatMessageBody = { role: string; content: unknown; name?: string }
export type ChatRequestBody = {
  model: string
  messages: ChatMessageBody[]
  stream?: boolean
  [field: string]: unknown
}
export type Reply = string | ((messages: ChatMessageBody[], body: ChatRequestBody) => string)

export type Fault =
  /** Answers with this status and an OpenAI-style error JSON (or `body` as given), with `headers`. */
  | { kind: 'fail'; status: number; message: string; body?: unknown; headers?: Record<string, string> }
  /** Sends the response headers, then nothing until the client gives up. */
  | { kind: 'stall' }
  /** Sends the role chunk and `afterChunks` content chunks, then destroys the socket. */
  | { kind: 'cut'; afterChunks: number }
  /** Like `cut`, but ends the response cleanly: no finish_reason, no [DONE] (a proxy that gave up). */
  | { kind: 'end'; afterChunks: number }
  /** Answers 200 with something that is not the protocol: a non-JSON event, or a completion without choices. */
  | { kind: 'malformed' }

/** When the double did what, as `performance.timeOrigin + performance.now()` (ms since the epoch). */
export type RequestTiming = {
  receivedAt: number
  /** When the first content delta was written (streaming) or the answer sent (non-streaming). */
  firstTokenAt?: number
  doneAt?: number
  /** The client closed the connection before the answer was complete (a stop, a timeout). */
  closedEarly: boolean
}

export type OpenAiApiOptions = {
  reply?: Reply
  /** Pause between content deltas. */
  tokenDelayMs?: number
  /** Pause between the role chunk (sent with the headers) and the first content delta. */
  firstTokenDelayMs?: number
  /** Streamed as `delta.reasoning_content` before the reply (as llama.cpp and vLLM send thinking). */
  reasoning?: string
  /** The finish reason of the last chunk: `length` plays a reply cut by max_tokens. */
  finishReason?: 'stop' | 'length'
  /** When set, requests need `Authorization: Bearer <apiKey>` (401 otherwise). */
  apiKey?: string
  /** Listed by `GET /v1/models`; when set, other model names are answered 404 like OpenAI does. */
  models?: string[]
  /**
   * Also speak Ollama's own API beside its OpenAI one, as Ollama does on the same port:
   * `POST /api/show`, `GET /api/ps` (models loaded now) and `GET /api/version`.
   */
  ollama?: { version: string; models: Record<string, OllamaModel> }
}

export type OllamaModel = {
  /** `general.architecture`, e.g. "llama", "qwen2", "gemma2". */
  architecture: string
  /** The trained context, `<architecture>.context_length` in `model_info`. */
  contextLength: number
  /** A `num_ctx` line in the model's parameters (its Modelfile), when set. */
  numCtx?: number
  /** Loaded with this context (`/api/ps` lists it); not loaded when unset. */
  loadedContext?: number
}

/** Ollama's answers for its own API, in its wire format (ollama/ollama docs/api.md). */
function ollamaAnswer(
  ollama: NonNullable<OpenAiApiOptions['ollama']>,
  method: string,
  pathname: string,
  raw: string,
): { status: number; body: unknown } | undefined {
  if (method === 'GET' && pathname === '/api/version') return { status: 200, body: { version: ollama.version } }
  if (method === 'GET' && pathname === '/api/ps') {
    const loaded = Object.entries(ollama.models).filter(([, m]) => m.loadedContext !== undefined)
    return {
      status: 200,
      body: {
        models: loaded.map(([name, m]) => ({
          name,
          model: name,
          size: 2_019_393_189,
          digest: 'a80c4f17acd55265feec403c7aef86be0c25983ab279d83f3bcd3abbcb5b8b72',
          details: { format: 'gguf', family: m.architecture, parameter_size: '3.2B', quantization_level: 'Q4_K_M' },
          expires_at: '2099-01-01T00:00:00Z',
          size_vram: 2_019_393_189,
          context_length: m.loadedContext,
        })),
      },
    }
  }
  if (method === 'POST' && pathname === '/api/show') {
    let name: unknown
    try {
      const body = JSON.parse(raw) as { model?: unknown; name?: unknown }
      name = body.model ?? body.name
    } catch {
      return { status: 400, body: { error: 'invalid character looking for beginning of value' } }
    }
    const m = typeof name === 'string' ? ollama.models[name] : undefined
    if (!m) return { status: 404, body: { error: `model '${String(name)}' not found` } }
    return {
      status: 200,
      body: {
        modelfile: `FROM ${String(name)}`,
        parameters: [
          m.numCtx === undefined ? '' : `num_ctx                        ${m.numCtx}`,
          'stop                           "<|eot_id|>"',
        ]
          .filter(Boolean)
          .join('\n'),
        template: '{{ .Prompt }}',
        details: { format: 'gguf', family: m.architecture, parameter_size: '3.2B', quantization_level: 'Q4_K_M' },
        model_info: {
          'general.architecture': m.architecture,
          'general.parameter_count': 3_212_749_888,
          [`${m.architecture}.context_length`]: m.contextLength,
          [`${m.architecture}.embedding_length`]: 3072,
        },
        capabilities: ['completion'],
        modified_at: '2025-01-01T00:00:00Z',
      },
    }
  }
  return undefined
}

const now = () => performance.timeOrigin + performance.now()

const ERROR_TYPES: Record<number, { type: string; code: string | null }> = {
  400: { type: 'invalid_request_error', code: null },
  401: { type: 'invalid_request_error', code: 'invalid_api_key' },
  403: { type: 'invalid_request_error', code: 'unsupported_country_region_territory' },
  404: { type: 'invalid_request_error', code: 'model_not_found' },
  429: { type: 'requests', code: 'rate_limit_exceeded' },
}

/** Splits a reply into deltas the way a tokenizer would stream it: each word with its leading space. */
function splitIntoDeltas(text: string): string[] {
  const deltas: string[] = [...(text.match(/\s*\S+/g) ?? [])]
  const rest = text.slice(deltas.join('').length)
  if (rest) deltas.push(rest)
  return deltas
}

export async function startOpenAiApi(options: OpenAiApiOptions = {}) {
  const faults: Fault[] = []
  const requests: ChatRequestBody[] = []
  const headers: http.IncomingHttpHeaders[] = []
  const timings: RequestTiming[] = []
  const sockets = new Set<Socket>()

  const state = {
    reply: options.reply ?? ('Hello from the model double.' as Reply),
    tokenDelayMs: options.tokenDelayMs ?? 0,
    firstTokenDelayMs: options.firstTokenDelayMs ?? 0,
    reasoning: options.reasoning ?? '',
    finishReason: options.finishReason ?? ('stop' as 'stop' | 'length'),
    /** Reported as `usage.prompt_tokens` when set (a tokenizer that counts otherwise than ours). */
    promptTokens: undefined as number | undefined,
    modelListDown: false,
  }

  const sendJson = (res: http.ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(JSON.stringify(body))
  }
  const sendError = (res: http.ServerResponse, status: number, message: string, param: string | null = null) => {
    const { type, code } = ERROR_TYPES[status] ?? {
      type: status >= 500 ? 'server_error' : 'invalid_request_error',
      code: null,
    }
    sendJson(res, status, { error: { message, type, param, code } })
  }

  const server = http.createServer((req, res) => {
    let raw = ''
    req.setEncoding('utf8')
    req.on('data', (chunk: string) => {
      raw += chunk
    })
    req.on('end', () => {
      const receivedAt = now()
      const url = new URL(req.url ?? '/', 'http://double')
      const authorized = options.apiKey === undefined || req.headers.authorization === `Bearer ${options.apiKey}`
      if (req.method === 'GET' && url.pathname === '/v1/models') {
        // A health check that finds nothing there (the connection dropped), while replies still work.
        if (state.modelListDown) return req.socket.destroy()
        if (!authorized) return sendError(res, 401, 'Incorrect API key provided.')
        const ids = options.models ?? [...new Set(requests.map((r) => r.model))]
        sendJson(res, 200, {
          object: 'list',
          data: ids.map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'double' })),
        })
        return
      }
      const ollama = options.ollama && ollamaAnswer(options.ollama, req.method ?? '', url.pathname, raw)
      if (ollama) return sendJson(res, ollama.status, ollama.body)
      if (req.method !== 'POST' || url.pathname !== '/v1/chat/completions') {
        sendError(res, 404, `Unknown request URL: ${req.method} ${url.pathname}.`)
        return
      }
      let body: ChatRequestBody
      try {
        body = JSON.parse(raw)
      } catch {
        sendError(res, 400, 'We could not parse the JSON body of your request.')
        return
      }
      // Recorded before any check, so a test sees what was sent even when it was refused.
      requests.push(body)
      headers.push(req.headers)
      if (!authorized) return sendError(res, 401, 'Incorrect API key provided.')
      const invalid = validate(body)
      if (invalid) return sendError(res, 400, invalid.message, invalid.param)
      if (options.models && !options.models.includes(body.model)) {
        sendError(res, 404, `The model \`${body.model}\` does not exist or you do not have access to it.`, 'model')
        return
      }
      const timing: RequestTiming = { receivedAt, closedEarly: false }
      timings.push(timing)
      const fault = faults.shift()
      if (fault?.kind === 'fail') {
        if (fault.body === undefined && !fault.headers) sendError(res, fault.status, fault.message)
        else {
          res.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers })
          res.end(JSON.stringify(fault.body ?? { error: { message: fault.message, type: 'server_error' } }))
        }
        return
      }
      const text = typeof state.reply === 'function' ? state.reply(body.messages, body) : state.reply
      if (body.stream) void stream(res, body, text, timing, fault)
      else void complete(res, body, text, timing, fault)
    })
  })

  const base = (body: ChatRequestBody) => ({
    id: `chatcmpl-${randomUUID()}`,
    created: Math.floor(Date.now() / 1000),
    model: body.model,
    system_fingerprint: null,
  })

  /** Resolves after `ms`, or false at once when the client has gone. */
  const pause = (res: http.ServerResponse, ms: number) =>
    new Promise<boolean>((resolve) => {
      if (res.destroyed) return resolve(false)
      const onClose = () => {
        clearTimeout(timer)
        resolve(false)
      }
      const timer = setTimeout(() => {
        res.off('close', onClose)
        resolve(!res.destroyed)
      }, ms)
      res.once('close', onClose)
    })

  async function stream(
    res: http.ServerResponse,
    body: ChatRequestBody,
    text: string,
    timing: RequestTiming,
    fault: Fault | undefined,
  ) {
    res.on('close', () => {
      if (timing.doneAt === undefined) timing.closedEarly = true
    })
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    })
    if (fault?.kind === 'stall') {
      res.flushHeaders()
      return
    }
    const head = base(body)
    const event = (delta: Record<string, unknown>, finishReason: string | null) =>
      `data: ${JSON.stringify({
        ...head,
        object: 'chat.completion.chunk',
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      })}\n\n`
    if (fault?.kind === 'malformed') {
      res.end('data: {"choices": [{"delta": {"content": "half\n\n')
      return
    }
    res.write(event({ role: 'assistant', content: '' }, null))
    const thoughts = splitIntoDeltas(state.reasoning)
    const deltas = [
      ...thoughts.map((t) => ({ reasoning_content: t })),
      ...splitIntoDeltas(text).map((t) => ({ content: t })),
    ]
    const stopAfter = fault?.kind === 'cut' || fault?.kind === 'end' ? fault.afterChunks : Number.POSITIVE_INFINITY
    for (const [i, delta] of deltas.entries()) {
      if (i >= stopAfter) break
      if (!(await pause(res, i === 0 ? state.firstTokenDelayMs : state.tokenDelayMs))) return
      res.write(event(delta, null))
      if (i === 0) timing.firstTokenAt = now()
    }
    if (fault?.kind === 'cut' || fault?.kind === 'end') {
      // Let the written chunks reach the client before the connection goes.
      await pause(res, 5)
      if (fault.kind === 'cut') res.socket?.destroy()
      else res.end()
      return
    }
    if (deltas.length === 0) timing.firstTokenAt = now()
    if (body.stream_options && (body.stream_options as { include_usage?: boolean }).include_usage) {
      res.write(event({}, state.finishReason))
      res.write(
        `data: ${JSON.stringify({ ...head, object: 'chat.completion.chunk', choices: [], usage: usage(body, text, state.promptTokens) })}\n\n`,
      )
    } else {
      res.write(event({}, state.finishReason))
    }
    timing.doneAt = now()
    res.end('data: [DONE]\n\n')
  }

  async function complete(
    res: http.ServerResponse,
    body: ChatRequestBody,
    text: string,
    timing: RequestTiming,
    fault: Fault | undefined,
  ) {
    res.on('close', () => {
      if (timing.doneAt === undefined) timing.closedEarly = true
    })
    if (fault?.kind === 'stall') {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.flushHeaders()
      return
    }
    if (fault?.kind === 'cut' || fault?.kind === 'end') {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.write('{"id":"chatcmpl-cut","object":"chat.completion","choices":[{"index":0,"message":{"role":"assis')
      await pause(res, 5)
      if (fault.kind === 'cut') res.socket?.destroy()
      else res.end()
      return
    }
    const deltas = splitIntoDeltas(text)
    const generation = state.firstTokenDelayMs + Math.max(0, deltas.length - 1) * state.tokenDelayMs
    if (!(await pause(res, generation))) return
    if (fault?.kind === 'malformed') {
      sendJson(res, 200, { ...base(body), object: 'chat.completion', choices: [] })
      return
    }
    timing.firstTokenAt = now()
    timing.doneAt = timing.firstTokenAt
    sendJson(res, 200, {
      ...base(body),
      object: 'chat.completion',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: text, refusal: null, annotations: [] },
          logprobs: null,
          finish_reason: state.finishReason,
        },
      ],
      usage: usage(body, text),
    })
  }

  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo

  return {
    /** The base URL a client is given (`LLM_BASE_URL`, `baseUrl` in MODELS_FILE). */
    baseUrl: `http://127.0.0.1:${port}/v1`,
    port,
    /** Every chat completion request body, in order (including those refused or answered with a fault). */
    requests,
    /** The headers of each of `requests`. */
    headers,
    /** One entry per chat completion request that was answered (passed the checks), in order. */
    timings,
    get reply() {
      return state.reply
    },
    set reply(value: Reply) {
      state.reply = value
    },
    get tokenDelayMs() {
      return state.tokenDelayMs
    },
    set tokenDelayMs(ms: number) {
      state.tokenDelayMs = ms
    },
    get firstTokenDelayMs() {
      return state.firstTokenDelayMs
    },
    set firstTokenDelayMs(ms: number) {
      state.firstTokenDelayMs = ms
    },
    /** The next request is answered with this status and an OpenAI-style error. */
    fail(status: number, message = `The server had an error while processing your request (double, ${status}).`) {
      faults.push({ kind: 'fail', status, message })
    },
    get reasoning() {
      return state.reasoning
    },
    set reasoning(text: string) {
      state.reasoning = text
    },
    get finishReason() {
      return state.finishReason
    },
    /** What streamed replies report as `usage.prompt_tokens` (asked with `stream_options.include_usage`); undefined: a rough count. */
    get promptTokens() {
      return state.promptTokens
    },
    set promptTokens(value: number | undefined) {
      state.promptTokens = value
    },
    set finishReason(value: 'stop' | 'length') {
      state.finishReason = value
    },
    /** While true, `GET /v1/models` (the app's health check) finds no server: the connection is dropped. */
    get modelListDown() {
      return state.modelListDown
    },
    set modelListDown(down: boolean) {
      state.modelListDown = down
    },
    /** The next request is answered with this status and exactly this JSON body and headers. */
    failWith(status: number, body: unknown, headers: Record<string, string> = {}) {
      faults.push({ kind: 'fail', status, message: '', body, headers })
    },
    /** The next request is refused as llama.cpp's server refuses a prompt longer than its context (-c). */
    failContextLikeLlamaCpp(promptTokens = 5000, contextTokens = 4096) {
      faults.push({
        kind: 'fail',
        status: 400,
        message: '',
        body: {
          error: {
            code: 400,
            message: `request (${promptTokens} tokens) exceeds the available context size (${contextTokens} tokens), try increasing it`,
            type: 'exceed_context_size_error',
            n_prompt_tokens: promptTokens,
            n_ctx: contextTokens,
          },
        },
      })
    },
    /** The next request gets headers and then silence. */
    stall() {
      faults.push({ kind: 'stall' })
    },
    /** The next request's stream is cut (socket destroyed) after `afterChunks` content deltas. */
    cut(afterChunks: number) {
      faults.push({ kind: 'cut', afterChunks })
    },
    /** The next request's stream ends cleanly after `afterChunks` deltas, without finish_reason or [DONE]. */
    endEarly(afterChunks: number) {
      faults.push({ kind: 'end', afterChunks })
    },
    /** The next request is answered 200 with a body that breaks the protocol. */
    malformed() {
      faults.push({ kind: 'malformed' })
    },
    /** Faults queued and not yet played. */
    get pendingFaults(): readonly Fault[] {
      return faults
    },
    reset() {
      faults.length = 0
      requests.length = 0
      headers.length = 0
      timings.length = 0
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}

export type OpenAiApiDouble = Awaited<ReturnType<typeof startOpenAiApi>>

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function'])

/** The checks OpenAI makes before generating anything, with its wording. */
function validate(body: unknown): { message: string; param: string | null } | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { message: 'The request body must be a JSON object.', param: null }
  }
  const b = body as Record<string, unknown>
  if (typeof b.model !== 'string' || b.model === '')
    return { message: 'you must provide a model parameter', param: null }
  if (!Array.isArray(b.messages)) return { message: "Missing required parameter: 'messages'.", param: 'messages' }
  if (b.messages.length === 0) {
    return { message: "Invalid 'messages': empty array. Expected an array with minimum length 1.", param: 'messages' }
  }
  for (const [i, m] of (b.messages as unknown[]).entries()) {
    const message = m as Record<string, unknown> | null
    if (typeof message !== 'object' || message === null || !ROLES.has(String(message.role))) {
      return { message: `Invalid value for 'messages[${i}].role'.`, param: `messages[${i}].role` }
    }
    const content = message.content
    if (typeof content !== 'string' && !Array.isArray(content) && !(message.role === 'assistant' && content == null)) {
      return { message: `Invalid type for 'messages[${i}].content'.`, param: `messages[${i}].content` }
    }
  }
  if (b.stream !== undefined && typeof b.stream !== 'boolean') {
    return { message: "Invalid type for 'stream': expected a boolean.", param: 'stream' }
  }
  return undefined
}

/** Rough usage figures (words, not tokens): enough for code that reads the field to find it. */
function usage(body: ChatRequestBody, text: string, promptTokens?: number) {
  const words = (s: string) => s.split(/\s+/).filter(Boolean).length
  const prompt_tokens =
    promptTokens ?? body.messages.reduce((n, m) => n + 4 + (typeof m.content === 'string' ? words(m.content) : 0), 3)
  const completion_tokens = words(text)
  return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens }
}
