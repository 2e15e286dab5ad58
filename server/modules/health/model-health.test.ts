import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ModelConfig } from '#server/modules/models/models.ts'
import { startOpenAiApi } from '#tests/doubles/openai-api.ts'
import { writeModelsFile } from '#tests/helpers/chat.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'
import { createModelHealth } from './model-health.ts'

// Issue 18 item 8 (ADR 031): every model endpoint checked at start and every minute, what is wrong
// logged at warn with how to fix it, reported by /readyz (never failing it) and GET /api/models.

const modelOf = (id: string, baseUrl: string, apiKey?: string): ModelConfig => ({
  id,
  name: id,
  description: '',
  baseUrl,
  apiKey,
  model: id,
  premium: false,
  diamondsPerMessage: 0,
  contextTokens: 4096,
  contextConfigured: true,
  maxReplyTokens: undefined,
  sampling: {},
})

describe('model health checks', () => {
  it('tells an answering server from a closed port and a refused key, warning once per change', async () => {
    const api = await startOpenAiApi({ apiKey: 'sk-right', models: ['good'] })
    const closed = await startOpenAiApi()
    await closed.close()
    const warnings: Record<string, unknown>[] = []
    const health = createModelHealth({
      models: [
        modelOf('good', api.baseUrl, 'sk-right'),
        modelOf('wrong-key', api.baseUrl, 'sk-wrong'),
        modelOf('down', closed.baseUrl),
      ],
      warn: (info) => warnings.push(info),
      info: () => {},
      intervalMs: 0,
    })
    try {
      expect(health.statuses()).toEqual({ good: 'unknown', 'wrong-key': 'unknown', down: 'unknown' })
      await health.check()
      expect(health.statuses()).toEqual({ good: 'ok', 'wrong-key': 'credentials_refused', down: 'unreachable' })
      expect(health.anyReachable()).toBe(true)
      expect(warnings.map((w) => [w.modelId, w.status])).toEqual(
        expect.arrayContaining([
          ['wrong-key', 'credentials_refused'],
          ['down', 'unreachable'],
        ]),
      )
      expect(String(warnings.find((w) => w.modelId === 'down')?.hint)).toMatch(/baseUrl/)
      await health.check()
      expect(warnings).toHaveLength(2)
    } finally {
      await api.close()
    }
  })

  it('warns when a server does not list the model it is asked for', async () => {
    const api = await startOpenAiApi({ models: ['llama3.2'] })
    const warnings: Record<string, unknown>[] = []
    const health = createModelHealth({
      models: [modelOf('llama3.1', api.baseUrl)],
      warn: (info) => warnings.push(info),
      info: () => {},
      intervalMs: 0,
    })
    try {
      await health.check()
      expect(health.statuses()).toEqual({ 'llama3.1': 'ok' })
      expect(warnings).toMatchObject([{ modelId: 'llama3.1', listed: ['llama3.2'] }])
    } finally {
      await api.close()
    }
  })
})

describe('readiness and the models list with no model server up', () => {
  let t: TestApp
  beforeAll(async () => {
    const closed = await startOpenAiApi()
    await closed.close()
    const modelsFile = writeModelsFile([
      { id: 'gone-8b', name: 'Gone', premium: false, contextTokens: 4096, baseUrl: closed.baseUrl },
    ])
    t = await buildTestApp({ env: { MODELS_FILE: modelsFile } })
  })
  afterAll(() => t.close())

  it('stay ready, report the model unreachable, and let the chat say no model is reachable', async () => {
    await expect
      .poll(async () => (await t.app.inject({ method: 'GET', url: '/readyz' })).json().models)
      .toEqual({ 'gone-8b': 'unreachable' })
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' })
    expect(ready.statusCode).toBe(200)
    expect(ready.json()).toMatchObject({ status: 'ok', checks: { database: 'ok' } })
    const models = (await t.app.inject({ method: 'GET', url: '/api/models' })).json().data
    expect(models).toMatchObject({ reachable: { 'gone-8b': false }, anyReachable: false })
  })
})
