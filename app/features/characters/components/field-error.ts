import type { TFunction } from 'i18next'
import type { FieldProblem } from '#contracts/characters.ts'

const MiB = 1024 * 1024

/** A refused field in the user's words (the server and the form use the same codes). */
export function fieldErrorText(t: TFunction<'characters-edit'>, problem: FieldProblem): string {
  if (problem.code === 'file_too_large') {
    return t('fieldErrors.file_too_large', { size: Math.round((problem.limit ?? 0) / MiB) })
  }
  if (problem.code === 'too_large') return t('fieldErrors.too_large', { size: Math.round((problem.limit ?? 0) / MiB) })
  // `too_many` is worded under `tooMany`: a key ending in `_many` would read as a plural form.
  if (problem.code === 'too_many') return t('fieldErrors.tooMany', { limit: problem.limit ?? 0 })
  if (problem.code === 'too_long') return t('fieldErrors.too_long', { count: problem.limit ?? 0 })
  return t(`fieldErrors.${problem.code}`)
}
