/**
 * Where to go after logging in: `redirect_url` only when it is a path on this site (never another
 * origin, `//evil.example`, `/\evil.example` or a `javascript:` URL); otherwise the fallback.
 */
export function safeRedirectPath(value: string | null | undefined, fallback: string): string {
  if (!value?.startsWith('/') || value.startsWith('//') || value.includes('\\')) return fallback
  try {
    const url = new URL(value, 'http://same.origin')
    return url.origin === 'http://same.origin' ? url.pathname + url.search + url.hash : fallback
  } catch {
    return fallback
  }
}
