// Draws the app icons from public/favicon.svg: the PNGs of the web app manifest, the Apple touch
// icon and favicon.ico. Run it after changing the SVG (`node scripts/make-icons.ts`) and commit
// the files it writes to public/.
import { readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import sharp from 'sharp'

const publicDir = path.resolve(import.meta.dirname, '..', 'public')
const svg = readFileSync(path.join(publicDir, 'favicon.svg'))
const BACKGROUND = '#7c3aed'

async function png(size: number, options: { padding?: number } = {}): Promise<Buffer> {
  const padding = Math.round(size * (options.padding ?? 0))
  const inner = size - 2 * padding
  const icon = await sharp(svg, { density: Math.ceil((72 * inner) / 64) })
    .resize(inner, inner)
    .png()
    .toBuffer()
  if (!padding) return sharp(icon).png({ compressionLevel: 9 }).toBuffer()
  return sharp({ create: { width: size, height: size, channels: 4, background: BACKGROUND } })
    .composite([{ input: icon, left: padding, top: padding }])
    .png({ compressionLevel: 9 })
    .toBuffer()
}

/** An .ico file holding PNG images (supported by every browser since Windows Vista's format). */
function ico(images: { size: number; data: Buffer }[]): Buffer {
  const header = Buffer.alloc(6)
  header.writeUInt16LE(0, 0)
  header.writeUInt16LE(1, 2)
  header.writeUInt16LE(images.length, 4)
  let offset = 6 + 16 * images.length
  const entries = images.map(({ size, data }) => {
    const entry = Buffer.alloc(16)
    entry.writeUInt8(size >= 256 ? 0 : size, 0)
    entry.writeUInt8(size >= 256 ? 0 : size, 1)
    entry.writeUInt8(0, 2)
    entry.writeUInt8(0, 3)
    entry.writeUInt16LE(1, 4)
    entry.writeUInt16LE(32, 6)
    entry.writeUInt32LE(data.length, 8)
    entry.writeUInt32LE(offset, 12)
    offset += data.length
    return entry
  })
  return Buffer.concat([header, ...entries, ...images.map((i) => i.data)])
}

const files: [string, Buffer][] = [
  ['icon-192.png', await png(192)],
  ['icon-512.png', await png(512)],
  // Maskable icons are cropped to a circle or squircle: keep the drawing inside the safe zone.
  ['icon-maskable-512.png', await png(512, { padding: 0.12 })],
  ['apple-touch-icon.png', await png(180, { padding: 0.08 })],
  [
    'favicon.ico',
    ico([
      { size: 16, data: await png(16) },
      { size: 32, data: await png(32) },
      { size: 48, data: await png(48) },
    ]),
  ],
]
for (const [name, data] of files) {
  writeFileSync(path.join(publicDir, name), data)
  console.info(`public/${name}: ${data.length} bytes`)
}
