import { api, apiFile } from '#app/lib/http.ts'
import type { AccountSummary, DeleteAccountBody } from '#contracts/account-schemas.ts'
import type { LogoutAllResult } from '#contracts/accounts-schemas.ts'

/** `GET /api/account`: name, e-mail, and whether deletion asks for the password or the e-mail. */
export const getAccount = (signal?: AbortSignal) => api<AccountSummary>('/account', { signal })

/** `GET /api/account/export`: everything stored about the user, handed to the browser as a file. */
export async function downloadMyData() {
  const { blob, fileName } = await apiFile('/account/export', { timeoutMs: 60_000 })
  const url = URL.createObjectURL(blob)
  const link = document.createElement('a')
  link.href = url
  link.download = fileName ?? 'taleweave-data.json'
  document.body.append(link)
  link.click()
  link.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

/** `POST /api/account/delete`: removes the account for good. */
export const deleteAccount = (body: DeleteAccountBody) =>
  api<{ message: 'deleted' }>('/account/delete', { method: 'POST', body })

/** `POST /api/logout-all`: ends every login of the user, this one included (ADR 021). */
export const logoutEverywhere = () => api<LogoutAllResult>('/logout-all', { method: 'POST' })
