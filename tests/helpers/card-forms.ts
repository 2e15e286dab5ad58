import { existsSync, readdirSync } from 'node:fs'
import path from 'node:path'
import type { ImportResult } from '#contracts/characters.ts'

// What the API tests of cards send: multipart bodies as a browser makes them, an imported draft as
// the character form sends it back, and the real cards of ../shared/cards.

export type FormField = string | string[] | { bytes: Uint8Array; name: string; type?: string }

/** A multipart body exactly as a browser's FormData sends it (undefined fields left out). */
export async function multipart(fields: Record<string, FormField | undefined>) {
  const form = new FormData()
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue
    if (typeof value === 'string') form.append(key, value)
    else if (Array.isArray(value)) for (const v of value) form.append(key, v)
    else form.append(key, new Blob([new Uint8Array(value.bytes)], { type: value.type ?? '' }), value.name)
  }
  const response = new Response(form)
  return {
    payload: Buffer.from(await response.arrayBuffer()),
    headers: { 'content-type': response.headers.get('content-type') ?? '' },
  }
}

/** An imported draft's fields as the character form sends them on save, without edits (the card extras as they came). */
export function draftForm(
  draft: ImportResult['draft'],
  { visibility, isAdult }: { visibility: 'public' | 'private'; isAdult: boolean },
): Record<string, FormField> {
  return {
    name: draft.name,
    introduction: draft.introduction,
    scenario: draft.scenario,
    personality: draft.personality,
    details: draft.details,
    firstMessage: draft.firstMessage,
    alternateGreetings: draft.alternateGreetings,
    exampleDialogue: draft.exampleDialogue,
    tags: draft.tags.map((tag) => tag.slug ?? tag.name),
    visibility,
    isAdult: String(isAdult),
    lorebook: JSON.stringify(draft.lorebook),
    cardExtras: JSON.stringify(draft.cardExtras),
  }
}

/** Real cards (../shared/cards, read-only); tests that use them are skipped where it is absent. */
export const REAL_CARDS_DIR = path.resolve(import.meta.dirname, '../../../shared/cards')

/** The character cards among them, as paths below REAL_CARDS_DIR (empty where it is absent). */
export const realCharacterCards = existsSync(REAL_CARDS_DIR)
  ? ['st', 'stc', 'ca'].flatMap((dir) =>
      readdirSync(path.join(REAL_CARDS_DIR, dir))
        // Two of them are World Info files, not characters.
        .filter((name) => !['Eldoria.json', 'Toaru.json'].includes(name))
        .map((name) => path.join(dir, name)),
    )
  : []
