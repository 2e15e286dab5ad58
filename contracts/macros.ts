// {{char}} and {{user}} (SillyTavern, Character Card V2), and the older <BOT> and <USER>; any case.
const MACROS = /\{\{\s*(char|user)\s*\}\}|<(bot|user)>/gi

/**
 * A character's text with its name macros filled in: by the chat (the user's name) and by the
 * character page (the visitor's name, or a neutral word for a visitor not signed in).
 */
export function replaceMacros(text: string, names: { char: string; user: string }): string {
  return text.replace(MACROS, (_match, braced: string | undefined, angled: string | undefined) =>
    (braced ?? angled ?? '').toLowerCase() === 'user' ? names.user : names.char,
  )
}
