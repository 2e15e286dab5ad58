import { createHash } from 'node:crypto'

/**
 * The slug of a new tag from its name: ASCII letters and digits joined by `-` (what tag filters in
 * URLs accept: `[a-z0-9-]{1,40}`). Names with no Latin letters (日本語, Русский) get a stable
 * `t-` + hash slug, so the same name always lands on the same tag.
 */
export function slugForTag(name: string): string {
  const ascii = name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '')
  if (ascii.length >= 2) return ascii
  return `t-${createHash('sha256').update(name.trim().toLowerCase()).digest('hex').slice(0, 12)}`
}

/**
 * The tag the user meant by what they typed: the slug itself, else a tag with that name in any
 * locale (ignoring case), else the tag whose slug a new tag of that name would get.
 */
export function findTag<T extends { slug: string; names: Record<string, string> }>(
  known: readonly T[],
  typed: string,
): T | undefined {
  const lower = typed.trim().toLocaleLowerCase()
  return (
    known.find((t) => t.slug === typed) ??
    known.find((t) => Object.values(t.names).some((name) => name.toLocaleLowerCase() === lower)) ??
    known.find((t) => t.slug === slugForTag(typed))
  )
}
