// Checks every locale against English, the source: same keys, same placeholders, the plural forms
// each language needs (and English counts that lack them), no English left untranslated (bar a
// reviewed list), and no key the code never uses, and the style rules of scripts/locale-style.ts
// (terms, punctuation, register) in the locale files and the blog's translations. Run by `npm test`
// (scripts/check-locales.test.ts) and directly: `node scripts/check-locales.ts`.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { markdownEntries, type StyleRules, styleProblems } from './locale-style.ts'

export type LocaleCheckOptions = {
  localesDir: string
  /** Folders whose source files must mention each key; omit to skip the unused-key check. */
  sourceDirs?: string[]
  /** `{ "*": { ns: [keys] }, "<locale>": { ns: [keys] } }`: values allowed to equal English. */
  identicalAllowed?: Record<string, Record<string, string[]>>
  /** Terms, punctuation and register per locale (scripts/locale-glossary.json); omit to skip. */
  style?: StyleRules
  /** `content/blog`: the style rules also hold for the articles' translations (`<slug>/<locale>.md`). */
  blogDir?: string
}

const PLURAL_SUFFIX = /_(zero|one|two|few|many|other)$/
const PLACEHOLDER = /\{\{\s*[\w.]+\s*(?:,[^}]*)?\}\}|\$t\([^)]*\)/g

type Flat = Map<string, string>

function flatten(value: unknown, prefix = '', out: Flat = new Map()): Flat {
  if (typeof value === 'string') out.set(prefix, value)
  else if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}.${k}` : k, out)
  } else out.set(prefix, String(value))
  return out
}

function readJson(file: string): unknown {
  return JSON.parse(readFileSync(file, 'utf8'))
}

function placeholders(text: string): string {
  return [...text.matchAll(PLACEHOLDER)]
    .map((m) => m[0].replace(/\s+/g, ''))
    .sort()
    .join(' ')
}

function pluralRules(locale: string): Intl.PluralRules {
  return new Intl.PluralRules(locale === 'zh-cn' ? 'zh-CN' : locale === 'zh-tw' ? 'zh-TW' : locale)
}

function pluralCategories(locale: string): string[] {
  return pluralRules(locale).resolvedOptions().pluralCategories.slice().sort()
}

/**
 * The plural forms that stand for one number only (Arabic `zero`, `one` and `two`; `one` in English
 * or Polish, but not in French or Russian, where it is also 0 or 21): such a form may say the number
 * in words and leave out `{{count}}` ("مقالتان", not "2 مقالتان").
 */
function singleNumberForms(locale: string): Set<string> {
  const rules = pluralRules(locale)
  const numbers = new Map<string, number>()
  for (let n = 0; n <= 1000; n++) {
    const form = rules.select(n)
    numbers.set(form, (numbers.get(form) ?? 0) + 1)
  }
  return new Set([...numbers].filter(([, count]) => count === 1).map(([form]) => form))
}

const COUNT_PLACEHOLDER = /\{\{\s*count\s*(?:,[^}]*)?\}\}/
const COUNT_PLACEHOLDERS = new RegExp(COUNT_PLACEHOLDER, 'g')
/**
 * A number shown with a word after it in English ("{{count, number}} people", "{{max, number}}
 * characters"): the word's form depends on the number, so the key must have plural forms.
 * A placeholder formatted as a number or named like one (count, limit, max...), then a lowercase
 * word ("from {{min}} to" is fine).
 */
const COUNTED_WORD =
  /\{\{\s*(?:(?:count|limit|max|min|total|seconds|minutes|hours|days)\s*(?:,[^}]*)?|\w+\s*,\s*number\s*)\}\}\s*(\p{Ll}{2,})/gu
const NOT_COUNTED = new Set(['of', 'to', 'or', 'and', 'out', 'for', 'from', 'in'])

/** Groups `x_one`, `x_other` under `x`; other keys stand alone. */
function pluralBases(keys: Iterable<string>): { plain: Set<string>; plural: Map<string, Set<string>> } {
  const plain = new Set<string>()
  const plural = new Map<string, Set<string>>()
  for (const key of keys) {
    const match = PLURAL_SUFFIX.exec(key)
    if (match) {
      const base = key.slice(0, -match[0].length)
      const set = plural.get(base) ?? new Set<string>()
      set.add(match[1] ?? '')
      plural.set(base, set)
    } else plain.add(key)
  }
  return { plain, plural }
}

function sourceText(dirs: string[]): string {
  const parts: string[] = []
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (name === 'node_modules' || name.startsWith('.')) continue
      const full = path.join(dir, name)
      if (statSync(full).isDirectory()) walk(full)
      else if (/\.(ts|tsx)$/.test(name) && !/\.test\.tsx?$/.test(name)) parts.push(readFileSync(full, 'utf8'))
    }
  }
  for (const dir of dirs) walk(dir)
  return parts.join('\n')
}

/**
 * A key counts as used when its full path appears in the code (plain or as `ns:key`), or a
 * template prefix covering it (`apiErrors.${code}`).
 */
function isUsed(key: string, namespace: string, code: string): boolean {
  for (const name of [key, `${namespace}:${key}`]) {
    if (code.includes(`'${name}'`) || code.includes(`"${name}"`) || code.includes(`\`${name}\``)) return true
    const segments = name.split('.')
    for (let i = segments.length - 1; i > 0; i--) {
      if (code.includes(`\`${segments.slice(0, i).join('.')}.\${`)) return true
    }
  }
  return false
}

export function checkLocales(options: LocaleCheckOptions): string[] {
  const problems: string[] = []
  const { localesDir } = options
  const locales = readdirSync(localesDir).filter((d) => statSync(path.join(localesDir, d)).isDirectory())
  if (!locales.includes('en')) return [`${localesDir}: no English (en) folder`]
  const namespaces = readdirSync(path.join(localesDir, 'en'))
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.slice(0, -5))
  const allowed = options.identicalAllowed ?? {}
  const code = options.sourceDirs ? sourceText(options.sourceDirs) : null

  for (const ns of namespaces) {
    const english = flatten(readJson(path.join(localesDir, 'en', `${ns}.json`)))
    const englishGroups = pluralBases(english.keys())

    for (const key of englishGroups.plain) {
      const words = [...(english.get(key) ?? '').matchAll(COUNTED_WORD)].map((m) => m[1] ?? '')
      const word = words.find((w) => !NOT_COUNTED.has(w))
      if (word) {
        problems.push(`en/${ns}: "${key}" counts "${word}" without plural forms; make it ${key}_one, ${key}_other`)
      }
    }

    if (code) {
      const bases = [...englishGroups.plain, ...englishGroups.plural.keys()]
      for (const key of bases) if (!isUsed(key, ns, code)) problems.push(`en/${ns}: "${key}" is not used in the code`)
    }

    for (const locale of locales) {
      if (locale === 'en') continue
      const file = path.join(localesDir, locale, `${ns}.json`)
      let translated: Flat
      try {
        translated = flatten(readJson(file))
      } catch (error) {
        problems.push(`${locale}/${ns}: missing or invalid JSON (${(error as Error).message})`)
        continue
      }
      const groups = pluralBases(translated.keys())
      const where = `${locale}/${ns}`
      for (const key of englishGroups.plain) if (!groups.plain.has(key)) problems.push(`${where}: missing "${key}"`)
      for (const key of groups.plain) if (!englishGroups.plain.has(key)) problems.push(`${where}: extra "${key}"`)
      const needed = pluralCategories(locale)
      const single = singleNumberForms(locale)
      for (const [base] of englishGroups.plural) {
        const have = [...(groups.plural.get(base) ?? [])].sort()
        if (have.join() !== needed.join()) {
          problems.push(`${where}: "${base}" needs plural forms ${needed.join(', ')}, has ${have.join(', ') || 'none'}`)
        }
      }
      for (const [base] of groups.plural)
        if (!englishGroups.plural.has(base)) problems.push(`${where}: extra plural "${base}"`)

      if (options.style) problems.push(...styleProblems(locale, ns, translated, options.style))

      const allowList = new Set([...(allowed['*']?.[ns] ?? []), ...(allowed[locale]?.[ns] ?? [])])
      for (const [key, value] of translated) {
        const pluralMatch = PLURAL_SUFFIX.exec(key)
        const englishValue =
          english.get(key) ?? (pluralMatch ? english.get(`${key.slice(0, -pluralMatch[0].length)}_other`) : undefined)
        if (englishValue === undefined) continue
        // A form for one number only may say it in words: then its placeholders are compared without count.
        const inWords = Boolean(pluralMatch && single.has(pluralMatch[1] ?? '') && !COUNT_PLACEHOLDER.test(value))
        const samePlaceholders =
          placeholders(value) === placeholders(englishValue) ||
          (inWords && placeholders(value) === placeholders(englishValue.replace(COUNT_PLACEHOLDERS, '')))
        if (!samePlaceholders) {
          problems.push(
            `${where}: "${key}" placeholders {${placeholders(value)}} differ from English {${placeholders(englishValue)}}`,
          )
        }
        if (value.trim() === '') problems.push(`${where}: "${key}" is empty`)
        else if (value === englishValue && !allowList.has(key)) {
          problems.push(`${where}: "${key}" is still English ("${value}")`)
        }
      }
    }
  }
  if (options.style && options.blogDir) problems.push(...blogStyleProblems(options.blogDir, options.style))
  for (const locale of locales) {
    for (const file of readdirSync(path.join(localesDir, locale))) {
      if (file.endsWith('.json') && !namespaces.includes(file.slice(0, -5))) {
        problems.push(`${locale}/${file}: namespace has no English source`)
      }
    }
  }
  return problems
}

/** The house style in the blog's translations: `<locale>/blog/<slug>: "line 12" says ...`. */
function blogStyleProblems(blogDir: string, style: StyleRules): string[] {
  const problems: string[] = []
  for (const slug of readdirSync(blogDir)) {
    const folder = path.join(blogDir, slug)
    if (!statSync(folder).isDirectory()) continue
    for (const file of readdirSync(folder)) {
      const locale = file.slice(0, -3)
      if (!file.endsWith('.md') || locale === 'en') continue
      const entries = markdownEntries(readFileSync(path.join(folder, file), 'utf8'))
      problems.push(...styleProblems(locale, `blog/${slug}`, entries, style))
    }
  }
  return problems
}

export function checkProjectLocales(): string[] {
  const root = path.resolve(import.meta.dirname, '..')
  return checkLocales({
    localesDir: path.join(root, 'locales'),
    sourceDirs: [path.join(root, 'app'), path.join(root, 'server')],
    identicalAllowed: readJson(path.join(root, 'locales', 'identical-allowlist.json')) as Record<
      string,
      Record<string, string[]>
    >,
    style: readJson(path.join(root, 'scripts', 'locale-glossary.json')) as StyleRules,
    blogDir: path.join(root, 'content', 'blog'),
  })
}

if (import.meta.main) {
  const problems = checkProjectLocales()
  for (const p of problems) console.error(p)
  console.log(problems.length === 0 ? 'locales: all good' : `locales: ${problems.length} problem(s)`)
  process.exit(problems.length === 0 ? 0 : 1)
}
