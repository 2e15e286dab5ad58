import { adminApi } from '#app/features/console/admin-api.ts'
import type { PeoplePage, PersonDetail } from '#contracts/admin-people.ts'

/**
 * The people console's calls (`/api/admin/people/...`, ADR 060), through the console's `adminApi`:
 * suspend, delete and diamonds answer CONFIRMATION_REQUIRED when the last code is old, and the
 * console layout's dialog asks for a new one before the call repeats.
 */
export const searchPeople = (q: string, page: number, signal?: AbortSignal) =>
  adminApi<PeoplePage>(`/admin/people?${new URLSearchParams({ q, page: String(page) })}`, { signal })

export const getPerson = (userId: string, signal?: AbortSignal) =>
  adminApi<PersonDetail>(`/admin/people/${encodeURIComponent(userId)}`, { signal })

/** The actions that take a note only. */
export type NoteAction = 'suspend' | 'restore' | 'warn' | 'delete' | 'resend-verification'

export const personAction = <T>(userId: string, action: NoteAction, note: string) =>
  adminApi<T>(`/admin/people/${encodeURIComponent(userId)}/${action}`, { method: 'POST', body: { note } })

/** Grants (positive) or deducts (negative) diamonds; the new balance. */
export const adjustDiamonds = (userId: string, amount: number, note: string) =>
  adminApi<{ balance: number }>(`/admin/people/${encodeURIComponent(userId)}/diamonds`, {
    method: 'POST',
    body: { amount, note },
  })
