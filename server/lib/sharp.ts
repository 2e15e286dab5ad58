/**
 * sharp (libvips) on first use (ADR 067): its native library adds ~20 MB of RSS that a server
 * decoding no image, or none yet, does without. Every caller is async and awaits this first.
 */
export type SharpModule = typeof import('sharp')['default']

let loaded: SharpModule | undefined

export async function loadSharp(): Promise<SharpModule> {
  loaded ??= (await import('sharp')).default
  return loaded
}

/** Whether sharp is in memory (the idle-memory tests check it is not, at start). */
export const sharpLoaded = () => loaded !== undefined
