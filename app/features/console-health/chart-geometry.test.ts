import { describe, expect, it } from 'vitest'
import { CHART_HEIGHT, CHART_WIDTH, linePath, lonePoints, niceMax, xOf } from './chart-geometry.ts'

describe('the health charts’ geometry', () => {
  it('tops the scale with a round number at or above the largest value', () => {
    expect(niceMax(0)).toBe(1)
    expect(niceMax(1)).toBe(1)
    expect(niceMax(3)).toBe(5)
    expect(niceMax(7)).toBe(10)
    expect(niceMax(12)).toBe(20)
    expect(niceMax(250)).toBe(500)
    expect(niceMax(64_000)).toBe(100_000)
    expect(niceMax(0.3)).toBe(0.5)
  })

  it('runs the time axis left to right, or right to left on a right-to-left page', () => {
    expect(xOf(0, 30, false)).toBe(0)
    expect(xOf(29, 30, false)).toBe(CHART_WIDTH)
    expect(xOf(0, 30, true)).toBe(CHART_WIDTH)
    expect(xOf(29, 30, true)).toBe(0)
    expect(xOf(0, 1, false)).toBe(CHART_WIDTH / 2)
  })

  it('draws a line from the oldest day to today on the scale, zeros on the base line', () => {
    expect(linePath([0, 5, 10], 10, false)).toBe(`M0 ${CHART_HEIGHT}L150 50L300 0`)
    expect(linePath([0, 5, 10], 10, true)).toBe(`M300 ${CHART_HEIGHT}L150 50L0 0`)
    expect(linePath([0, 0, 0], 1, false)).toBe(`M0 ${CHART_HEIGHT}L150 ${CHART_HEIGHT}L300 ${CHART_HEIGHT}`)
  })

  it('breaks the line over days without a value and dots a lone one', () => {
    expect(linePath([null, null, 4], 8, false)).toBe('M300 50l0 0')
    expect(linePath([2, null, 2, 2], 4, false)).toBe('M0 50l0 0M200 50L300 50')
    expect(linePath([null, null], 4, false)).toBe('')
  })

  it('marks the values without a neighbour as dots, and only those', () => {
    expect(lonePoints([null, null, 4], 8, false)).toBe('M300 50l0 0')
    expect(lonePoints([null, null, 4], 8, true)).toBe('M0 50l0 0')
    expect(lonePoints([2, null, 2, 2], 4, false)).toBe('M0 50l0 0')
    expect(lonePoints([0, 0, 0], 4, false)).toBe('')
  })
})
