import { api } from '#app/lib/http.ts'
import type { EditableRole } from '#contracts/characters.ts'

/**
 * `POST /api/addRole` (create) or `PUT /api/roles/:id` (edit) with the form as multipart data
 * (built by `formDataOf` in ../form-state.ts). Refused fields come back as an ApiError whose
 * `details` list `{ path, code, limit }`.
 */
export function saveRole(body: FormData, options: { roleId: string | null; locale: string }) {
  return api<EditableRole>(options.roleId ? `/roles/${encodeURIComponent(options.roleId)}` : '/addRole', {
    method: options.roleId ? 'PUT' : 'POST',
    body,
    query: { locale: options.locale },
    // Two pictures of up to 5 MB each may take longer than a plain call on a slow line.
    timeoutMs: 60_000,
  })
}
