import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

// The chat page's first load (docs/architecture.md, "No zod in the pages' contracts"): zod (~24 kB gzip) must not come with it. The contracts the
// page takes constants and checks from import no zod; their schemas live in `*-schemas.ts` files
// the page imports types from only. This walks the page's static value imports (what the bundler
// puts in its first load; `import type` is erased, `import()` loads later) and names any module on
// the way that brings zod.

const ROOT = path.resolve(import.meta.dirname, '..', '..')
const ALIASES: Record<string, string> = {
  '#app/': 'app/',
  '#contracts/': 'contracts/',
  '#locales/': 'locales/',
  '#server/': 'server/',
  '#db/': 'db/',
}

function resolve(specifier: string, from: string): string | null {
  const alias = Object.keys(ALIASES).find((prefix) => specifier.startsWith(prefix))
  let target: string
  if (alias) target = path.join(ROOT, ALIASES[alias] as string, specifier.slice(alias.length))
  else if (specifier.startsWith('.')) target = path.resolve(path.dirname(from), specifier)
  else return null
  target = target.replace(/\?.*$/, '')
  return /\.(tsx?|js)$/.test(target) && existsSync(target) ? target : null
}

/**
 * The module specifiers a file imports for their values (statically). The code is formatted by
 * Biome, so every import or re-export statement starts a line; `import type` and `export type`
 * are erased, `import { type A }` is not (verbatimModuleSyntax keeps the module).
 */
function valueImports(file: string): string[] {
  const code = readFileSync(file, 'utf8')
  const specifiers: string[] = []
  for (const match of code.matchAll(/^(?:import|export)\s+(type\s+)?(?:[^;'"]*?\s+from\s+)?'([^']+)'/gm)) {
    if (!match[1]) specifiers.push(match[2] as string)
  }
  return specifiers
}

/** Every path from `entry` to a module that imports `pkg` for its values. */
function pathsTo(entry: string, pkg: string): string[][] {
  const found: string[][] = []
  const seen = new Set<string>()
  const walk = (file: string, trail: string[]) => {
    if (seen.has(file)) return
    seen.add(file)
    const here = [...trail, path.relative(ROOT, file)]
    for (const specifier of valueImports(file)) {
      if (specifier === pkg || specifier.startsWith(`${pkg}/`)) found.push(here)
      const next = resolve(specifier, file)
      if (next) walk(next, here)
    }
  }
  walk(entry, [])
  return found
}

describe("the chat page's first load", () => {
  it('brings no zod: its contracts give constants without schemas', () => {
    expect(pathsTo(path.join(ROOT, 'app/routes/chat.tsx'), 'zod')).toEqual([])
  })

  it('the walk finds zod where a page does bring it (the check can fail)', () => {
    // The audit page of the console reads its filters with a schema of `admin-staff.ts`.
    expect(pathsTo(path.join(ROOT, 'app/routes/console-audit.tsx'), 'zod')).toContainEqual([
      'app/routes/console-audit.tsx',
      'contracts/admin-staff.ts',
    ])
  })
})
