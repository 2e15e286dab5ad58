import { createHash } from 'node:crypto'
import { normalizeTagName, tagKey } from '#contracts/characters.ts'

/**
 * The slug of a new tag from its name: ASCII letters and digits joined by `-` (what tag filters in
 * URLs accept: `[a-z0-9-]{1,40}`). Names with no Latin letters (日本語, Русский) get a stable
 * `t-` + hash slug of the name's tagKey, so the same name (in any case or spacing) always lands on
 * the same tag.
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
  return `t-${createHash('sha256').update(tagKey(name)).digest('hex').slice(0, 12)}`
}

/**
 * The tag the user meant by what they typed: the slug itself, else a tag with that name in any
 * locale (compared by tagKey: case, width and spacing aside: a card's `Fantasy` is our
 * `fantasy`), else the tag whose slug a new tag of that name would get.
 */
export function findTag<T extends { slug: string; names: Record<string, string> }>(
  known: readonly T[],
  typed: string,
): T | undefined {
  const key = tagKey(typed)
  return (
    known.find((t) => t.slug === typed.trim()) ??
    known.find((t) => Object.values(t.names).some((name) => tagKey(name) === key)) ??
    known.find((t) => t.slug === slugForTag(typed))
  )
}

/**
 * A card's tag names as the form's tags, each once: matched to the site's tags (findTag), and
 * names that would land on the same tag (`Fantasy`, `fantasy`, `Sci-Fi`, `sci fi`) merged into
 * the first of them. Empty names are dropped.
 */
export function matchCardTags<T extends { slug: string; names: Record<string, string> }>(
  known: readonly T[],
  names: readonly string[],
  nameOf: (tag: T) => string,
): { slug: string | null; name: string }[] {
  const seen = new Set<string>()
  const out: { slug: string | null; name: string }[] = []
  for (const raw of names) {
    const name = raw.trim()
    if (tagKey(name) === '') continue
    const tag = findTag(known, name)
    const key = tag ? tag.slug : slugForTag(name)
    if (seen.has(key)) continue
    seen.add(key)
    out.push(tag ? { slug: tag.slug, name: nameOf(tag) } : { slug: null, name: normalizeTagName(name) })
  }
  return out
}
