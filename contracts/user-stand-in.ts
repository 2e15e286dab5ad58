import type { Locale } from './locales.ts'

/**
 * The neutral word `{{user}}` stands for where no name is known (the character page for a visitor
 * not signed in, its meta texts, cards): "you" in the language of the TEXT it goes into, which is
 * not always the page's (a character shown in its source language, ADR 039). Moved here from
 * `catalogue:role.userStandIn` so the server and any page pick it by the text's language.
 */
export const USER_STAND_IN: Record<Locale, string> = {
  en: 'you',
  'zh-cn': '你',
  'zh-tw': '你',
  es: 'tú',
  fr: 'vous',
  de: 'du',
  ja: 'あなた',
  ko: '당신',
  ru: 'ты',
  pt: 'você',
  ar: 'أنت',
  it: 'tu',
  hi: 'आप',
  th: 'คุณ',
  vi: 'bạn',
  id: 'kamu',
  ms: 'anda',
  nl: 'jij',
  sv: 'du',
  pl: 'ty',
  tr: 'sen',
}
