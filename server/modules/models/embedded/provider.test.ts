import { existsSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { completeChat, LlmError, streamChat } from '#server/modules/models/llm-client.ts'
import { modelFetch } from '#server/modules/models/model-fetch.ts'
import { LLAMA_DIR } from '#tests/helpers/llama-server.ts'
import { createEmbeddedProvider, EMBEDDED_HOST, type EmbeddedProvider } from './provider.ts'

// The embedded provider on its own, through the same client the chat uses (llm-client), with the
// tiny real GGUF of ../shared/llama. Skipped (never passed) where it or node-llama-cpp is absent.

const GGUF = path.join(LLAMA_DIR, 'tiny-llama.gguf')
const TEMPLATE = path.join(LLAMA_DIR, 'templates', 'Qwen-Qwen3-0.6B.jinja')
const installed = await import('node-llama-cpp').then(
  () => true,
  () => false,
)
const available = existsSync(GGUF) && installed
const endpoint = { baseUrl: `embedded://${EMBEDDED_HOST}/v1`, apiKey: undefined, model: 'tiny' }
const quiet = () => {}

function provider(overrides: { source?: string; parallel?: number; contextTokens?: number; template?: string } = {}) {
  return createEmbeddedProvider({
    config: {
      source: overrides.source ?? GGUF,
      contextTokens: overrides.contextTokens ?? 512,
      parallel: overrides.parallel ?? 1,
      chatTemplateFile: overrides.template ?? TEMPLATE,
      gpu: 'off',
      threads: 1,
    },
    dataDir: '/nonexistent',
    downloads: false,
    modelName: 'tiny',
    log: quiet,
    warn: quiet,
  })
}

describe('the embedded provider without its model', () => {
  it('answers chat with 503 model_unavailable and says why; never downloads in tests', async () => {
    const p = provider({ source: 'hf:someone/some-model-GGUF:Q4_K_M' })
    try {
      await p.start()
      expect(p.status()).toMatchObject({ state: 'failed', failure: { code: 'download_disabled' } })
      const res = await modelFetch(`${endpoint.baseUrl}/chat/completions`, {
        method: 'POST',
        body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }),
      })
      expect(res.status).toBe(503)
      expect(await res.json()).toMatchObject({ error: { type: 'model_unavailable' } })
    } finally {
      await p.close()
    }
  })

  it('a missing .gguf file fails with a hint naming the file', async () => {
    const p = provider({ source: '/nowhere/model.gguf' })
    try {
      // Never resolved while the file is missing: it is looked for again later (model-file.ts).
      void p.start()
      await vi.waitFor(() => expect(p.status()).toMatchObject({ state: 'failed', failure: { code: 'not_found' } }))
      expect(p.status().failure?.hint).toContain('/nowhere/model.gguf')
    } finally {
      await p.close()
    }
  })
})

describe.skipIf(!available)('the embedded provider on the tiny GGUF', () => {
  let p: EmbeddedProvider
  beforeAll(async () => {
    p = provider({ parallel: 1, contextTokens: 512 })
    await p.start()
  }, 60_000)
  afterAll(async () => {
    await p?.close()
  })

  it('answers like llama-server: /props n_ctx, /tokenize, /v1/models', async () => {
    const props = await (await modelFetch(`embedded://${EMBEDDED_HOST}/props`)).json()
    expect(props.default_generation_settings.n_ctx).toBe(512)
    const tokens = await (
      await modelFetch(`embedded://${EMBEDDED_HOST}/tokenize`, {
        method: 'POST',
        body: JSON.stringify({ content: 'Hello world' }),
      })
    ).json()
    expect(tokens.tokens.length).toBeGreaterThan(1)
    const models = await (await modelFetch(`${endpoint.baseUrl}/models`)).json()
    expect(models.data[0]).toMatchObject({ id: 'tiny', meta: { n_ctx: 512 } })
  })

  it('streams with a finish reason and the usage; a non-streamed call gives the whole reply', async () => {
    const stream = streamChat({ model: endpoint, messages: [{ role: 'user', content: 'Hi' }], maxTokens: 8 })
    let text = ''
    let step = await stream.next()
    for (; !step.done; step = await stream.next()) text += step.value
    expect(step.value).toMatchObject({ finishReason: 'length' })
    expect(step.value.promptTokens).toBeGreaterThan(5)
    expect(text.length).toBeGreaterThan(0)
    const whole = await completeChat({ model: endpoint, messages: [{ role: 'user', content: 'Hi' }], maxTokens: 8 })
    expect(whole.length).toBeGreaterThan(0)
  })

  it('refuses a prompt longer than the context as llama.cpp does (400 exceed_context_size_error)', async () => {
    const long = 'word '.repeat(800)
    const error = await completeChat({ model: endpoint, messages: [{ role: 'user', content: long }] }).catch(
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(LlmError)
    expect(error).toMatchObject({ kind: 'provider', status: 400, reason: 'context_too_long' })
  })

  it('queues fairly: with one sequence, a second user goes before the first user’s next chats', async () => {
    const order: string[] = []
    const ask = (user: string, name: string) =>
      completeChat({ model: endpoint, messages: [{ role: 'user', content: name }], maxTokens: 16, user }).then(() => {
        order.push(name)
      })
    const all = [ask('a', 'a1'), ask('a', 'a2'), ask('a', 'a3'), ask('b', 'b1'), ask('c', 'c1')]
    await Promise.all(all)
    expect(order).toEqual(['a1', 'b1', 'c1', 'a2', 'a3'])
  })

  it('stops generating when the caller aborts', async () => {
    const stop = new AbortController()
    const stream = streamChat({
      model: endpoint,
      messages: [{ role: 'user', content: 'Go' }],
      maxTokens: 400,
      signal: stop.signal,
    })
    await stream.next()
    stop.abort()
    const error = await (async () => {
      for (let s = await stream.next(); !s.done; s = await stream.next());
    })().catch((e: unknown) => e)
    expect(error).toMatchObject({ kind: 'aborted' })
    // The sequence is free again at once.
    const next = await completeChat({ model: endpoint, messages: [{ role: 'user', content: 'Hi' }], maxTokens: 4 })
    expect(next.length).toBeGreaterThan(0)
  })
})

describe.skipIf(!available)('thinking on and off on the embedded model (Qwen 3.5 template)', () => {
  let p: EmbeddedProvider
  beforeAll(async () => {
    p = provider({ template: path.join(LLAMA_DIR, 'templates', 'Qwen3.5-4B.jinja') })
    await p.start()
  }, 60_000)
  afterAll(async () => {
    await p?.close()
  })

  it('chat_template_kwargs enable_thinking false reaches the template: the empty think block is rendered', async () => {
    const promptTokens = async (extra: Record<string, unknown>) => {
      const res = await modelFetch(`${endpoint.baseUrl}/chat/completions`, {
        method: 'POST',
        body: JSON.stringify({ messages: [{ role: 'user', content: 'Hi' }], max_tokens: 2, ...extra }),
      })
      return ((await res.json()) as { usage: { prompt_tokens: number } }).usage.prompt_tokens
    }
    const on = await promptTokens({})
    const off = await promptTokens({ chat_template_kwargs: { enable_thinking: false } })
    // `<think>\n\n</think>\n\n` closes the block before the reply when thinking is off.
    expect(off).toBeGreaterThan(on)
  })
})
