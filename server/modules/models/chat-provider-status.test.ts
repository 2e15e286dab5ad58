import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'
import type { EmbeddedModelStatus } from './embedded/status.ts'

// ADR 037: what serves chat, reported by /readyz (never failing it) and GET /api/models (no paths,
// no hints), through the app's `embeddedModel` decorator.

let status: EmbeddedModelStatus
let t: TestApp

beforeAll(async () => {
  t = await buildTestApp({
    configure: (app) => {
      app.embeddedModel = { status: () => status }
    },
  })
})
afterAll(() => t.close())

const downloading: EmbeddedModelStatus = {
  source: 'hf:unsloth/Qwen3-1.7B-GGUF/Qwen3-1.7B-Q4_K_M.gguf',
  displayName: 'unsloth/Qwen3-1.7B-GGUF/Qwen3-1.7B-Q4_K_M.gguf',
  state: 'downloading',
  percent: 42.7,
  failure: null,
}

describe('the embedded model in /api/models and /readyz', () => {
  it('while it downloads: the progress, not kept by caches; /readyz stays 200', async () => {
    status = downloading
    const res = await t.app.inject({ method: 'GET', url: '/api/models' })
    expect(res.json().data.chatProvider).toEqual({ kind: 'embedded', state: 'downloading', percent: 42, failure: null })
    expect(res.headers['cache-control']).toBe('no-store')
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' })
    expect(ready.statusCode).toBe(200)
    expect(ready.json()).toMatchObject({
      status: 'ok',
      chatProvider: { kind: 'embedded', state: 'downloading', percent: 42, model: downloading.displayName },
    })
  })

  it('when it failed: the code, never the hint or a path; /readyz still 200', async () => {
    status = {
      ...downloading,
      source: '/srv/secret/place/model.gguf',
      state: 'failed',
      percent: null,
      failure: { code: 'offline', hint: 'save it as /srv/secret/place/model.gguf' },
    }
    const res = await t.app.inject({ method: 'GET', url: '/api/models' })
    expect(res.json().data.chatProvider).toEqual({
      kind: 'embedded',
      state: 'failed',
      percent: null,
      failure: 'offline',
    })
    expect(res.body).not.toContain('/srv/secret')
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' })
    expect(ready.statusCode).toBe(200)
    expect(ready.json().chatProvider).toMatchObject({ state: 'failed', failure: 'offline' })
    expect(ready.body).not.toContain('/srv/secret')
  })

  it('when it is ready: cached like the model list', async () => {
    status = { ...downloading, state: 'ready', percent: null }
    const res = await t.app.inject({ method: 'GET', url: '/api/models' })
    expect(res.json().data.chatProvider).toEqual({ kind: 'embedded', state: 'ready', percent: null, failure: null })
    expect(res.headers['cache-control']).toBe('public, max-age=60')
  })
})

describe('an HTTP provider', () => {
  it('is reported as http, without an embedded model', async () => {
    const http = await buildTestApp()
    try {
      const res = await http.app.inject({ method: 'GET', url: '/api/models' })
      expect(res.json().data.chatProvider).toMatchObject({ kind: 'http', percent: null, failure: null })
      const ready = await http.app.inject({ method: 'GET', url: '/readyz' })
      expect(ready.json().chatProvider).toMatchObject({ kind: 'http' })
      expect(ready.json().chatProvider).not.toHaveProperty('model')
    } finally {
      await http.close()
    }
  })
})
