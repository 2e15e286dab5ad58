// Cheap checks on JSON text before it is parsed (input-guards.ts, multipart JSON parts).

/** How deep JSON bodies may nest; no route takes more than a few levels. */
export const MAX_JSON_DEPTH = 32

/**
 * One pass over a JSON text: `deep` when it opens more than `max` arrays or objects inside each
 * other, `nul` when a string holds `\u0000` (JSON cannot carry a raw NUL), else null.
 */
export function scanJson(text: string, max = MAX_JSON_DEPTH, findNul = true): 'deep' | 'nul' | null {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i)
    if (inString) {
      if (ch === 92 /* \ */) {
        if (findNul && text.startsWith('u0000', i + 1)) return 'nul'
        i++
      } else if (ch === 34 /* " */) inString = false
    } else if (ch === 34) inString = true
    else if (ch === 91 /* [ */ || ch === 123 /* { */) {
      if (++depth > max) return 'deep'
    } else if (ch === 93 /* ] */ || ch === 125 /* } */) depth--
  }
  return null
}

/** True when `text` (JSON) opens more than `max` arrays or objects inside each other. */
export function jsonDepthExceeds(text: string, max = MAX_JSON_DEPTH): boolean {
  return scanJson(text, max, false) === 'deep'
}
