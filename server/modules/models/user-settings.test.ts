import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { effectiveSettings, refusalOf, userBoundsOf } from './user-settings.ts'

const model = (over: object = {}) => ({ sampling: { temperature: 0.7 }, maxReplyTokens: 400, ...over })

describe('per-chat settings (ADR 033)', () => {
  it("uses the model's own settings when the chat chose none", () => {
    expect(effectiveSettings(model(), { temperature: null, replyTokens: null })).toEqual({
      temperature: 0.7,
      replyTokens: 400,
    })
    expect(
      effectiveSettings({ sampling: {}, maxReplyTokens: undefined }, { temperature: null, replyTokens: null }),
    ).toEqual({ temperature: undefined, replyTokens: 1024 })
  })

  it("clamps the chat's choice to the model's current bounds, and ignores it where changes are forbidden", () => {
    const narrow = model({ userTemperature: { min: 0.2, max: 0.9 }, userReplyTokens: { min: 100, max: 300 } })
    expect(effectiveSettings(narrow, { temperature: 1.9, replyTokens: 50 })).toEqual({
      temperature: 0.9,
      replyTokens: 100,
    })
    expect(effectiveSettings(narrow, { temperature: 0.5, replyTokens: 250 })).toEqual({
      temperature: 0.5,
      replyTokens: 250,
    })
    const fixed = model({ userTemperature: false, userReplyTokens: false })
    expect(effectiveSettings(fixed, { temperature: 1.2, replyTokens: 100 })).toEqual({
      temperature: 0.7,
      replyTokens: 400,
    })
  })

  it('always lands within the bounds, whatever was stored', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 2, noNaN: true }),
        fc.integer({ min: 1, max: 100_000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.double({ min: 1, max: 2, noNaN: true }),
        (temperature, replyTokens, min, max) => {
          const m = model({ userTemperature: { min, max }, userReplyTokens: { min: 64, max: 400 } })
          const got = effectiveSettings(m, { temperature, replyTokens })
          expect(got.temperature).toBeGreaterThanOrEqual(min)
          expect(got.temperature).toBeLessThanOrEqual(max)
          expect(got.replyTokens).toBeGreaterThanOrEqual(64)
          expect(got.replyTokens).toBeLessThanOrEqual(400)
        },
      ),
    )
  })

  it('refuses a value outside the bounds or a forbidden one; accepts null (the default) always', () => {
    const bounds = userBoundsOf(model({ userReplyTokens: false }))
    expect(refusalOf(bounds, 'temperature', 1.6)).toEqual({ field: 'temperature', min: 0, max: 1.5 })
    expect(refusalOf(bounds, 'temperature', 1.5)).toBeNull()
    expect(refusalOf(bounds, 'replyTokens', 100)).toEqual({ field: 'replyTokens', locked: true })
    expect(refusalOf(bounds, 'replyTokens', null)).toBeNull()
  })
})
