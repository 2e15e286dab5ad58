import { takeEarlyResponse } from '#app/lib/early-requests.tsx'
import { clearTokens, getAccessToken, getRefreshToken, storeTokens } from '#app/lib/session.ts'
import { type ErrorCode, isErrorEnvelope, isPublicApiPath, REQUEST_TIMEOUT_MS } from '#contracts/api.ts'
import type { ErrorDetails } from '#contracts/api-errors.ts'
import { localizePath, splitLocalePath } from '#contracts/locales.ts'

/** The error every failed API call throws (spec section 8: error, details, message, code). */
export class ApiError extends Error {
  readonly error: ErrorCode | string
  readonly code: number
  readonly details: unknown

  constructor(code: number, error: ErrorCode | string, message: string, details?: unknown) {
    super(message)
    this.name = 'ApiError'
    this.code = code
    this.error = error
    this.details = details
  }
}

/** An ApiError with one of the codes `C`, its `details` typed for that code (contracts/api-errors.ts). */
export type ApiErrorOf<C extends ErrorCode> = C extends ErrorCode
  ? ApiError & { readonly error: C; readonly details: ErrorDetails<C> }
  : never

/** Whether `error` is a refusal with one of `codes`; then its `details` are read by type. */
export function isApiError<C extends ErrorCode>(error: unknown, ...codes: C[]): error is ApiErrorOf<C> {
  return error instanceof ApiError && (codes as string[]).includes(error.error)
}

export type ApiRequest = {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  /** A plain object is sent as JSON; FormData as multipart. */
  body?: unknown
  query?: Record<string, string | number | boolean | undefined | readonly string[]>
  /** Defaults to 10 s. A stream (apiStream) has no deadline but `idleTimeoutMs`. */
  timeoutMs?: number
  /** apiStream only: give up when no byte arrived for this long, the answer's headers included. */
  idleTimeoutMs?: number
  signal?: AbortSignal
  /** Extra request headers (the console token, ADR 054). */
  headers?: Record<string, string>
  /** `no-cache`: ask the server again even when the browser keeps an answer it may reuse. */
  cache?: RequestCache
  /**
   * `optional`: a call that also answers signed-out visitors (user info). A 401 still refreshes the
   * tokens and repeats the call like any other; if the login is over, the tokens are forgotten
   * quietly instead of opening the login page.
   */
  auth?: 'optional'
}

type Envelope<T> = { code: number; success: boolean; message: string; data: T }

/**
 * The one HTTP client of the app: bearer token, timeout, no retries, error envelope parsing.
 * On a 401 from a non-public call it refreshes the tokens once and repeats the call (the first
 * attempt was refused before doing anything); failing that it sends the user to the login page.
 */
export async function api<T>(path: string, request: ApiRequest = {}): Promise<T> {
  const sentToken = getAccessToken()
  const early = startedEarly(path, request, sentToken)
  // A call the page started before its scripts came (early-requests.tsx): its answer, else sent anew.
  const response = early ? await early.catch(() => send(path, request)) : await send(path, request)
  if (response.status === 401 && (request.auth === 'optional' || !isPublicApiPath(path))) {
    if (await refreshTokens(sentToken)) return parse<T>(await send(path, request), path)
    if (request.auth === 'optional') clearTokens()
    else goToLogin()
  }
  return parse<T>(response, path)
}

/** The answer of this very call when the page's inline script started it; only plain calls qualify. */
function startedEarly(path: string, request: ApiRequest, token: string | null) {
  if (request.query || request.headers || request.cache || request.signal || request.body instanceof FormData) return
  const method = request.method ?? (request.body === undefined ? 'GET' : 'POST')
  return takeEarlyResponse(method, path, request.body, token)
}

/**
 * A call whose answer is a stream (server-sent events): the same token handling as `api`, but the
 * response body is handed back to read. A refused call throws `ApiError` like `api` does.
 * There is no deadline: the call gives up (ApiError TIMEOUT, from `fetch` or from reading the body)
 * only when nothing at all arrived for `idleTimeoutMs` (default 10 s); the server's keep-alive
 * comments count as something (ADR 032).
 */
export async function apiStream(path: string, request: ApiRequest): Promise<Response> {
  const sentToken = getAccessToken()
  const idle = idleLimit(request.idleTimeoutMs ?? REQUEST_TIMEOUT_MS)
  try {
    let response = await send(path, request, idle.signal)
    if (response.status === 401) {
      idle.touch()
      if (await refreshTokens(sentToken)) response = await send(path, request, idle.signal)
      else goToLogin()
    }
    if (response.ok && response.body && response.headers.get('content-type')?.startsWith('text/event-stream')) {
      idle.touch()
      return new Response(watchedBody(response.body, idle), { status: response.status, headers: response.headers })
    }
    return await parse<never>(response, path)
  } catch (error) {
    idle.stop()
    throw error
  }
}

type IdleLimit = ReturnType<typeof idleLimit>

/**
 * A watchdog that aborts its signal (reason: ApiError TIMEOUT) when `touch` was not called for
 * `ms`; every `touch` starts the wait over, `stop` ends it.
 */
function idleLimit(ms: number) {
  const controller = new AbortController()
  let timer: ReturnType<typeof setTimeout> | undefined
  const touch = () => {
    clearTimeout(timer)
    if (controller.signal.aborted) return
    timer = setTimeout(
      () => controller.abort(new ApiError(408, 'TIMEOUT', `Nothing arrived for ${Math.round(ms / 1000)} s.`)),
      ms,
    )
  }
  touch()
  return { signal: controller.signal, touch, stop: () => clearTimeout(timer) }
}

/** The body as it arrives, each piece starting the idle wait over; reading fails with TIMEOUT when the limit hit. */
function watchedBody(body: ReadableStream<Uint8Array>, idle: IdleLimit): ReadableStream<Uint8Array> {
  const reader = body.getReader()
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done } = await reader.read()
        if (done) {
          idle.stop()
          controller.close()
          return
        }
        idle.touch()
        controller.enqueue(value)
      } catch (error) {
        idle.stop()
        controller.error(idle.signal.aborted ? idle.signal.reason : error)
      }
    },
    cancel(reason) {
      idle.stop()
      return reader.cancel(reason)
    },
  })
}

/**
 * A call whose answer is a file (a character card download): the same token handling as `api`;
 * the bytes come back as a Blob with the file name the server gave. A refusal throws `ApiError`.
 */
export async function apiFile(
  path: string,
  request: ApiRequest = {},
): Promise<{ blob: Blob; fileName: string | null }> {
  const sentToken = getAccessToken()
  let response = await send(path, request)
  if (response.status === 401 && !isPublicApiPath(path)) {
    if (await refreshTokens(sentToken)) response = await send(path, request)
    else goToLogin()
  }
  if (!response.ok) return parse<never>(response, path)
  return { blob: await response.blob(), fileName: fileNameOf(response.headers.get('content-disposition') ?? '') }
}

/**
 * The file name a `Content-Disposition` gives: `filename*=UTF-8''...` (RFC 5987, the name in its
 * own script) before the ASCII `filename="..."` fallback.
 */
export function fileNameOf(disposition: string): string | null {
  const encoded = /filename\*\s*=\s*UTF-8''([^;\s]+)/i.exec(disposition)?.[1]
  if (encoded) {
    try {
      return decodeURIComponent(encoded)
    } catch {
      // A malformed encoding: the ASCII name then.
    }
  }
  return /filename="([^"]+)"/.exec(disposition)?.[1] ?? null
}

/** `limit`: aborts the call as timed out; by default after `request.timeoutMs` (10 s). */
async function send(path: string, request: ApiRequest, limit?: AbortSignal): Promise<Response> {
  const url = new URL(`/api${path}`, window.location.origin)
  for (const [key, value] of Object.entries(request.query ?? {})) {
    if (value === undefined) continue
    if (Array.isArray(value)) for (const v of value) url.searchParams.append(key, v)
    else url.searchParams.set(key, String(value))
  }
  const headers = new Headers({ accept: 'application/json' })
  const token = getAccessToken()
  if (token) headers.set('authorization', `Bearer ${token}`)
  for (const [name, value] of Object.entries(request.headers ?? {})) headers.set(name, value)
  let body: BodyInit | undefined
  if (request.body instanceof FormData) body = request.body
  else if (request.body !== undefined) {
    headers.set('content-type', 'application/json')
    body = JSON.stringify(request.body)
  }
  const timeout = limit ?? AbortSignal.timeout(request.timeoutMs ?? REQUEST_TIMEOUT_MS)
  const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout
  try {
    return await fetch(url, {
      method: request.method ?? (body ? 'POST' : 'GET'),
      headers,
      body,
      signal,
      ...(request.cache ? { cache: request.cache } : {}),
    })
  } catch (error) {
    if (timeout.aborted) throw new ApiError(408, 'TIMEOUT', 'The request timed out.')
    if (request.signal?.aborted) throw error
    throw new ApiError(0, 'NETWORK_ERROR', 'The server could not be reached.')
  }
}

async function parse<T>(response: Response, path: string): Promise<T> {
  let payload: unknown
  try {
    payload = await response.json()
  } catch {
    payload = undefined
  }
  if (response.ok) {
    const envelope = payload as Envelope<T> | undefined
    if (envelope && envelope.code === 0 && envelope.success) return envelope.data
    throw new ApiError(500, 'INTERNAL_ERROR', `Invalid server response format from ${path}`)
  }
  if (isErrorEnvelope(payload)) {
    throw new ApiError(payload.code, payload.error, payload.message, payload.details)
  }
  throw new ApiError(response.status || 500, 'INTERNAL_ERROR', response.statusText || 'Unknown error')
}

let refreshing: Promise<boolean> | null = null

/** The Web Locks name every tab of this site refreshes under. */
export const REFRESH_LOCK = 'taleweave:refresh-tokens'

/**
 * One refresh at a time, however many calls hit a 401 together, in this tab and across tabs.
 * Every tab holds the same tokens (local storage), and the server takes a refresh token only once:
 * two tabs refreshing with it together would look like a stolen copy. So a refresh runs under a
 * lock shared by the tabs (Web Locks), and a tab that waited for it first looks whether another
 * tab has meanwhile stored a new access token; then it uses that one instead of refreshing again.
 * `sentToken` is the access token the refused call carried. Browsers without Web Locks refresh
 * directly; the server's grace for sibling refreshes covers them (ADR 026).
 */
function refreshTokens(sentToken: string | null): Promise<boolean> {
  if (!getRefreshToken()) return Promise.resolve(false)
  refreshing ??= (async () => {
    try {
      const locks = typeof navigator === 'undefined' ? undefined : navigator.locks
      return locks ? await locks.request(REFRESH_LOCK, () => refreshUnlessDone(sentToken)) : await refreshOnce()
    } finally {
      refreshing = null
    }
  })()
  return refreshing
}

async function refreshUnlessDone(sentToken: string | null): Promise<boolean> {
  const current = getAccessToken()
  if (current && current !== sentToken) return true
  return refreshOnce()
}

async function refreshOnce(): Promise<boolean> {
  const refreshToken = getRefreshToken()
  if (!refreshToken) return false
  try {
    const response = await send('/refresh', { method: 'POST', body: { refreshToken } })
    if (!response.ok) return false
    const envelope = (await response.json()) as Envelope<{ token: string; refreshToken: string }>
    if (envelope.code !== 0 || !envelope.data?.token) return false
    storeTokens(envelope.data)
    return true
  } catch {
    return false
  }
}

function goToLogin() {
  clearTokens()
  const { pathname, search } = window.location
  const { locale } = splitLocalePath(pathname)
  window.location.assign(`${localizePath(locale, '/login')}?redirect_url=${encodeURIComponent(pathname + search)}`)
}
