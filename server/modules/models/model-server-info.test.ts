import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { contextWindow } from '#server/modules/chat/prompt.ts'
import { type OllamaModel, type OpenAiApiDouble, startOpenAiApi } from '#tests/doubles/openai-api.ts'
import {
  forgetModelInfo,
  knownContextTokens,
  modelContext,
  REFRESH_MS,
  recordPromptUsage,
  SAFETY_MARGIN,
} from './model-server-info.ts'
import { DEFAULT_CONTEXT_TOKENS, type ModelConfig } from './models.ts'
import { countTokens } from './tokens.ts'

const ollamaModels: Record<string, OllamaModel> = {
  'llama3.2:3b': { architecture: 'llama', contextLength: 131_072, numCtx: 8192 },
  'qwen2.5:7b': { architecture: 'qwen2', contextLength: 32_768 },
  'gemma2:9b': { architecture: 'gemma2', contextLength: 8192, loadedContext: 16_384 },
}
let ollama: OpenAiApiDouble
let oldOllama: OpenAiApiDouble

beforeAll(async () => {
  ollama = await startOpenAiApi({ ollama: { version: '0.12.3', models: ollamaModels } })
  oldOllama = await startOpenAiApi({ ollama: { version: '0.5.7', models: ollamaModels } })
})
afterEach(() => {
  forgetModelInfo()
  vi.useRealTimers()
})
afterAll(async () => {
  await ollama.close()
  await oldOllama.close()
})

function modelOn(baseUrl: string, model: string, extra: Partial<ModelConfig> = {}): ModelConfig {
  return {
    id: model,
    name: model,
    description: '',
    baseUrl,
    apiKey: undefined,
    model,
    premium: false,
    diamondsPerMessage: 0,
    contextTokens: DEFAULT_CONTEXT_TOKENS,
    contextConfigured: false,
    maxReplyTokens: undefined,
    sampling: {},
    ...extra,
  }
}

const ENGLISH = 'The rain had not stopped for three days, and the lighthouse keeper was running out of oil.'
const ARABIC = 'لم يتوقف المطر منذ ثلاثة أيام، وكان زيت حارس المنارة على وشك النفاد.'

describe('what the product learns from Ollama (/api/show, /api/ps)', () => {
  it("takes the model's num_ctx, not its trained length (Ollama's OpenAI endpoint truncates to num_ctx)", async () => {
    const fit = await modelContext(modelOn(ollama.baseUrl, 'llama3.2:3b'), ENGLISH)
    expect(fit.serverContextTokens).toBe(8192)
    // Less the safety margin, in our counts: a Llama-family vocabulary takes more tokens than o200k.
    expect(fit.contextTokens).toBeLessThan(8192 * (1 - SAFETY_MARGIN))
    expect(fit.contextTokens).toBeGreaterThan(8192 / 2)
  })

  it("without num_ctx: the loaded model's context, else Ollama's default for its version", async () => {
    expect((await modelContext(modelOn(ollama.baseUrl, 'gemma2:9b'))).serverContextTokens).toBe(8192)
    expect((await modelContext(modelOn(ollama.baseUrl, 'qwen2.5:7b'))).serverContextTokens).toBe(4096)
    expect((await modelContext(modelOn(oldOllama.baseUrl, 'qwen2.5:7b'))).serverContextTokens).toBe(2048)
  })

  it("MODELS_FILE's contextTokens wins over the server's figure", async () => {
    const model = modelOn(ollama.baseUrl, 'llama3.2:3b', { contextTokens: 2048, contextConfigured: true })
    expect((await modelContext(model)).serverContextTokens).toBe(2048)
    expect(knownContextTokens(model)).toBe(2048)
  })

  it('keeps what it learned for 10 minutes, then asks again', async () => {
    vi.useFakeTimers({ toFake: ['Date'] })
    const model = modelOn(ollama.baseUrl, 'llama3.2:3b')
    expect((await modelContext(model)).serverContextTokens).toBe(8192)
    expect(knownContextTokens(model)).toBe(8192)
    ollamaModels['llama3.2:3b'] = { architecture: 'llama', contextLength: 131_072, numCtx: 16_384 }
    try {
      expect((await modelContext(model)).serverContextTokens).toBe(8192)
      vi.setSystemTime(Date.now() + REFRESH_MS + 1)
      // The send path does not wait for the refresh; the next one sees its result.
      expect((await modelContext(model)).serverContextTokens).toBe(8192)
      await vi.waitFor(() => expect(knownContextTokens(model)).toBe(16_384))
    } finally {
      ollamaModels['llama3.2:3b'] = { architecture: 'llama', contextLength: 131_072, numCtx: 8192 }
    }
  })

  it('counts a script that Llama-family vocabularies split finer with a smaller budget', async () => {
    const model = modelOn(ollama.baseUrl, 'llama3.2:3b')
    const english = await modelContext(model, ENGLISH)
    const arabic = await modelContext(model, ARABIC)
    expect(arabic.contextTokens).toBeLessThan(english.contextTokens / 2)
    expect(arabic.count(ARABIC)).toBeGreaterThan(2 * countTokens(ARABIC))
  })

  it("corrects its counts from the server's usage.prompt_tokens, smoothed", async () => {
    const model = modelOn(ollama.baseUrl, 'llama3.2:3b')
    const before = await modelContext(model, ENGLISH)
    const estimated = before.count(ENGLISH.repeat(20))
    for (let i = 0; i < 10; i++) recordPromptUsage(model, ENGLISH, estimated, estimated * 2)
    const after = await modelContext(model, ENGLISH)
    expect(after.count(ENGLISH.repeat(20))).toBeGreaterThan(estimated * 1.8)
    expect(after.contextTokens).toBeLessThan(before.contextTokens * 0.6)
    // A single outlier moves it only part of the way.
    forgetModelInfo()
    const once = await modelContext(model, ENGLISH)
    recordPromptUsage(model, ENGLISH, estimated, estimated * 2)
    expect((await modelContext(model, ENGLISH)).count(ENGLISH.repeat(20))).toBeLessThan(
      once.count(ENGLISH.repeat(20)) * 1.5,
    )
  })

  it('falls back to the configured figure when the server cannot be asked', async () => {
    const model = modelOn('http://127.0.0.1:9/v1', 'gone', { contextTokens: 8192 })
    const fit = await modelContext(model, ENGLISH)
    expect(fit.serverContextTokens).toBe(8192)
    expect(fit.contextTokens).toBeLessThan(8192 * (1 - SAFETY_MARGIN))
  })
})

describe('what the product learns from OpenAI proper', () => {
  it('o200k is exact for OpenAI: only the margin is kept, and nothing is asked', async () => {
    // OpenAI tells no context and has no /tokenize: the host alone decides (no request leaves the test).
    const model = modelOn('https://api.openai.com/v1', 'gpt-4.1-mini', {
      contextTokens: 128_000,
      contextConfigured: true,
    })
    const fit = await modelContext(model, ARABIC)
    expect(fit.serverContextTokens).toBe(128_000)
    expect(fit.contextTokens).toBe(Math.floor(128_000 * (1 - SAFETY_MARGIN)))
    expect(fit.count(ARABIC)).toBe(countTokens(ARABIC))
  })

  it("the operator's maxReplyTokens caps the reply's share of the window", async () => {
    const model = modelOn('https://api.openai.com/v1', 'gpt-4.1-mini', {
      contextTokens: 128_000,
      contextConfigured: true,
      maxReplyTokens: 300,
    })
    const fit = await modelContext(model, ENGLISH)
    expect(fit.maxReplyTokens).toBe(300)
    expect(contextWindow(32, fit.contextTokens, fit.maxReplyTokens).replyReserveTokens).toBe(300)
    expect(contextWindow(32, fit.contextTokens).replyReserveTokens).toBe(1024)
  })
})
