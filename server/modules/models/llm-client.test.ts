import net from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { startOpenAiApi } from '#tests/doubles/openai-api.ts'
import {
  type ChatMessage,
  type ChatStreamEnd,
  clientFor,
  completeChat,
  DEFAULT_TIMEOUT_MS,
  type LlmEndpoint,
  LlmError,
  streamChat,
} from './llm-client.ts'

const messages: ChatMessage[] = [
  { role: 'system', content: 'You are Aria, a ship captain.' },
  { role: 'user', content: 'Where are we sailing?' },
]
const REPLY = 'We sail north, past the salt cliffs, toward the lighthouse.'

/** Reads a stream to its end, keeping what arrived even when it throws. */
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

async function failureOf(promise: Promise<unknown>) {
  try {
    await promise
  } catch (error) {
    return error as LlmError
  }
  throw new Error('expected the call to fail')
}

describe('LLM client against an OpenAI-compatible server', () => {
  let api: Awaited<ReturnType<typeof startOpenAiApi>>
  let model: LlmEndpoint
  beforeAll(async () => {
    api = await startOpenAiApi({ reply: REPLY, apiKey: 'sk-test-key' })
    model = { baseUrl: api.baseUrl, apiKey: 'sk-test-key', model: 'provider/llama-3.1-8b' }
  })
  afterEach(() => {
    expect(api.pendingFaults).toEqual([])
    api.reset()
    api.reply = REPLY
    api.tokenDelayMs = 0
    api.firstTokenDelayMs = 0
  })
  afterAll(() => api.close())

  it("asks for usage and returns the server's prompt count with the end of the stream", async () => {
    api.promptTokens = 1234
    try {
      expect((await drain(streamChat({ model, messages }))).end?.promptTokens).toBe(1234)
    } finally {
      api.promptTokens = undefined
    }
    expect(api.requests[0]?.stream_options).toEqual({ include_usage: true })
  })

  it('streams the reply as several deltas and reports how it ended', async () => {
    const { deltas, end, error } = await drain(streamChat({ model, messages }))
    expect(error).toBeUndefined()
    expect(deltas.length).toBeGreaterThan(5)
    expect(deltas.join('')).toBe(REPLY)
    expect(end).toEqual({ finishReason: 'stop', text: REPLY, promptTokens: expect.any(Number) })
    // The provider's model name and the messages went out as the protocol says, with the key.
    expect(api.requests).toHaveLength(1)
    expect(api.requests[0]).toMatchObject({ model: 'provider/llama-3.1-8b', stream: true, messages })
    expect(api.headers[0]?.authorization).toBe('Bearer sk-test-key')
  })

  it('passes generation limits and message names through', async () => {
    await drain(
      streamChat({
        model,
        messages: [{ role: 'user', content: 'Hi', name: 'Robin' }],
        maxTokens: 64,
        temperature: 0.7,
      }),
    )
    expect(api.requests[0]).toMatchObject({
      max_tokens: 64,
      temperature: 0.7,
      messages: [{ role: 'user', content: 'Hi', name: 'Robin' }],
    })
  })

  it('answers without streaming', async () => {
    api.reply = (sent) => `You said: ${sent.at(-1)?.content}`
    await expect(completeChat({ model, messages })).resolves.toBe('You said: Where are we sailing?')
    expect(api.requests[0]).toMatchObject({ model: 'provider/llama-3.1-8b', stream: false })
  })

  it('sends the key only when the model has one', async () => {
    const wrongKey = await failureOf(completeChat({ model: { ...model, apiKey: 'sk-wrong' }, messages }))
    expect(wrongKey).toMatchObject({ kind: 'provider', status: 401 })
    const noKey = await failureOf(completeChat({ model: { ...model, apiKey: undefined }, messages }))
    expect(noKey).toMatchObject({ kind: 'provider', status: 401 })
    expect(api.headers.map((h) => h.authorization)).toEqual(['Bearer sk-wrong', undefined])
    const open = await startOpenAiApi({ reply: 'no key needed' })
    try {
      await expect(
        completeChat({ model: { ...model, baseUrl: open.baseUrl, apiKey: undefined }, messages }),
      ).resolves.toBe('no key needed')
      expect(open.headers[0]).not.toHaveProperty('authorization')
    } finally {
      await open.close()
    }
  })

  it('keeps one client per endpoint and key', () => {
    const sameEndpoint: LlmEndpoint = { ...model, model: 'another-model' }
    expect(clientFor(model)).toBe(clientFor(sameEndpoint))
    expect(clientFor(model)).not.toBe(clientFor({ ...model, apiKey: 'sk-other' }))
    expect(clientFor(model)).not.toBe(clientFor({ ...model, baseUrl: 'http://127.0.0.1:1/v1' }))
    expect(clientFor(model).maxRetries).toBe(0)
    expect(clientFor(model).timeout).toBe(DEFAULT_TIMEOUT_MS)
  })

  it('turns a provider 500 into a provider error, without retrying', async () => {
    api.fail(500)
    const streamed = await drain(streamChat({ model, messages }))
    expect(streamed.error).toBeInstanceOf(LlmError)
    expect(streamed.error).toMatchObject({ kind: 'provider', status: 500, partial: '' })
    expect(streamed.deltas).toEqual([])
    api.fail(503)
    expect(await failureOf(completeChat({ model, messages }))).toMatchObject({ kind: 'provider', status: 503 })
    expect(api.requests).toHaveLength(2)
  })

  it('retries a non-streamed call only when asked to', async () => {
    api.fail(503)
    await expect(completeChat({ model, messages, retries: 1 })).resolves.toBe(REPLY)
    expect(api.requests).toHaveLength(2)
  })

  it('times out a stream that stalls after its headers', async () => {
    api.stall()
    const started = performance.now()
    const { error } = await drain(streamChat({ model, messages, timeoutMs: 300 }))
    expect(error).toMatchObject({ kind: 'timeout', partial: '' })
    expect(performance.now() - started).toBeGreaterThanOrEqual(290)
    // The stalled request was given up, not left open.
    await expect.poll(() => api.timings[0]?.closedEarly).toBe(true)
  })

  it('times out a stream that stops sending mid-reply, keeping what came', async () => {
    api.tokenDelayMs = 5_000
    const { deltas, error } = await drain(streamChat({ model, messages, timeoutMs: 300 }))
    expect(deltas).toEqual(['We'])
    expect(error).toMatchObject({ kind: 'timeout', partial: 'We' })
  })

  it('times out a provider that accepts the connection and never answers', async () => {
    const silent = net.createServer(() => {})
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const { port } = silent.address() as net.AddressInfo
    try {
      const endpoint = { ...model, baseUrl: `http://127.0.0.1:${port}/v1` }
      expect((await drain(streamChat({ model: endpoint, messages, timeoutMs: 300 }))).error).toMatchObject({
        kind: 'timeout',
      })
      expect(await failureOf(completeChat({ model: endpoint, messages, timeoutMs: 300 }))).toMatchObject({
        kind: 'timeout',
      })
    } finally {
      silent.close()
    }
  })

  it('times out a non-streamed call', async () => {
    api.stall()
    expect(await failureOf(completeChat({ model, messages, timeoutMs: 300 }))).toMatchObject({ kind: 'timeout' })
  })

  it('reports a stream cut mid-reply as cut, with the partial text', async () => {
    api.cut(3)
    const { deltas, error } = await drain(streamChat({ model, messages }))
    expect(error).toBeInstanceOf(LlmError)
    expect(error).toMatchObject({ kind: 'cut', partial: 'We sail north,' })
    expect(deltas.join('')).toBe('We sail north,')
  })

  it('does not take a stream that ends without a finish reason for a complete reply', async () => {
    api.endEarly(2)
    const { error } = await drain(streamChat({ model, messages }))
    expect(error).toMatchObject({ kind: 'cut', partial: 'We sail' })
  })

  it('reports a non-streamed answer cut off as cut', async () => {
    api.cut(0)
    expect(await failureOf(completeChat({ model, messages }))).toMatchObject({ kind: 'cut' })
  })

  it('stops when the signal fires, keeping the partial reply and closing the request', async () => {
    api.tokenDelayMs = 100
    const stop = new AbortController()
    const deltas: string[] = []
    let error: LlmError | undefined
    try {
      for await (const delta of streamChat({ model, messages, signal: stop.signal })) {
        deltas.push(delta)
        if (deltas.length === 2) stop.abort()
      }
    } catch (e) {
      error = e as LlmError
    }
    expect(error).toBeInstanceOf(LlmError)
    expect(error).toMatchObject({ kind: 'aborted', partial: 'We sail' })
    await expect.poll(() => api.timings[0]?.closedEarly).toBe(true)
  })

  it('stops a non-streamed call and refuses to start with a fired signal', async () => {
    api.firstTokenDelayMs = 5_000
    const stop = new AbortController()
    setTimeout(() => stop.abort(), 50)
    expect(await failureOf(completeChat({ model, messages, signal: stop.signal }))).toMatchObject({ kind: 'aborted' })
    const requestsBefore = api.requests.length
    expect(await failureOf(completeChat({ model, messages, signal: stop.signal }))).toMatchObject({ kind: 'aborted' })
    expect((await drain(streamChat({ model, messages, signal: stop.signal }))).error).toMatchObject({ kind: 'aborted' })
    expect(api.requests).toHaveLength(requestsBefore)
  })

  it('cancels the request when the reader stops early', async () => {
    api.tokenDelayMs = 100
    for await (const _ of streamChat({ model, messages })) break
    await expect.poll(() => api.timings[0]?.closedEarly).toBe(true)
  })

  it('rejects answers that break the protocol as invalid', async () => {
    api.malformed()
    expect((await drain(streamChat({ model, messages }))).error).toMatchObject({ kind: 'invalid' })
    api.malformed()
    expect(await failureOf(completeChat({ model, messages }))).toMatchObject({ kind: 'invalid' })
  })

  it('passes a request the provider refuses back as a provider error with its status', async () => {
    expect(await failureOf(completeChat({ model, messages: [] }))).toMatchObject({ kind: 'provider', status: 400 })
  })

  it('runs against a double that measures its own first-token time (for the overhead benchmark)', async () => {
    api.firstTokenDelayMs = 40
    let firstDeltaAt = 0
    for await (const _ of streamChat({ model, messages })) firstDeltaAt ||= performance.timeOrigin + performance.now()
    const [timing] = api.timings
    expect(timing?.firstTokenAt).toBeDefined()
    expect((timing?.firstTokenAt ?? 0) - (timing?.receivedAt ?? 0)).toBeGreaterThanOrEqual(39)
    expect(firstDeltaAt).toBeGreaterThanOrEqual(timing?.firstTokenAt ?? Number.POSITIVE_INFINITY)
    expect(timing?.closedEarly).toBe(false)
    const listed = await clientFor(model).models.list()
    expect(listed.data.map((m) => m.id)).toEqual(['provider/llama-3.1-8b'])
  })

  it('reports an unreachable provider as a provider error', async () => {
    const closed = await startOpenAiApi()
    await closed.close()
    const endpoint = { ...model, baseUrl: closed.baseUrl }
    expect((await drain(streamChat({ model: endpoint, messages }))).error).toMatchObject({ kind: 'provider' })
    expect(await failureOf(completeChat({ model: endpoint, messages }))).toMatchObject({ kind: 'provider' })
  })
})
