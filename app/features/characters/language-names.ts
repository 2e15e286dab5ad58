import { languageTag } from '#contracts/chat-language.ts'
import { LOCALE_NAMES, LOCALE_TAGS, type Locale } from '#contracts/locales.ts'

/** A language's names: in the interface's language (`Intl.DisplayNames`) and in itself. */
export type LanguageName = { inInterface: string; own: string }

/**
 * Names languages for a page in `uiLocale`. One `Intl.DisplayNames` per call: make it once per
 * render and ask it for every locale.
 */
export function languageNamer(uiLocale: Locale): (locale: Locale) => LanguageName {
  let names: Intl.DisplayNames | null = null
  try {
    names = new Intl.DisplayNames(LOCALE_TAGS[uiLocale], { type: 'language' })
  } catch {
    // A runtime without the locale's data: the names in themselves only.
  }
  return (locale) => ({
    inInterface: names?.of(languageTag(locale)) ?? LOCALE_NAMES[locale],
    own: LOCALE_NAMES[locale],
  })
}

/**
 * One line for a select's option: "Japanese · 日本語", as the chat's language setting names them;
 * just "日本語" where both names are the same (the interface's own language).
 */
export function languageLabel({ inInterface, own }: LanguageName): string {
  return inInterface === own ? own : `${inInterface} · ${own}`
}
