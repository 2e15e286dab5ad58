import { encode } from 'uqr'

/** The quiet zone around a QR code, in modules: the four the standard asks for. */
export const QR_QUIET_ZONE = 4

export type QrDrawing = {
  /** Modules per side, quiet zone included (the viewBox is `0 0 size size`). */
  size: number
  /** The QR version (1–40) the text needed. */
  version: number
  /** One SVG path of every dark module, each as its own unit square: `M x y h1v1h-1z`. */
  path: string
  /** How many dark modules the path draws. */
  dark: number
}

/**
 * `text` as a QR code to draw as inline SVG (no data: URL, nothing the CSP must allow): the
 * matrix from `uqr` at error correction M (a phone camera reads it off a screen at a slant),
 * then one path of unit squares. Each dark module is drawn on its own, so the path maps back to
 * the matrix one to one (the unit test reads it back).
 */
export function qrDrawing(text: string): QrDrawing {
  const qr = encode(text, { ecc: 'M', border: QR_QUIET_ZONE })
  let path = ''
  let dark = 0
  for (const [y, row] of qr.data.entries()) {
    for (const [x, on] of row.entries()) {
      if (!on) continue
      path += `M${x} ${y}h1v1h-1z`
      dark += 1
    }
  }
  return { size: qr.size, version: qr.version, path, dark }
}
