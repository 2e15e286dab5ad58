import { randomBytes } from 'node:crypto'
import path from 'node:path'
import { reactRouter } from '@react-router/dev/vite'
import tailwindcss from '@tailwindcss/vite'
import { defineConfig, type Plugin } from 'vite'

// One id per build, shared by the client and server bundles (the config is read once per build).
process.env.BUILD_ID ??= `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`
const buildId = process.env.BUILD_ID
const buildTimestamp = Date.now()

/**
 * Writes `builds/latest.json` and `builds/meta/<id>.json` into the client output. The browser polls
 * the first to learn that a newer build is deployed (spec section 7).
 */
function buildMetadata(): Plugin {
  return {
    name: 'build-metadata',
    applyToEnvironment: (environment) => environment.name === 'client',
    generateBundle() {
      const info = JSON.stringify({ id: buildId, timestamp: buildTimestamp })
      this.emitFile({ type: 'asset', fileName: 'builds/latest.json', source: info })
      this.emitFile({ type: 'asset', fileName: `builds/meta/${buildId}.json`, source: info })
    },
  }
}

const ZOD_CORE = /[\\/]node_modules[\\/]zod[\\/]v4[\\/]core[\\/]core\.js$/

/**
 * zod in the browser without `new Function`: zod compiles object parsers with it, and even its
 * guarded probe (`try { new Function('') }`) is reported as a CSP violation by the page's policy,
 * which allows no eval (a console error on every page that loads a schema). `z.config({ jitless:
 * true })` is zod's switch for CSP pages; set here where zod defines its config, so it holds before
 * any schema is built, whichever chunk loads first. The server keeps the compiled parsers.
 */
function zodWithoutEval(): Plugin {
  return {
    name: 'zod-without-eval',
    applyToEnvironment: (environment) => environment.name === 'client',
    transform(code, id) {
      if (!ZOD_CORE.test(id)) return null
      if (!code.includes('export function config(')) throw new Error(`zod-without-eval: no config() in ${id}`)
      return { code: `${code}\nconfig({ jitless: true });\n`, map: null }
    },
  }
}

const LUCIDE_FACTORY = /[\\/]node_modules[\\/]lucide-react[\\/]dist[\\/]esm[\\/]createLucideIcon\.mjs$/
const OWN_LUCIDE_FACTORY = path.resolve(import.meta.dirname, 'app/lib/lucide-icon.ts')

const LUCIDE_ICON = /[\\/]node_modules[\\/]lucide-react[\\/]dist[\\/]esm[\\/]icons[\\/][^\\/]+\.mjs$/

/**
 * lucide-react's icons built with our own factory (app/lib/lucide-icon.ts, ADR 066): the same
 * markup for less JavaScript in every page's first load. Every icon module imports the factory by
 * a relative path; only that file of lucide-react is replaced. The icons' shapes lose their React
 * keys (`key: "5wwlr5"`), which our factory does not need.
 */
function smallerIcons(): Plugin {
  let icons = 0
  let replaced = false
  return {
    name: 'smaller-icons',
    enforce: 'pre',
    buildStart() {
      icons = 0
      replaced = false
    },
    async resolveId(source, importer, options) {
      if (!importer || !source.endsWith('createLucideIcon.mjs')) return null
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true })
      if (!resolved || !LUCIDE_FACTORY.test(resolved.id)) return null
      replaced = true
      return OWN_LUCIDE_FACTORY
    },
    transform(code, id) {
      if (!LUCIDE_ICON.test(id)) return null
      icons += 1
      return { code: code.replace(/,\s*key: "[^"]*"/g, ''), map: null }
    },
    buildEnd() {
      // A lucide-react that names or places its factory otherwise would quietly bring its own back.
      if (icons > 0 && !replaced)
        this.error('smaller-icons: lucide-react icons built, but its factory was not replaced')
    },
  }
}

const BROWSER_ENTITIES = path.resolve(import.meta.dirname, 'app/lib/html-entities.browser.ts')
const MARKDOWN_IT = /[\\/]node_modules[\\/]markdown-it[\\/]/

/**
 * markdown-it in the browser decodes `&name;` with the browser's HTML parser
 * (app/lib/html-entities.browser.ts, ADR 071) instead of the `entities` package's table of every
 * name; the server build keeps the package. Fails the build if markdown-it stops importing it (and
 * the bundler fails it if markdown-it asks for more than the one function replaced).
 */
function browserEntities(): Plugin {
  let replaced = false
  return {
    name: 'browser-entities',
    enforce: 'pre',
    // Builds only: the dev server pre-bundles markdown-it with the whole package.
    apply: 'build',
    applyToEnvironment: (environment) => environment.name === 'client',
    buildStart() {
      replaced = false
    },
    resolveId(source, importer) {
      if (source !== 'entities' || !importer || !MARKDOWN_IT.test(importer)) return null
      replaced = true
      return BROWSER_ENTITIES
    },
    buildEnd() {
      if (!replaced) this.error('browser-entities: markdown-it no longer imports `entities`; check ADR 071')
    },
  }
}

type ModuleGraph = { getModuleInfo(id: string): { importers: readonly string[] } | null }

/** Entry points whose static imports every page loads: the browser entry and the root route. */
const SHELL_ENTRIES = /[\\/]app[\\/](entry\.client|root)\.tsx$/
const BARRELS = /[\\/]node_modules[\\/]lucide-react[\\/]dist[\\/]esm[\\/]lucide-react\.mjs$/
/** The libraries of the shell, in two chunks of their own (they change less often than the app). */
const VENDOR_CHUNKS: [RegExp, string][] = [
  [/[\\/]node_modules[\\/](react|react-dom|scheduler)[\\/]/, 'react'],
  [/[\\/]node_modules[\\/]react-router[\\/]/, 'router'],
]

/**
 * Chunks for what every page loads (the shell): a few mid-sized files instead of dozens of tiny
 * shared ones, which over HTTP/1.1 cost a round trip each. A module belongs to the shell when the
 * browser entry or the root route imports it statically, directly or through other modules.
 */
function shellChunkName() {
  const inShell = new Map<string, boolean>()
  const reachable = (id: string, graph: ModuleGraph, seen: Set<string>): boolean => {
    const known = inShell.get(id)
    if (known !== undefined) return known
    if (SHELL_ENTRIES.test(id)) return true
    if (seen.has(id)) return false
    seen.add(id)
    // A re-exporting index (lucide-react's) reaches everything it lists; what is used from it is
    // only known after tree-shaking, so it does not pull its modules into the shell.
    if (BARRELS.test(id)) return false
    return (graph.getModuleInfo(id)?.importers ?? []).some((importer) => reachable(importer, graph, seen))
  }
  return (id: string, graph: ModuleGraph): string | null => {
    let shell = inShell.get(id)
    if (shell === undefined) {
      shell = reachable(id, graph, new Set())
      inShell.set(id, shell)
    }
    if (!shell) return null
    for (const [pattern, name] of VENDOR_CHUNKS) if (pattern.test(id)) return name
    return 'shell'
  }
}

export default defineConfig({
  plugins: [tailwindcss(), reactRouter(), buildMetadata(), zodWithoutEval(), smallerIcons(), browserEntities()],
  define: {
    __BUILD_ID__: JSON.stringify(buildId),
  },
  build: { target: 'es2022' },
  // Bundled into the server build, not loaded from node_modules: the server then holds the few
  // dozen icons the pages use (with the factory above) instead of lucide-react's whole CommonJS
  // build (1.3 MB of source kept in memory, and every icon of the set created at start).
  ssr: { noExternal: ['lucide-react'] },
  environments: {
    client: {
      build: {
        rolldownOptions: { output: { codeSplitting: { groups: [{ name: shellChunkName() }] } } },
      },
    },
  },
})
