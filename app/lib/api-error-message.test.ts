import i18next, { type TFunction } from 'i18next'
import { describe, expect, it } from 'vitest'
import { ERROR_CODES } from '#contracts/api.ts'
import common from '#locales/en/common.json' with { type: 'json' }
import { apiErrorMessage, errorCodeMessage } from './api-error-message.ts'
import { ApiError, isApiError } from './http.ts'

const i18n = i18next.createInstance()
void i18n.init({ lng: 'en', resources: { en: { common } }, defaultNS: 'common', initAsync: false })
const t = i18n.t as unknown as TFunction

describe('apiErrorMessage — the one mapper from an API error to words', () => {
  it('words every code of the contract with its own translated text', () => {
    for (const code of ERROR_CODES) {
      const words = apiErrorMessage(t, new ApiError(400, code, 'English for logs'))
      expect(words).toBe(common.apiErrors[code])
      expect(words).not.toBe(common.apiErrors.unknown)
    }
  })

  it('says "Unknown error" for what is not an API error or a code it does not know', () => {
    expect(apiErrorMessage(t, new Error('boom'))).toBe('Unknown error')
    expect(apiErrorMessage(t, new ApiError(418, 'TEAPOT', 'no'))).toBe('Unknown error')
  })

  it("uses a page's own words for a code, reading that code's typed details", () => {
    const error = new ApiError(400, 'VERIFICATION_FAILED', 'no', { reason: 'timeout-or-duplicate' })
    const words = apiErrorMessage(t, error, { own: { VERIFICATION_FAILED: (details) => `check: ${details.reason}` } })
    expect(words).toBe('check: timeout-or-duplicate')
    // Own words that give up (undefined) fall back to the common words.
    const conflict = new ApiError(409, 'CONFLICT', 'no', { reason: 'not-renewable' })
    const own = {
      CONFLICT: (d: { reason: string } | undefined) => (d?.reason === 'provider-refused' ? 'x' : undefined),
    }
    expect(apiErrorMessage(t, conflict, { own })).toBe(common.apiErrors.CONFLICT)
  })

  // Login, registration and contact word a server failure per the spec ('Login failed, …') but
  // every refusal by its code: a code added later (as HUMAN_VERIFICATION_REQUIRED, PLAN_CHANGE_NOT_ALLOWED
  // were) is never hidden behind the page's generic sentence.
  it("keeps the page's words for server and connection failures only", () => {
    const otherwise = 'Login failed, please try again later'
    for (const code of ['INTERNAL_ERROR', 'SERVICE_UNAVAILABLE', 'NETWORK_ERROR', 'TIMEOUT'] as const) {
      expect(apiErrorMessage(t, new ApiError(500, code, 'no'), { otherwise })).toBe(otherwise)
    }
    expect(apiErrorMessage(t, new TypeError('fetch failed'), { otherwise })).toBe(otherwise)
    for (const code of [
      'HUMAN_VERIFICATION_REQUIRED',
      'CHARACTER_UNAVAILABLE',
      'ALREADY_SUBSCRIBED',
      'PLAN_CHANGE_NOT_ALLOWED',
    ] as const) {
      expect(apiErrorMessage(t, new ApiError(409, code, 'no'), { otherwise })).toBe(common.apiErrors[code])
    }
  })

  it('words a code without an ApiError (a chat stream error event) the same way', () => {
    expect(errorCodeMessage(t, 'INTERNAL_ERROR', undefined)).toBe(common.apiErrors.INTERNAL_ERROR)
    expect(errorCodeMessage(t, 'CHARACTER_UNAVAILABLE', undefined)).toBe(common.apiErrors.CHARACTER_UNAVAILABLE)
    expect(errorCodeMessage(t, 'SOMETHING_NEW', undefined)).toBe('Unknown error')
  })
})

describe('isApiError', () => {
  it('narrows to the code and its typed details, and to nothing else', () => {
    const error: unknown = new ApiError(429, 'RATE_LIMITED', 'wait', { retryAfterSeconds: 30 })
    expect(isApiError(error, 'RATE_LIMITED') ? error.details?.retryAfterSeconds : null).toBe(30)
    expect(isApiError(error, 'VALIDATION_ERROR', 'CONFLICT')).toBe(false)
    // Something shaped like an API error is not one.
    expect(isApiError({ error: 'RATE_LIMITED', code: 429, details: { retryAfterSeconds: 1 } }, 'RATE_LIMITED')).toBe(
      false,
    )
  })
})
