import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { startOpenAiApi } from '#tests/doubles/openai-api.ts'
import {
  type ChatMessage,
  type ChatStreamEnd,
  type LlmEndpoint,
  LlmError,
  reasoningOff,
  streamChat,
} from './llm-client.ts'

// Issue 18 items 4, 5 and 8 (ADR 031): reasoning kept apart from the reply, time limits that fit
// streaming, failures sorted into reasons a user and an operator can act on.

const messages: ChatMessage[] = [{ role: 'user', content: 'Where are we sailing?' }]
const REPLY = 'We sail north, past the salt cliffs.'

async function drain(stream: AsyncGenerator<string, ChatStreamEnd>) {
  const deltas: string[] = []
  try {
    let step = await stream.next()
    while (!step.done) {
      deltas.push(step.value)
      step = await stream.next()
    }
    return { deltas, end: step.value, error: undefined }
  } catch (error) {
    return { deltas, end: undefined, error: error as LlmError }
  }
}

describe('streaming model calls', () => {
  let api: Awaited<ReturnType<typeof startOpenAiApi>>
  let model: LlmEndpoint
  beforeAll(async () => {
    api = await startOpenAiApi({ reply: REPLY })
    model = { baseUrl: api.baseUrl, apiKey: undefined, model: 'qwen3' }
  })
  afterEach(() => {
    expect(api.pendingFaults).toEqual([])
    api.reset()
    api.reply = REPLY
    api.reasoning = ''
    api.finishReason = 'stop'
    api.tokenDelayMs = 0
    api.firstTokenDelayMs = 0
  })
  afterAll(() => api.close())

  it('streams reasoning_content to onReasoning, never into the reply', async () => {
    api.reasoning = 'The user asks the course. North it is.'
    const thoughts: string[] = []
    const { deltas, end } = await drain(streamChat({ model, messages, onReasoning: (t) => thoughts.push(t) }))
    expect(thoughts.join('')).toBe(api.reasoning)
    expect(deltas.join('')).toBe(REPLY)
    expect(end).toMatchObject({ finishReason: 'stop', text: REPLY })
  })

  it('splits <think> blocks out of the content of servers that do not', async () => {
    api.reply = '<think>Plan the answer.</think>We sail north.'
    const thoughts: string[] = []
    const { end } = await drain(streamChat({ model, messages, onReasoning: (t) => thoughts.push(t) }))
    expect(thoughts.join('')).toBe('Plan the answer.')
    expect(end?.text).toBe('We sail north.')
  })

  it('reports a reply cut by max_tokens as finish reason length', async () => {
    api.finishReason = 'length'
    const { end } = await drain(streamChat({ model, messages, maxTokens: 8 }))
    expect(end).toMatchObject({ finishReason: 'length', text: REPLY })
  })

  it('sends the fields that turn reasoning off', async () => {
    await drain(streamChat({ model, messages, extraBody: reasoningOff('template') }))
    await drain(streamChat({ model, messages, extraBody: reasoningOff('effort') }))
    expect(api.requests[0]).toMatchObject({ chat_template_kwargs: { enable_thinking: false } })
    expect(api.requests[1]).toMatchObject({ reasoning_effort: 'minimal' })
  })

  it('gives up on a first token that does not come within its limit, not at the overall deadline', async () => {
    api.firstTokenDelayMs = 5_000
    const started = performance.now()
    const { error } = await drain(streamChat({ model, messages, timeoutMs: 4_000, firstTokenTimeoutMs: 250 }))
    expect(error).toMatchObject({ kind: 'timeout', partial: '' })
    expect(error?.message).toMatch(/first token/)
    expect(performance.now() - started).toBeLessThan(2_000)
  })

  it('lets a slow, steady stream finish past the first-token limit, and stops one that goes idle', async () => {
    api.tokenDelayMs = 120
    const limits = { timeoutMs: 10_000, firstTokenTimeoutMs: 400, idleTimeoutMs: 400 }
    const steady = await drain(streamChat({ model, messages, ...limits }))
    expect(steady.end?.text).toBe(REPLY)

    api.tokenDelayMs = 5_000
    const started = performance.now()
    const idle = await drain(streamChat({ model, messages, ...limits }))
    expect(idle.deltas).toEqual(['We'])
    expect(idle.error).toMatchObject({ kind: 'timeout', partial: 'We' })
    expect(idle.error?.message).toMatch(/no token for 400 ms/)
    expect(performance.now() - started).toBeLessThan(2_000)
  })

  it('counts reasoning tokens as tokens for the idle limit', async () => {
    api.reasoning = 'one two three four five'
    api.tokenDelayMs = 120
    const { end } = await drain(
      streamChat({ model, messages, firstTokenTimeoutMs: 400, idleTimeoutMs: 400, onReasoning: () => {} }),
    )
    expect(end?.text).toBe(REPLY)
  })
})

describe('model failures sorted into reasons', () => {
  let api: Awaited<ReturnType<typeof startOpenAiApi>>
  let model: LlmEndpoint
  beforeAll(async () => {
    api = await startOpenAiApi({ reply: REPLY })
    model = { baseUrl: api.baseUrl, apiKey: undefined, model: 'm' }
  })
  afterEach(() => {
    expect(api.pendingFaults).toEqual([])
    api.reset()
  })
  afterAll(() => api.close())

  const failure = async () => (await drain(streamChat({ model, messages }))).error

  it("reads llama.cpp's and OpenAI's context errors as context too long", async () => {
    api.failContextLikeLlamaCpp(428, 256)
    expect(await failure()).toMatchObject({ kind: 'provider', status: 400, reason: 'context_too_long' })
    api.failWith(400, {
      error: {
        message: "This model's maximum context length is 8192 tokens.",
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    })
    expect(await failure()).toMatchObject({ reason: 'context_too_long' })
  })

  it('tells model not found, refused credentials, rate limits and overload apart', async () => {
    api.fail(404, 'The model `m` does not exist.')
    expect(await failure()).toMatchObject({ reason: 'model_not_found', status: 404 })
    api.fail(401, 'Incorrect API key provided.')
    expect(await failure()).toMatchObject({ reason: 'credentials_refused' })
    api.fail(403, 'Forbidden')
    expect(await failure()).toMatchObject({ reason: 'credentials_refused' })
    api.failWith(
      429,
      { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } },
      {
        'retry-after': '17',
      },
    )
    expect(await failure()).toMatchObject({ reason: 'rate_limited', retryAfterSeconds: 17 })
    api.failWith(503, { error: { code: 503, message: 'Loading model', type: 'unavailable_error' } })
    expect(await failure()).toMatchObject({ reason: 'overloaded' })
    api.fail(500)
    expect(await failure()).toMatchObject({ reason: 'other' })
  })

  it('recognises a prompt refused by the chat template', async () => {
    api.failWith(400, {
      error: {
        code: 400,
        message:
          'After the optional system message, conversation roles must alternate user/assistant/user/assistant...',
        type: 'invalid_request_error',
      },
    })
    expect(await failure()).toMatchObject({ reason: 'template_refused' })
    api.failWith(500, {
      error: { code: 500, message: 'System message must be at the beginning.', type: 'server_error' },
    })
    expect(await failure()).toMatchObject({ reason: 'template_refused' })
  })

  it('reads a closed port as unreachable', async () => {
    const closed = await startOpenAiApi()
    await closed.close()
    const error = (await drain(streamChat({ model: { ...model, baseUrl: closed.baseUrl }, messages }))).error
    expect(error).toMatchObject({ kind: 'provider', reason: 'unreachable' })
    expect(error).toBeInstanceOf(LlmError)
  })
})
