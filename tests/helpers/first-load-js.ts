import { readFileSync } from 'node:fs'
import path from 'node:path'
import { gzipSync } from 'node:zlib'

/**
 * The module scripts a page loads before it is interactive, from its HTML: the list the deferred
 * boot script preloads (`data-module-preloads`, see app/components/deferred-scripts.tsx) plus any
 * `<link rel="modulepreload">`. Each file once.
 */
function firstLoadScripts(html: string): string[] {
  const scripts = new Set<string>()
  for (const match of html.matchAll(/data-module-preloads="([^"]*)"/g)) {
    const list: unknown = JSON.parse(decodeAttribute(match[1] ?? '[]'))
    if (Array.isArray(list)) for (const src of list) if (typeof src === 'string') scripts.add(src)
  }
  for (const match of html.matchAll(/<link rel="modulepreload" href="([^"]+)"/g)) scripts.add(match[1] ?? '')
  return [...scripts].filter(Boolean)
}

/** The gzip (`-9`) size of each of those scripts in the built client folder, and their sum. */
export function firstLoadJsBytes(
  html: string,
  clientDir: string,
): { total: number; files: { src: string; bytes: number }[] } {
  const files = firstLoadScripts(html).map((src) => ({
    src,
    bytes: gzipSync(readFileSync(path.join(clientDir, src)), { level: 9 }).length,
  }))
  return { total: files.reduce((sum, file) => sum + file.bytes, 0), files }
}

function decodeAttribute(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
}
