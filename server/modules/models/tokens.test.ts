import { encodeChat } from 'gpt-tokenizer/encoding/o200k_base'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  countMessageTokens,
  countOneMessageTokens,
  countTokens,
  REPLY_PRIMING_TOKENS,
  tokenizerLoaded,
  tokenizerReady,
} from './tokens.ts'

// Runs first (this file's own module instance): the encoding is loaded on first need (ADR 067).
describe('before the tokenizer is loaded', () => {
  it('has not loaded it on import, and refuses to count instead of guessing', () => {
    expect(tokenizerLoaded()).toBe(false)
    expect(() => countTokens('Hello, world!')).toThrow(/before tokenizerReady/)
    // Even an empty text: a path that forgot to wait fails in every test that takes it.
    expect(() => countTokens('')).toThrow(/before tokenizerReady/)
    expect(() => countMessageTokens([{ role: 'user', content: 'Hi' }])).toThrow(/before tokenizerReady/)
  })

  it('loads it once: every caller waits for the same load', async () => {
    const first = tokenizerReady()
    expect(tokenizerReady()).toBe(first)
    await first
    expect(tokenizerLoaded()).toBe(true)
    expect(countTokens('Hello, world!')).toBe(4)
  })
})

describe('token counting (o200k_base)', () => {
  beforeAll(() => tokenizerReady())

  it('counts known strings as OpenAI does', () => {
    expect(countTokens('')).toBe(0)
    expect(countTokens('Hello, world!')).toBe(4)
    expect(countTokens('tiktoken is great!')).toBe(6)
    expect(countTokens(Array(100).fill('The quick brown fox jumps over the lazy dog.').join(' '))).toBe(1000)
  })

  it('counts other scripts with the multilingual encoding, not cl100k', () => {
    // cl100k_base gives 15 and 20 for these: the reason o200k_base was chosen.
    expect(countTokens('مرحبا بك في عالم القصص')).toBe(7)
    expect(countTokens('नमस्ते, आप कैसे हैं?')).toBe(9)
  })

  it('counts special-token text typed by a user as plain text instead of throwing', () => {
    expect(countTokens('<|endoftext|>')).toBe(7)
    expect(countTokens('<|im_start|>system')).toBeGreaterThan(2)
  })

  it('adds the chat format overhead per message and for the reply', () => {
    const chat = [
      { role: 'system', content: 'You are a helpful assistant.' },
      { role: 'user', content: 'Hello' },
    ]
    // 3 + 1 ("system") + 6, then 3 + 1 ("user") + 1, then 3 to prime the reply.
    expect(countMessageTokens(chat)).toBe(18)
    expect(countOneMessageTokens({ role: 'user', content: 'Hello' })).toBe(5)
    expect(countMessageTokens([])).toBe(REPLY_PRIMING_TOKENS)
    // A name costs its own tokens plus one.
    expect(countOneMessageTokens({ role: 'user', content: 'Hello', name: 'Robin' })).toBe(5 + 1 + countTokens('Robin'))
  })

  it('agrees with the tokenizer library on a longer conversation', () => {
    const chat = [
      { role: 'system' as const, content: 'You are Aria, captain of the Saltwind. Speak like a sailor.' },
      { role: 'assistant' as const, content: '*leans on the wheel* Welcome aboard, landlubber. Where to?' },
      { role: 'user' as const, content: 'Take me to the lighthouse beyond the fog, please.' },
      { role: 'assistant' as const, content: 'Aye. Hold fast — the sea there bites. ¿Listo? Вперёд!' },
    ]
    expect(countMessageTokens(chat)).toBe(encodeChat(chat, 'gpt-4o').length)
  })
})
