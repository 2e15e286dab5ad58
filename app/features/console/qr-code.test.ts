import { describe, expect, it } from 'vitest'
import { QR_QUIET_ZONE, qrDrawing } from './qr-code.ts'

// What an authenticator app reads, checked without a decoder: the drawn path read back into a
// matrix must be a well-formed QR code of the expected version at error correction M, with the
// format and version words that a reader decodes first (ISO/IEC 18004, BCH-protected).

const URI =
  'otpauth://totp/Taleweave:admin%40example.test?issuer=Taleweave&secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&algorithm=SHA1&digits=6&period=30'

/** The drawing's path (`M x y h1v1h-1z` per dark module) as a matrix, quiet zone included. */
function matrixOf(path: string, size: number): boolean[][] {
  const matrix = Array.from({ length: size }, () => new Array<boolean>(size).fill(false))
  for (const [, x, y] of path.matchAll(/M(\d+) (\d+)h1v1h-1z/g)) {
    const row = matrix[Number(y)]
    if (row) row[Number(x)] = true
  }
  return matrix
}

/** The symbol without its quiet zone; `at(x, y)`. */
function symbolOf(matrix: boolean[][]) {
  const at = (x: number, y: number) => matrix[y + QR_QUIET_ZONE]?.[x + QR_QUIET_ZONE] === true
  return { at, size: matrix.length - 2 * QR_QUIET_ZONE }
}

/** A 7×7 finder pattern at (x, y): dark ring, light ring, dark 3×3 centre. */
function isFinder(at: (x: number, y: number) => boolean, x0: number, y0: number): boolean {
  for (let dy = 0; dy < 7; dy++)
    for (let dx = 0; dx < 7; dx++) {
      const ring = Math.max(Math.abs(dx - 3), Math.abs(dy - 3))
      if (at(x0 + dx, y0 + dy) !== (ring !== 2)) return false
    }
  return true
}

const bchFormat = (data: number) => {
  let rem = data
  for (let i = 0; i < 10; i++) rem = (rem << 1) ^ ((rem >>> 9) * 0x537)
  return ((data << 10) | (rem & 0x3ff)) ^ 0x5412
}
const bchVersion = (version: number) => {
  let rem = version
  for (let i = 0; i < 12; i++) rem = (rem << 1) ^ ((rem >>> 11) * 0x1f25)
  return (version << 12) | (rem & 0xfff)
}

describe('the enrollment QR code', () => {
  const qr = qrDrawing(URI)
  const matrix = matrixOf(qr.path, qr.size)
  const { at, size } = symbolOf(matrix)

  it('is the version the URI needs, drawn module by module with a quiet zone', () => {
    // 136 bytes at level M need version 8 (7 holds 122): 4 × 8 + 17 = 49 modules, plus 2 × 4.
    expect(URI.length).toBe(136)
    expect(qr.version).toBe(8)
    expect(size).toBe(4 * qr.version + 17)
    expect(qr.size).toBe(57)
    expect(matrix.flat().filter(Boolean).length).toBe(qr.dark)
    // Every square of the path is a module of its own (none drawn twice), none in the quiet zone.
    expect(qr.path.match(/M/g)?.length).toBe(qr.dark)
    for (let i = 0; i < qr.size; i++)
      for (const [x, y] of [
        [i, 0],
        [i, qr.size - 1],
        [0, i],
        [qr.size - 1, i],
      ] as const)
        expect(matrix[y]?.[x]).toBe(false)
  })

  it('has the three finder patterns and the timing lines', () => {
    expect(isFinder(at, 0, 0)).toBe(true)
    expect(isFinder(at, size - 7, 0)).toBe(true)
    expect(isFinder(at, 0, size - 7)).toBe(true)
    expect(isFinder(at, size - 7, size - 7)).toBe(false)
    for (let i = 8; i < size - 8; i++) {
      expect(at(i, 6)).toBe(i % 2 === 0)
      expect(at(6, i)).toBe(i % 2 === 0)
    }
  })

  it('carries a valid format word for level M and a valid version word for 8', () => {
    // First copy of the format word, around the top-left finder (bit i at the standard's place).
    const places: [number, number][] = [
      ...[0, 1, 2, 3, 4, 5].map((y) => [8, y] as [number, number]),
      [8, 7],
      [8, 8],
      [7, 8],
      ...[9, 10, 11, 12, 13, 14].map((i) => [14 - i, 8] as [number, number]),
    ]
    const format = places.reduce((word, [x, y], i) => word | (Number(at(x, y)) << i), 0)
    const data = (format ^ 0x5412) >>> 10
    expect(bchFormat(data)).toBe(format)
    expect(data >>> 3).toBe(0) // level M is 00
    // Its second copy, split between the other two finders, says the same.
    let second = 0
    for (let i = 0; i < 8; i++) second |= Number(at(size - 1 - i, 8)) << i
    for (let i = 8; i < 15; i++) second |= Number(at(8, size - 15 + i)) << i
    expect(second).toBe(format)
    expect(at(8, size - 8)).toBe(true)

    let version = 0
    for (let i = 0; i < 18; i++) version |= Number(at(size - 11 + (i % 3), Math.floor(i / 3))) << i
    expect(version).toBe(bchVersion(8))
  })

  it('changes with the secret and stays the same for the same URI', () => {
    expect(qrDrawing(URI)).toEqual(qr)
    expect(qrDrawing(URI.replace('JBSWY3DP', 'KRUGS4ZA')).path).not.toBe(qr.path)
  })
})
