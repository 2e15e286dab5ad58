import type { TFunction } from 'i18next'
import { isApiError } from '#app/lib/http.ts'
import type { PersonaFieldProblem } from '#contracts/personas.ts'

/** A refused field in the user's words (the server and the form use the same codes). */
export function personaFieldError(t: TFunction<'personas'>, problem: PersonaFieldProblem): string {
  if (problem.code === 'too_long') return t('fieldErrors.tooLong', { limit: problem.limit ?? 0 })
  // `too_many` is worded under `tooMany`: a key ending in `_many` would read as a plural form.
  if (problem.code === 'too_many') return t('fieldErrors.tooMany', { limit: problem.limit ?? 0 })
  return t('fieldErrors.required')
}

/** The persona fields a VALIDATION_ERROR refused, or none when the error is something else. */
export function refusedFields(error: unknown): PersonaFieldProblem[] {
  if (!isApiError(error, 'VALIDATION_ERROR') || !Array.isArray(error.details)) return []
  return error.details.flatMap((d) =>
    (d.path === 'name' || d.path === 'description' || d.path === 'personas') &&
    (d.code === 'required' || d.code === 'too_long' || d.code === 'too_many')
      ? [{ path: d.path, code: d.code, ...(d.limit === undefined ? {} : { limit: d.limit }) }]
      : [],
  )
}
