import i18next, { type TFunction } from 'i18next'
import { describe, expect, it } from 'vitest'
import { ApiError } from '#app/lib/http.ts'
import type { ChatMessage } from '#contracts/chat.ts'
import chat from '#locales/en/chat.json' with { type: 'json' }
import common from '#locales/en/common.json' with { type: 'json' }
import { failedReplyProblem, refusedReplyProblem, strandedMessageId, swipeStep, withMessage } from './reply-problems.ts'

const i18n = i18next.createInstance()
void i18n.init({ lng: 'en', resources: { en: { common, chat } }, defaultNS: 'common', initAsync: false })
const tCommon = i18n.t as unknown as TFunction
const t = i18n.getFixedT('en', 'chat') as unknown as TFunction<'chat'>

const failure = (code: string) => ({
  code,
  kind: null,
  reason: null,
  retryable: true,
  message: 'English for logs',
  partialKept: false,
  reply: null,
  userMessageId: 3,
})

describe('the Connection Error of a reply that failed while streaming', () => {
  it('words the code like any API error, after "Message sending failed", with Retry', () => {
    expect(failedReplyProblem(t, tCommon, 'en', { ...failure('MODEL_ERROR'), kind: 'timeout' })).toEqual({
      message: `Message sending failed: ${common.apiErrors.MODEL_ERROR}`,
      details: 'MODEL_ERROR · timeout · English for logs',
      retry: true,
    })
    // It said 'Unknown error' for every code but MODEL_ERROR and SERVICE_UNAVAILABLE.
    expect(failedReplyProblem(t, tCommon, 'en', failure('INTERNAL_ERROR')).message).toBe(
      `Message sending failed: ${common.apiErrors.INTERNAL_ERROR}`,
    )
    expect(failedReplyProblem(t, tCommon, 'en', failure('CHARACTER_UNAVAILABLE')).message).toBe(
      `Message sending failed: ${common.apiErrors.CHARACTER_UNAVAILABLE}`,
    )
  })

  it('offers Retry only when the server says a retry can help', () => {
    const gone = { ...failure('MODEL_NOT_FOUND'), kind: 'provider' as const, reason: 'model_not_found' as const }
    expect(failedReplyProblem(t, tCommon, 'en', { ...gone, retryable: false })).toMatchObject({
      message: `Message sending failed: ${common.apiErrors.MODEL_NOT_FOUND}`,
      retry: false,
    })
    expect(failedReplyProblem(t, tCommon, 'en', { ...failure('MODEL_OVERLOADED'), retryable: true }).retry).toBe(true)
  })

  it("says when to try again when the model's server gave a Retry-After, in the page's language", () => {
    const limited = { ...failure('MODEL_RATE_LIMITED'), retryAfterSeconds: 30 }
    expect(failedReplyProblem(t, tCommon, 'en', limited).message).toBe(
      `Message sending failed: ${common.apiErrors.MODEL_RATE_LIMITED} You can try again in 30 seconds.`,
    )
    expect(failedReplyProblem(t, tCommon, 'en', { ...limited, retryAfterSeconds: 300 }).message).toContain(
      'in 5 minutes',
    )
    expect(failedReplyProblem(t, tCommon, 'en', failure('MODEL_RATE_LIMITED')).message).toBe(
      `Message sending failed: ${common.apiErrors.MODEL_RATE_LIMITED}`,
    )
  })

  it('says only that diamonds are missing, without Retry', () => {
    expect(failedReplyProblem(t, tCommon, 'en', failure('INSUFFICIENT_DIAMONDS'))).toMatchObject({
      message: common.apiErrors.INSUFFICIENT_DIAMONDS,
      retry: false,
    })
  })
})

describe('the Connection Error of a send that was refused or broke off', () => {
  it('a refusal (4xx) is "Send failed" with its words and no Retry', () => {
    const error = new ApiError(403, 'CHARACTER_UNAVAILABLE', 'private now')
    expect(refusedReplyProblem(t, tCommon, error)).toEqual({
      message: `Send failed: ${common.apiErrors.CHARACTER_UNAVAILABLE}`,
      details: 'CHARACTER_UNAVAILABLE: private now',
      retry: false,
    })
  })

  it('a broken line is "Message sending failed" with Retry', () => {
    const problem = refusedReplyProblem(t, tCommon, new ApiError(0, 'NETWORK_ERROR', 'ended early'))
    expect(problem).toEqual({
      message: `Message sending failed: ${common.apiErrors.NETWORK_ERROR}`,
      details: 'NETWORK_ERROR: ended early',
      retry: true,
    })
    expect(refusedReplyProblem(t, tCommon, new TypeError('x')).details).toBe('TypeError: x')
  })
})

describe('swipes', () => {
  const reply = { swipeIndex: 1, swipeCount: 3, modelId: 'm' }
  it('move between the stored alternatives', () => {
    expect(swipeStep(reply, 1)).toEqual({ kind: 'select', index: 2 })
    expect(swipeStep(reply, -1)).toEqual({ kind: 'select', index: 0 })
  })
  it('past the last one write a new reply, but never a new greeting', () => {
    expect(swipeStep({ ...reply, swipeIndex: 2 }, 1)).toEqual({ kind: 'regenerate' })
    expect(swipeStep({ ...reply, swipeIndex: 2, modelId: null }, 1)).toEqual({ kind: 'none' })
  })
})

describe('a stranded user message', () => {
  const m = (id: number, author: 'user' | 'assistant') => ({ id, author })
  it("is the last message when it is the user's", () => {
    expect(strandedMessageId([m(1, 'assistant'), m(2, 'user')])).toBe(2)
    expect(strandedMessageId([m(1, 'assistant'), m(2, 'user'), m(3, 'user')])).toBe(3)
  })
  it('is none when the conversation ends with a reply, or is empty', () => {
    expect(strandedMessageId([m(1, 'assistant'), m(2, 'user'), m(3, 'assistant')])).toBeNull()
    expect(strandedMessageId([])).toBeNull()
  })
})

describe('withMessage', () => {
  it('replaces the stored copy and puts the message last', () => {
    const m = (id: number, content: string) => ({ id, content }) as ChatMessage
    expect(withMessage([m(1, 'a'), m(2, 'old'), m(3, 'c')], m(2, 'new')).map((x) => x.content)).toEqual([
      'a',
      'c',
      'new',
    ])
  })
})
