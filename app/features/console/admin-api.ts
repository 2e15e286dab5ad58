import { api, apiFile, isApiError } from '#app/lib/http.ts'
import { localizePath, splitLocalePath } from '#contracts/locales.ts'
import { clearConsoleToken, getConsoleToken } from './console-token.ts'

export type AdminRequest = { method?: string; body?: unknown; signal?: AbortSignal }
type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/**
 * Asks the user for a current code (the confirm dialog of the console layout) and renews the
 * fresh confirmation with it; resolves false when they cancel. Set by the mounted console layout.
 */
let confirmer: (() => Promise<boolean>) | null = null
/** Sends the user to the second-factor page; set by the console layout (a client-side navigation). */
let secondFactorOpener: (() => void) | null = null

export function setConfirmer(next: (() => Promise<boolean>) | null) {
  confirmer = next
}

export function setSecondFactorOpener(next: (() => void) | null) {
  secondFactorOpener = next
}

/** The console's second-factor page with the page to come back to, in the current locale. */
export function secondFactorPath(back = currentPath()): string {
  const { locale } = splitLocalePath(window.location.pathname)
  return `${localizePath(locale, '/console/second-factor')}?back=${encodeURIComponent(back)}`
}

function currentPath() {
  return window.location.pathname + window.location.search
}

function openSecondFactor() {
  clearConsoleToken()
  if (secondFactorOpener) secondFactorOpener()
  else window.location.assign(secondFactorPath())
}

function headers(): Record<string, string> {
  const token = getConsoleToken()
  return token ? { 'x-console-token': token } : {}
}

/**
 * A console call (`path` as for `api`, e.g. `/admin/audit?page=2`; a leading `/api` is accepted):
 * the bearer token as `api` sends it plus `X-Console-Token`. A 403 `SECOND_FACTOR_REQUIRED` forgets
 * the token and opens the second-factor page (the call still throws); `CONFIRMATION_REQUIRED`
 * opens the confirm-code dialog and, once confirmed, repeats the call once.
 */
export async function adminApi<T>(path: string, init: AdminRequest = {}): Promise<T> {
  const apiPath = path.startsWith('/api/') ? path.slice(4) : path
  const call = () =>
    api<T>(apiPath, {
      method: init.method as Method | undefined,
      body: init.body,
      signal: init.signal,
      headers: headers(),
    })
  try {
    return await call()
  } catch (error) {
    if (isApiError(error, 'SECOND_FACTOR_REQUIRED')) openSecondFactor()
    else if (isApiError(error, 'CONFIRMATION_REQUIRED') && confirmer && (await confirmer())) return call()
    throw error
  }
}

/** A console file (the audit CSV): fetched with both tokens, handed to the browser as a download. */
export async function adminDownload(path: string, fallbackName: string): Promise<void> {
  const apiPath = path.startsWith('/api/') ? path.slice(4) : path
  try {
    const { blob, fileName } = await apiFile(apiPath, { headers: headers(), timeoutMs: 60_000 })
    const url = URL.createObjectURL(blob)
    const link = document.createElement('a')
    link.href = url
    link.download = fileName ?? fallbackName
    document.body.append(link)
    link.click()
    link.remove()
    setTimeout(() => URL.revokeObjectURL(url), 10_000)
  } catch (error) {
    if (isApiError(error, 'SECOND_FACTOR_REQUIRED')) openSecondFactor()
    throw error
  }
}
