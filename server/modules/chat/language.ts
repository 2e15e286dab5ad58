import { languageTag } from '#contracts/chat-language.ts'
import { LOCALE_NAMES, type Locale } from '#contracts/locales.ts'

/**
 * The language a chat's model writes in (ADR 038): the chat's own choice, else the interface's
 * language of the request. Told to the model in English (every model follows English instructions
 * best), naming the language in English and in itself, so a model that knows only one of the names
 * still recognises it.
 */

/** The chat's language when it has one, else the language of the interface the request came from. */
export function chatLanguage(own: Locale | null | undefined, requestLocale: Locale | null | undefined): Locale | null {
  return own ?? requestLocale ?? null
}

const englishNames = new Intl.DisplayNames('en', { type: 'language' })

/** "Japanese (日本語)"; "English" alone where both names are one. */
export function languageLabel(locale: Locale): string {
  const english = englishNames.of(languageTag(locale)) ?? LOCALE_NAMES[locale]
  const own = LOCALE_NAMES[locale]
  return english === own ? english : `${english} (${own})`
}

/**
 * The last line of a reply's system prompt, after the card's own system prompt and the character's
 * details, so no card removes it. Null language: the one the user writes in.
 */
export function replyLanguageInstruction(locale: Locale | null): string {
  return locale
    ? `Write your reply in ${languageLabel(locale)}, whatever language the text above is in.`
    : 'Write your reply in the language {{user}} writes in.'
}

/** The language of a memory summary, in the same words. */
export function summaryLanguageInstruction(locale: Locale | null): string {
  return locale ? `in ${languageLabel(locale)}` : 'in the language of the conversation'
}
