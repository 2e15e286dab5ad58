import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '#server/config.ts'
import { LlmError } from '#server/modules/models/llm-client.ts'
import { loadModelRegistry } from '#server/modules/models/models.ts'
import { writeModelsFile } from '#tests/helpers/chat.ts'
import { modelUnavailable, msToNextUtcDay, translationModel, utcDay } from './machine-translation.ts'

// The settings of machine translation (ADR 040): TRANSLATE_* variables and the model it runs on.

describe('TRANSLATE_* settings', () => {
  it('defaults: on, two million characters a day, one at a time, nothing translated ahead', () => {
    expect(loadConfig({ NODE_ENV: 'test', JWT_SECRET: 'x'.repeat(32) }).translate).toEqual({
      model: undefined,
      dailyCharacters: 2_000_000,
      concurrency: 1,
      aheadLocales: [],
    })
  })

  it('reads the ahead locales as a list of the site locales, and refuses others, naming them', () => {
    const config = loadConfig({
      NODE_ENV: 'test',
      JWT_SECRET: 'x'.repeat(32),
      TRANSLATE_AHEAD_LOCALES: ' ja, zh-CN,ja ,de',
      TRANSLATE_DAILY_CHARACTERS: '0',
      TRANSLATE_CONCURRENCY: '2',
      TRANSLATE_MODEL: 'translator',
    })
    expect(config.translate).toEqual({
      model: 'translator',
      dailyCharacters: 0,
      concurrency: 2,
      aheadLocales: ['ja', 'zh-cn', 'de'],
    })
    expect(() => loadConfig({ TRANSLATE_AHEAD_LOCALES: 'ja,klingon,xx' })).toThrow(
      /TRANSLATE_AHEAD_LOCALES: not a locale of the site: klingon, xx/,
    )
    expect(() => loadConfig({ TRANSLATE_DAILY_CHARACTERS: '-1' })).toThrow(ConfigError)
    expect(() => loadConfig({ TRANSLATE_CONCURRENCY: '0' })).toThrow(ConfigError)
  })

  it('runs on TRANSLATE_MODEL when it names a model, else on the summaries model; an unknown id stops the start', () => {
    const file = writeModelsFile([
      { id: 'chat', premium: false, baseUrl: 'http://10.0.0.2:8080/v1' },
      { id: 'translator', premium: false, baseUrl: 'http://10.0.0.9:8080/v1' },
    ])
    const registry = loadModelRegistry({ baseUrl: '', apiKey: undefined, model: 'x', modelsFile: file })
    const fallback = registry.defaultModel
    expect(translationModel('translator', registry, fallback).baseUrl).toBe('http://10.0.0.9:8080/v1')
    expect(translationModel(undefined, registry, fallback)).toBe(fallback)
    expect(() => translationModel('nope', registry, fallback)).toThrow(ConfigError)
    expect(() => translationModel('nope', registry, fallback)).toThrow(
      /TRANSLATE_MODEL: "nope" is not a model id \(known: chat, translator\)/,
    )
  })

  it('counts the budget per UTC day, and knows which failures mean the model is away', () => {
    const late = new Date('2026-11-25T23:59:30+00:00')
    expect(utcDay(late)).toBe('2026-11-25')
    expect(msToNextUtcDay(late)).toBe(30_000)
    expect(utcDay(new Date('2026-11-26T08:00:00+09:00'))).toBe('2026-11-25')
    expect(modelUnavailable(new LlmError('provider', 'x', { reason: 'unreachable' }))).toBe(true)
    expect(modelUnavailable(new LlmError('provider', 'x', { reason: 'preparing' }))).toBe(true)
    expect(modelUnavailable(new LlmError('timeout', 'x'))).toBe(true)
    expect(modelUnavailable(new LlmError('provider', 'x', { reason: 'context_too_long' }))).toBe(false)
    expect(modelUnavailable(new LlmError('invalid', 'x'))).toBe(false)
    expect(modelUnavailable(new Error('x'))).toBe(false)
  })
})
