import type { CharacterFormState } from './form-state.ts'

/**
 * The form's unsaved content, kept in localStorage per form (`characterDraft:new`,
 * `characterDraft:<roleId>`) so nothing is lost on a validation error, a reload or a closed tab.
 * Pictures are kept as data URLs when they fit; when the browser's storage is full, the draft is
 * kept without its new pictures (`imagesDropped`).
 */
const PREFIX = 'characterDraft:'
const VERSION = 1

type Stored = { v: number; savedAt: number; state: CharacterFormState; imagesDropped: boolean }

export function draftKey(roleId: string | null): string {
  return `${PREFIX}${roleId ?? 'new'}`
}

export function loadDraft(key: string): { state: CharacterFormState; imagesDropped: boolean } | null {
  try {
    const raw = window.localStorage.getItem(key)
    if (!raw) return null
    const stored = JSON.parse(raw) as Stored
    if (stored?.v !== VERSION || typeof stored.state?.name !== 'string') return null
    return { state: stored.state, imagesDropped: stored.imagesDropped }
  } catch {
    return null
  }
}

/** Returns false when the new pictures had to be left out. */
export function saveDraft(key: string, state: CharacterFormState, fallback: CharacterFormState): boolean {
  const write = (value: CharacterFormState, imagesDropped: boolean) =>
    window.localStorage.setItem(key, JSON.stringify({ v: VERSION, savedAt: Date.now(), state: value, imagesDropped }))
  try {
    write(state, false)
    return true
  } catch {
    try {
      write(
        {
          ...state,
          avatar: state.avatar.kind === 'new' ? fallback.avatar : state.avatar,
          banner: state.banner.kind === 'new' ? fallback.banner : state.banner,
        },
        true,
      )
    } catch {
      // Storage unavailable (private mode, quota): the form still works, only without the safety net.
    }
    return false
  }
}

export function clearDraft(key: string) {
  try {
    window.localStorage.removeItem(key)
  } catch {
    // nothing to clear
  }
}
