import { useMemo } from 'react'
import { qrDrawing } from '../qr-code.ts'

/**
 * `value` as a QR code: inline SVG elements (the CSP needs nothing for them), dark modules on a
 * white square whatever the theme, since authenticator apps read dark on light. `label` is its
 * accessible name. `crispEdges` keeps the unit squares from blurring into each other.
 */
export function QrCode({ value, label, className }: { value: string; label: string; className?: string }) {
  const qr = useMemo(() => qrDrawing(value), [value])
  return (
    <svg
      role="img"
      aria-label={label}
      viewBox={`0 0 ${qr.size} ${qr.size}`}
      className={className}
      shapeRendering="crispEdges"
      data-testid="totp-qr"
      data-qr-version={qr.version}
    >
      <rect width={qr.size} height={qr.size} fill="#ffffff" />
      <path d={qr.path} fill="#000000" />
    </svg>
  )
}
