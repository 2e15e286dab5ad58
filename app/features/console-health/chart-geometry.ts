/**
 * The geometry of the health page's small charts, without React: a round top for the scale and
 * the SVG path of one line. The SVG is drawn in a fixed box (`CHART_WIDTH` × `CHART_HEIGHT`)
 * stretched to its container; labels are HTML around it, so they follow the page's direction.
 */
export const CHART_WIDTH = 300
export const CHART_HEIGHT = 100

/** The smallest 1, 2 or 5 × 10ⁿ at or above `max` (the scale's top); 1 when nothing is above 0. */
export function niceMax(max: number): number {
  if (!(max > 0)) return 1
  const power = 10 ** Math.floor(Math.log10(max))
  for (const step of [1, 2, 5, 10]) if (step * power >= max) return step * power
  return 10 * power
}

/**
 * The x of day `index` of `count` days. Right to left pages run the time axis right to left
 * too (oldest day at the right, today at the left), as their tables and text read: one direction
 * for the whole page, the way the page's reader reads it.
 */
export function xOf(index: number, count: number, rtl: boolean): number {
  const x = count <= 1 ? CHART_WIDTH / 2 : (index / (count - 1)) * CHART_WIDTH
  return rtl ? CHART_WIDTH - x : x
}

const yOf = (value: number, top: number) => CHART_HEIGHT - (Math.min(value, top) / top) * CHART_HEIGHT

const round = (n: number) => Math.round(n * 100) / 100

/**
 * One line through `values` (oldest first), on a scale from 0 to `top`. A day without a value
 * (null) breaks the line; a value with no neighbour is a zero-length segment, which a round cap
 * draws as a dot.
 */
export function linePath(values: readonly (number | null)[], top: number, rtl: boolean): string {
  const parts: string[] = []
  let drawing = false
  for (const [index, value] of values.entries()) {
    if (value === null) {
      drawing = false
      continue
    }
    const point = `${round(xOf(index, values.length, rtl))} ${round(yOf(value, top))}`
    const next = values[index + 1]
    if (!drawing) {
      parts.push(next === null || next === undefined ? `M${point}l0 0` : `M${point}`)
      drawing = true
    } else parts.push(`L${point}`)
  }
  return parts.join('')
}

/**
 * The values with no neighbour on either side (a day between two days without one) as dots:
 * zero-length segments that a round cap draws as a dot, drawn solid and thicker over the line so
 * a lone figure (one day of first-token times) shows.
 */
export function lonePoints(values: readonly (number | null)[], top: number, rtl: boolean): string {
  const present = (index: number) => values[index] !== null && values[index] !== undefined
  return values
    .map((value, index) =>
      value === null || present(index - 1) || present(index + 1)
        ? ''
        : `M${round(xOf(index, values.length, rtl))} ${round(yOf(value, top))}l0 0`,
    )
    .join('')
}
