// Loaded first by `npm start` (`node --import=./server/stripped-ts.mjs server/index.ts`): each of
// the server's `.ts` files is handed to Node as the JavaScript `npm run build` stripped ahead of
// time (scripts/strip-types.ts, ADR 070), so Node's own stripper, and the 20–30 MiB of RSS it
// keeps, never loads. A file without a twin in build/stripped (edited since, or never built) is stripped
// by Node as usual. JavaScript, not TypeScript: it runs before anything can be stripped.
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { registerHooks } from 'node:module'
import path from 'node:path'

const STRIPPED_DIR = path.resolve(import.meta.dirname, '..', 'build', 'stripped')

registerHooks({
  load(url, context, nextLoad) {
    if (context.format === 'module-typescript' && url.startsWith('file:')) {
      const source = readFileSync(new URL(url))
      // strippedName() of scripts/strip-types.ts, which this file cannot import; its test runs both.
      const name = `${createHash('sha256').update(source).digest('hex')}.js`
      let stripped
      try {
        stripped = readFileSync(path.join(STRIPPED_DIR, name), 'utf8')
      } catch {}
      if (stripped !== undefined) return { format: 'module', source: stripped, shortCircuit: true }
    }
    return nextLoad(url, context)
  },
})
