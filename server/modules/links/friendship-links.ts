import { readFileSync } from 'node:fs'
import path from 'node:path'
import { z } from 'zod'
import { DEFAULT_LOCALE, isLocale, LOCALES } from '#contracts/locales.ts'
import type { FriendshipLink, FriendshipLinks } from '#contracts/site.ts'
import { ConfigError } from '#server/config.ts'

export const LINKS_FILE = path.resolve(import.meta.dirname, '..', '..', '..', 'config', 'links.json')

const httpUrl = z.url().refine((value) => /^https?:\/\//i.test(value), 'must be an http:// or https:// URL')
const description = z.union([
  z.string().trim().min(1).max(300),
  // One description per locale; English is required and stands in for the others.
  z
    .record(z.string(), z.string().trim().min(1).max(300))
    .refine((value) => typeof value[DEFAULT_LOCALE] === 'string', 'needs an "en" description')
    .refine((value) => Object.keys(value).every(isLocale), `keys must be locales (${LOCALES.join(', ')})`),
])

export const linksFileSchema = z.array(
  z.object({ name: z.string().trim().min(1).max(80), url: httpUrl, description }).strict(),
)

/** A links file that cannot be used; `problems` name the entry and field of each. */
export class LinksFileError extends ConfigError {
  constructor(file: string, problems: string[]) {
    super(problems.map((problem) => `links file (${file}): ${problem}`))
    this.name = 'LinksFileError'
  }
}

/**
 * The friendship links of the links page, from `config/links.json`: name, URL and a description
 * (one text, or one per locale). Read and checked once at start; a bad file stops the start.
 */
export function loadFriendshipLinks(file: string = LINKS_FILE): FriendshipLinks {
  let raw: unknown
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    // No file: no links, and the page shows only the contact button.
    if (code === 'ENOENT') return { list: () => [] }
    throw new LinksFileError(file, [`not valid JSON (${(error as Error).message})`])
  }
  const parsed = linksFileSchema.safeParse(raw)
  if (!parsed.success) {
    throw new LinksFileError(
      file,
      parsed.error.issues.map((issue) => `${issue.path.join('.') || 'file'}: ${issue.message}`),
    )
  }
  const entries = parsed.data
  return {
    list(locale: string): FriendshipLink[] {
      return entries.map(({ name, url, description }) => {
        // A single description is English; one per locale picks the page's, else English.
        const own = typeof description === 'string' ? undefined : description[locale]
        return {
          name,
          url,
          description: own ?? (typeof description === 'string' ? description : (description[DEFAULT_LOCALE] ?? '')),
          descriptionLocale: own !== undefined ? locale : DEFAULT_LOCALE,
        }
      })
    },
  }
}
