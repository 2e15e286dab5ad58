import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConfigError } from '#server/config.ts'
import { samplingParams } from './generation-settings.ts'
import { DEFAULT_CONTEXT_TOKENS, embeddedDisplayName, loadModelRegistry, ModelsFileError } from './models.ts'

const llm = {
  baseUrl: 'http://127.0.0.1:11434/v1',
  apiKey: 'sk-platform-secret',
  model: 'llama3.2',
  modelsFile: undefined,
}

const dir = mkdtempSync(path.join(tmpdir(), 'rp-models-'))
let n = 0
function modelsFile(content: unknown) {
  const file = path.join(dir, `models-${++n}.json`)
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content))
  return file
}

const free = { id: 'llama3.2', name: 'Llama 3.2', premium: false, contextTokens: 8192 }
const premium = {
  id: 'gpt-4.1-mini',
  name: 'GPT-4.1 mini',
  description: 'Hosted, premium.',
  baseUrl: 'https://api.openai.com/v1',
  apiKey: 'sk-openai-secret',
  premium: true,
  diamondsPerMessage: 2,
  contextTokens: 128000,
}

/** The problems of a file that does not load, as one text. */
function problemsOf(content: unknown): string {
  const file = modelsFile(content)
  try {
    loadModelRegistry({ ...llm, modelsFile: file })
  } catch (error) {
    expect(error).toBeInstanceOf(ModelsFileError)
    expect(error).toBeInstanceOf(ConfigError)
    const message = (error as Error).message
    expect(message).toContain(file)
    return message
  }
  throw new Error('expected the models file to be refused')
}

describe('model registry', () => {
  it('offers one free model from LLM_* without MODELS_FILE', () => {
    const registry = loadModelRegistry(llm)
    expect(registry.models).toEqual([
      {
        id: 'llama3.2',
        name: 'llama3.2',
        description: '',
        baseUrl: llm.baseUrl,
        apiKey: llm.apiKey,
        model: 'llama3.2',
        premium: false,
        diamondsPerMessage: 0,
        contextTokens: DEFAULT_CONTEXT_TOKENS,
        contextConfigured: false,
        maxReplyTokens: undefined,
        sampling: {},
      },
    ])
    expect(registry.defaultModel.id).toBe('llama3.2')
    expect(registry.find('llama3.2')?.baseUrl).toBe(llm.baseUrl)
  })

  it('offers the embedded model as the one free model when configured (ADR 036)', () => {
    const registry = loadModelRegistry({
      ...llm,
      baseUrl: 'embedded://local/v1',
      apiKey: undefined,
      embedded: {
        source: 'hf:someone/Qwen2.5-1.5B-Instruct-GGUF:Q4_K_M',
        contextTokens: 8192,
        parallel: 2,
        chatTemplateFile: undefined,
        gpu: 'auto',
        threads: 1,
      },
      summaryModel: 'embedded',
    })
    expect(registry.models).toHaveLength(1)
    expect(registry.defaultModel).toMatchObject({
      id: 'embedded',
      baseUrl: 'embedded://local/v1',
      premium: false,
      contextTokens: 8192,
      contextConfigured: false,
    })
    expect(registry.defaultModel.name).toBe('Qwen2.5-1.5B-Instruct Q4_K_M')
    expect(embeddedDisplayName('/models/tiny-llama.gguf')).toBe('tiny-llama')
    expect(embeddedDisplayName('hf:user/Some-Model-GGUF')).toBe('Some-Model')
    expect(embeddedDisplayName('hf:unsloth/Qwen3-1.7B-GGUF/Qwen3-1.7B-Q4_K_M.gguf#main')).toBe('Qwen3-1.7B Q4_K_M')
    expect(registry.summaryModel?.id).toBe('embedded')
  })

  it('reads MODELS_FILE and fills in the defaults', () => {
    const registry = loadModelRegistry({
      ...llm,
      modelsFile: modelsFile([free, premium, { ...free, id: 'qwen', model: 'qwen2.5:7b', baseUrl: `${llm.baseUrl}/` }]),
    })
    expect(registry.models.map((m) => m.id)).toEqual(['llama3.2', 'gpt-4.1-mini', 'qwen'])
    expect(registry.defaultModel.id).toBe('llama3.2')
    expect(registry.find('llama3.2')).toMatchObject({
      baseUrl: llm.baseUrl,
      apiKey: llm.apiKey,
      model: 'llama3.2',
      description: '',
      diamondsPerMessage: 0,
      contextTokens: 8192,
    })
    expect(registry.find('gpt-4.1-mini')).toMatchObject({
      baseUrl: 'https://api.openai.com/v1',
      apiKey: 'sk-openai-secret',
      model: 'gpt-4.1-mini',
      premium: true,
      diamondsPerMessage: 2,
    })
    // Same endpoint (a trailing slash aside): the platform key applies.
    expect(registry.find('qwen')).toMatchObject({ model: 'qwen2.5:7b', apiKey: llm.apiKey })
    expect(registry.find('unknown')).toBeUndefined()
  })

  it('never hands LLM_API_KEY to another endpoint', () => {
    const { apiKey: _key, ...elsewhere } = premium
    const registry = loadModelRegistry({ ...llm, modelsFile: modelsFile([elsewhere, { ...free, apiKey: '' }]) })
    expect(registry.find('gpt-4.1-mini')?.apiKey).toBeUndefined()
    // An empty apiKey means "no key", even on LLM_BASE_URL.
    expect(registry.find('llama3.2')?.apiKey).toBeUndefined()
  })

  it('lists the public view without keys, endpoints or provider names', () => {
    const registry = loadModelRegistry({
      ...llm,
      modelsFile: modelsFile([free, { ...premium, model: 'secret-provider-name' }]),
    })
    const listed = registry.listPublic()
    const defaultBounds = {
      temperature: { min: 0, max: 1.5, default: null },
      replyTokens: { min: 64, max: 1024, default: 1024 },
    }
    expect(listed).toEqual([
      {
        id: 'llama3.2',
        name: 'Llama 3.2',
        description: '',
        premium: false,
        diamondsPerMessage: 0,
        contextTokens: 8192,
        userSettings: defaultBounds,
      },
      {
        id: 'gpt-4.1-mini',
        name: 'GPT-4.1 mini',
        description: 'Hosted, premium.',
        premium: true,
        diamondsPerMessage: 2,
        contextTokens: 128000,
        userSettings: defaultBounds,
      },
    ])
    const json = JSON.stringify(listed)
    for (const secret of [
      'sk-platform-secret',
      'sk-openai-secret',
      'api.openai.com',
      '11434',
      'secret-provider-name',
    ]) {
      expect(json).not.toContain(secret)
    }
  })

  it('accepts the example file', () => {
    const registry = loadModelRegistry({
      ...llm,
      modelsFile: path.resolve(import.meta.dirname, '../../../config/models.example.json'),
    })
    expect(registry.models.length).toBeGreaterThanOrEqual(2)
    expect(registry.models.some((m) => m.premium)).toBe(true)
    expect(registry.models.some((m) => !m.premium)).toBe(true)
  })

  it('refuses a missing or unreadable file, naming it', () => {
    expect(() => loadModelRegistry({ ...llm, modelsFile: path.join(dir, 'nope.json') })).toThrow(
      /MODELS_FILE \(.*nope\.json\): file not found/,
    )
    expect(problemsOf('[{"id": "x",')).toMatch(/not valid JSON/)
    expect(problemsOf({ models: [free] })).toMatch(/expected array/)
    expect(problemsOf([])).toMatch(/at least one model/)
  })

  it('in production, refuses a model reached by plain http across the internet', () => {
    const file = modelsFile([{ ...premium, baseUrl: 'http://api.openai.com/v1' }, free])
    expect(() => loadModelRegistry({ ...llm, modelsFile: file, requireTls: true })).toThrow(
      /gpt-4\.1-mini: baseUrl must be https:\/\/ in production/,
    )
    // The same file outside production, and a local model server in production, are accepted.
    expect(loadModelRegistry({ ...llm, modelsFile: file }).models).toHaveLength(2)
    const local = modelsFile([{ ...free, baseUrl: 'http://127.0.0.1:8080/v1' }, premium])
    expect(loadModelRegistry({ ...llm, modelsFile: local, requireTls: true }).models).toHaveLength(2)
  })

  it('refuses prices that do not match free or premium', () => {
    expect(problemsOf([{ ...premium, diamondsPerMessage: 0 }])).toMatch(
      /\[0\]\.diamondsPerMessage: a premium model must cost at least 1 diamond/,
    )
    const { diamondsPerMessage: _d, ...premiumWithoutPrice } = premium
    expect(problemsOf([premiumWithoutPrice])).toMatch(/\[0\]\.diamondsPerMessage: a premium model/)
    expect(problemsOf([free, { ...free, id: 'b', diamondsPerMessage: 3 }])).toMatch(
      /\[1\]\.diamondsPerMessage: a free model costs 0 diamonds/,
    )
    expect(problemsOf([{ ...premium, diamondsPerMessage: 1.5 }])).toMatch(/\[0\]\.diamondsPerMessage: .*int/i)
    expect(problemsOf([{ ...premium, diamondsPerMessage: -1 }])).toMatch(/\[0\]\.diamondsPerMessage/)
  })

  it('refuses malformed entries, naming each problem', () => {
    const message = problemsOf([
      { ...free, premium: 'no' },
      { ...free, id: 'b', contextTokens: '8k' },
      { ...free, id: 'c', baseUrl: 'not a url' },
      { ...free, id: 'd', diamondPerMessage: 0 },
      { name: 'No id', premium: false, contextTokens: 4096 },
    ])
    expect(message).toMatch(/\[0\]\.premium/)
    expect(message).toMatch(/\[1\]\.contextTokens/)
    expect(message).toMatch(/\[2\]\.baseUrl/)
    expect(message).toMatch(/\[3\]: .*diamondPerMessage/)
    expect(message).toMatch(/\[4\]\.id/)
    expect(problemsOf([free, premium, { ...free, name: 'Again' }])).toMatch(/\[2\]\.id: duplicate id "llama3.2"/)
  })

  it('takes generation settings per model and sends only those set (issue 18 item 9)', () => {
    const registry = loadModelRegistry({
      ...llm,
      modelsFile: modelsFile([
        {
          ...free,
          temperature: 0.9,
          top_p: 0.95,
          top_k: 40,
          min_p: 0.05,
          repetition_penalty: 1.1,
          presence_penalty: 0.2,
          frequency_penalty: -0.5,
          seed: 42,
          maxReplyTokens: 300,
          stop: ['\n{{user}}:', '\n{{char}}:', '###'],
        },
        { ...premium, temperature: 0.7 },
      ]),
    })
    const local = registry.find('llama3.2')
    if (!local) throw new Error('missing model')
    expect(local.maxReplyTokens).toBe(300)
    expect(samplingParams(local, { user: 'Mira', char: 'Aldric' })).toEqual({
      temperature: 0.9,
      top_p: 0.95,
      top_k: 40,
      min_p: 0.05,
      repetition_penalty: 1.1,
      presence_penalty: 0.2,
      frequency_penalty: -0.5,
      seed: 42,
      stop: ['\nMira:', '\nAldric:', '###'],
    })
    // OpenAI refuses fields it does not know: only what the operator set, and the default stops.
    const openai = registry.find('gpt-4.1-mini')
    if (!openai) throw new Error('missing model')
    expect(samplingParams(openai, { user: 'Mira' })).toEqual({ temperature: 0.7, stop: ['\nMira:', '\nUser:'] })
    // `stop: []` sends none (reasoning models refuse the field).
    const none = loadModelRegistry({ ...llm, modelsFile: modelsFile([{ ...free, stop: [] }]) }).defaultModel
    expect(samplingParams(none, { user: 'Mira' })).toEqual({})
  })

  it('refuses generation settings out of range, and unknown keys, naming them', () => {
    const message = problemsOf([
      { ...free, temperature: 3 },
      { ...free, id: 'b', top_p: 0 },
      { ...free, id: 'c', top_k: 1.5 },
      { ...free, id: 'd', min_p: 2 },
      { ...free, id: 'e', repetition_penalty: 0 },
      { ...free, id: 'f', presence_penalty: -3 },
      { ...free, id: 'g', stop: 'User:' },
      { ...free, id: 'h', seed: -1 },
      { ...free, id: 'i', maxReplyTokens: 8000 },
      { ...free, id: 'j', topP: 0.9 },
      { ...free, id: 'k', displayName: 'Both' },
    ])
    expect(message).toMatch(/\[0\]\.temperature/)
    expect(message).toMatch(/\[1\]\.top_p/)
    expect(message).toMatch(/\[2\]\.top_k/)
    expect(message).toMatch(/\[3\]\.min_p/)
    expect(message).toMatch(/\[4\]\.repetition_penalty/)
    expect(message).toMatch(/\[5\]\.presence_penalty/)
    expect(message).toMatch(/\[6\]\.stop/)
    expect(message).toMatch(/\[7\]\.seed/)
    expect(message).toMatch(/\[8\]\.maxReplyTokens: must be at most half of contextTokens/)
    expect(message).toMatch(/\[9\]: unknown key\(s\) "topP" \(the keys are listed in docs\/configuration\.md/)
    expect(message).toMatch(/\[10\]\.name: give displayName or name/)
  })

  it('gives users per-chat bounds: defaults without MODELS_FILE, the operator’s own, or none (ADR 033)', () => {
    // The single env-configured model: temperature 0 to 1.5 (the server's default), replies 64 to 1024 tokens.
    expect(loadModelRegistry(llm).listPublic()[0]?.userSettings).toEqual({
      temperature: { min: 0, max: 1.5, default: null },
      replyTokens: { min: 64, max: 1024, default: 1024 },
    })
    const registry = loadModelRegistry({
      ...llm,
      modelsFile: modelsFile([
        { ...free, temperature: 1.8, maxReplyTokens: 48 },
        {
          ...free,
          id: 'set',
          temperature: 0.7,
          userTemperature: { min: 0.5, max: 1 },
          userReplyTokens: { min: 32, max: 512 },
        },
        { ...free, id: 'fixed', userTemperature: false, userReplyTokens: false },
      ]),
    })
    expect(registry.listPublic().map((m) => m.userSettings)).toEqual([
      // The range reaches the model's own temperature; the reply length's floor never passes its cap.
      { temperature: { min: 0, max: 1.8, default: 1.8 }, replyTokens: { min: 48, max: 48, default: 48 } },
      { temperature: { min: 0.5, max: 1, default: 0.7 }, replyTokens: { min: 32, max: 512, default: 1024 } },
      { temperature: null, replyTokens: null },
    ])
  })

  it('refuses user bounds that are inverted, out of range or outside the model’s own settings', () => {
    const message = problemsOf([
      { ...free, userTemperature: { min: 1, max: 0.5 } },
      { ...free, id: 'b', userTemperature: { min: 0, max: 3 } },
      { ...free, id: 'c', temperature: 1.2, userTemperature: { min: 0, max: 1 } },
      { ...free, id: 'd', userReplyTokens: { min: 8, max: 100 } },
      { ...free, id: 'e', maxReplyTokens: 300, userReplyTokens: { min: 50, max: 400 } },
      { ...free, id: 'f', userReplyTokens: { min: 50, max: 2000 } },
      { ...free, id: 'g', userTemperature: { min: 0, max: 1, step: 0.1 } },
      { ...free, id: 'h', userTemperature: true },
      { ...free, id: 'i', userReplyTokens: { min: 50.5, max: 100 } },
    ])
    expect(message).toMatch(/\[0\]\.userTemperature: min must be at most max/)
    expect(message).toMatch(/\[1\]\.userTemperature/)
    expect(message).toMatch(/\[2\]\.userTemperature: must include the model's temperature \(1\.2\)/)
    expect(message).toMatch(/\[3\]\.userReplyTokens/)
    expect(message).toMatch(/\[4\]\.userReplyTokens: max must be at most maxReplyTokens \(300/)
    expect(message).toMatch(/\[5\]\.userReplyTokens: max must be at most maxReplyTokens \(1024/)
    expect(message).toMatch(/\[6\]\.userTemperature/)
    expect(message).toMatch(/\[7\]\.userTemperature/)
    expect(message).toMatch(/\[8\]\.userReplyTokens/)
  })

  it("takes a model's own time limits, within LLM_TIMEOUT_MS, and refuses bad ones naming them", () => {
    const registry = loadModelRegistry({
      ...llm,
      timeoutMs: 300_000,
      modelsFile: modelsFile([
        { ...free, firstTokenTimeoutMs: 240_000, idleTimeoutMs: 90_000, timeoutMs: 300_000 },
        { ...free, id: 'plain' },
      ]),
    })
    expect(registry.defaultModel.timeLimits).toEqual({
      timeoutMs: 300_000,
      firstTokenTimeoutMs: 240_000,
      idleTimeoutMs: 90_000,
    })
    expect(registry.find('plain')?.timeLimits).toEqual({})
    const message = problemsOf([
      { ...free, firstTokenTimeoutMs: 50 },
      { ...free, id: 'b', idleTimeoutMs: 1.5 },
      { ...free, id: 'c', timeoutMs: '60000' },
      { ...free, id: 'd', timeoutMs: 10_000, idleTimeoutMs: 20_000 },
      { ...free, id: 'e', firstTokenTimeoutMs: 7_200_000 },
    ])
    expect(message).toMatch(/\[0\]\.firstTokenTimeoutMs/)
    expect(message).toMatch(/\[1\]\.idleTimeoutMs/)
    expect(message).toMatch(/\[2\]\.timeoutMs/)
    expect(message).toMatch(/\[3\]\.idleTimeoutMs: must be at most timeoutMs/)
    expect(message).toMatch(/\[4\]\.firstTokenTimeoutMs/)
    // Longer than LLM_TIMEOUT_MS: a premium reply's hold would be released while it is written (ADR 024).
    const file = modelsFile([{ ...free, timeoutMs: 600_000 }])
    expect(() => loadModelRegistry({ ...llm, timeoutMs: 300_000, modelsFile: file })).toThrow(
      /llama3\.2: timeoutMs must be at most LLM_TIMEOUT_MS \(300000\)/,
    )
  })

  it('runs memory summaries on SUMMARY_MODEL when it names a model, and refuses an unknown id (ADR 034)', () => {
    const file = modelsFile([free, { ...free, id: 'summariser', baseUrl: 'http://10.0.0.9:8080/v1' }])
    const registry = loadModelRegistry({ ...llm, modelsFile: file, summaryModel: 'summariser' })
    expect(registry.summaryModel?.id).toBe('summariser')
    expect(registry.summaryModel?.baseUrl).toBe('http://10.0.0.9:8080/v1')
    expect(loadModelRegistry({ ...llm, modelsFile: file }).summaryModel).toBeUndefined()
    // Without MODELS_FILE the one model of LLM_MODEL is the only id there is.
    expect(loadModelRegistry({ ...llm, summaryModel: 'llama3.2' }).summaryModel?.id).toBe('llama3.2')
    for (const config of [
      { ...llm, modelsFile: file, summaryModel: 'nope' },
      { ...llm, summaryModel: 'gpt-4o' },
    ]) {
      expect(() => loadModelRegistry(config)).toThrow(ConfigError)
      expect(() => loadModelRegistry(config)).toThrow(
        /SUMMARY_MODEL: ".+" is not a model id of (MODELS_FILE|LLM_MODEL)/,
      )
    }
  })

  it('never shows a server path as a model name', () => {
    const fromPath = loadModelRegistry({ ...llm, model: '/models/Mistral-Nemo-Q4_K_M.gguf' })
    expect(fromPath.defaultModel.name).toBe('Mistral-Nemo Q4_K_M')
    expect(fromPath.listPublic()[0]?.name).toBe('Mistral-Nemo Q4_K_M')
    const registry = loadModelRegistry({
      ...llm,
      modelsFile: modelsFile([
        { id: 'nemo', model: '/srv/gguf/Mistral-Nemo-Instruct-2407.IQ3_XS.gguf', premium: false },
        { id: 'meta-llama/Llama-3.1-8B-Instruct', premium: false },
        { id: 'named', displayName: 'Tavern Classic', premium: false },
      ]),
    })
    expect(registry.models.map((m) => m.name)).toEqual([
      'Mistral-Nemo-Instruct-2407 IQ3_XS',
      'Llama-3.1-8B-Instruct',
      'Tavern Classic',
    ])
    // Without contextTokens the server's figure is used (model-server-info.ts); until then, the default.
    expect(registry.models.every((m) => !m.contextConfigured && m.contextTokens === DEFAULT_CONTEXT_TOKENS)).toBe(true)
  })

  it('accepts the MODELS_FILE example of docs/configuration.md', () => {
    const doc = readFileSync(path.resolve(import.meta.dirname, '../../../docs/configuration.md'), 'utf8')
    const section = doc.slice(doc.indexOf('## The models file'))
    const json = /```json\n([\s\S]*?)```/.exec(section)?.[1]
    if (!json) throw new Error('no example in docs/configuration.md')
    const registry = loadModelRegistry({ ...llm, modelsFile: modelsFile(json) })
    expect(registry.models.map((m) => m.id)).toEqual([
      'nemo-local',
      'llama3.1:8b',
      'qwen-vllm',
      'openrouter-euryale',
      'gpt-4.1-mini',
    ])
  })
})
