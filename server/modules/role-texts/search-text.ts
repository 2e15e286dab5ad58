import { DEFAULT_LOCALE, isLocale, type Locale } from '#contracts/locales.ts'
import { searchWords } from '#contracts/search-words.ts'

type TagNames = Record<string, string>

/**
 * A role's own search text: its name and introduction split in its source language, and every
 * name of its tags each split in its own language (a tag is found by its name in any language).
 * The catalogue repo (seeding) and the characters repo (saving) write it with this.
 */
export function roleSearchText(
  role: { name: string; introduction: string; sourceLanguage: string },
  tags: TagNames[],
): string {
  const language = isLocale(role.sourceLanguage) ? role.sourceLanguage : DEFAULT_LOCALE
  const tagWords = tags.flatMap((names) =>
    Object.entries(names).map(([locale, name]) => searchWords(name, isLocale(locale) ? locale : DEFAULT_LOCALE)),
  )
  return [searchWords(`${role.name} ${role.introduction}`, language), ...tagWords].filter(Boolean).join(' ')
}

/** A translation's search text: its name, the tags' names in its locale and its introduction (design of issue 20). */
export function translationSearchText(
  locale: Locale,
  texts: { name: string; introduction: string },
  tags: TagNames[],
): string {
  const tagNames = tags.map((names) => names[locale] ?? names[DEFAULT_LOCALE] ?? '')
  return searchWords([texts.name, ...tagNames, texts.introduction].join(' '), locale)
}
