/**
 * The one owner of "a path on this site" (issue 16, item 9). Returns the value as a path of this
 * origin (`/…` with its query and hash), or null when a browser could read it as another origin
 * or a scheme: `//evil`, `/\evil`, `/.//evil` (which the URL parser turns into `//evil`),
 * `/%2F%2Fevil` and `/%5Cevil` (which some servers and proxies decode), control characters (the
 * URL parser drops tabs and newlines, so `/\t/evil` is `//evil`), `https:evil`, `javascript:`.
 * The check runs on the parsed and normalised result, so no spelling of a path slips past it.
 */
export function sameOriginPath(value: string | null | undefined): string | null {
  if (typeof value !== 'string' || !value.startsWith('/')) return null
  // Control characters (C0, DEL, C1) and backslashes never belong in a path we hand back.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing exactly those characters.
  if (/[\u0000-\u001f\u007f-\u009f\\]/.test(value)) return null
  let url: URL
  try {
    url = new URL(value, 'http://same.origin')
  } catch {
    return null
  }
  if (url.origin !== 'http://same.origin') return null
  const path = url.pathname + url.search + url.hash
  if (!path.startsWith('/') || startsLikeAnotherOrigin(url.pathname)) return null
  let decoded: string
  try {
    decoded = decodeURIComponent(url.pathname)
  } catch {
    return null
  }
  return startsLikeAnotherOrigin(decoded) ? null : path
}

function startsLikeAnotherOrigin(path: string): boolean {
  return path.startsWith('//') || path.startsWith('/\\')
}

/** Where to go after logging in: `redirect_url` when it is a path on this site, else the fallback. */
export function safeRedirectPath(value: string | null | undefined, fallback: string): string {
  return sameOriginPath(value) ?? fallback
}
