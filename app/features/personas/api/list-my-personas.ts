import { api } from '#app/lib/http.ts'
import type { MyPersonas } from '#contracts/personas.ts'

/** `GET /api/my/personas`: all of the user's personas (at most 20, one page), oldest first. */
export const listMyPersonas = (signal?: AbortSignal) =>
  api<MyPersonas>('/my/personas', { query: { pageSize: 20 }, signal, cache: 'no-cache' })
