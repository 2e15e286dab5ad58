import unhomoglyph from 'unhomoglyph'

/**
 * The UTS #39 skeleton (Unicode Security Mechanisms, section 4): two strings that look alike have
 * the same skeleton. NFD, drop default-ignorable characters, map each character to its prototype
 * with the Unicode consortium's confusables data (shipped by `unhomoglyph`), NFD again. NFKC comes
 * first, as for identifiers: fullwidth and mathematical letters are their plain ones. A skeleton
 * is for comparing only, never for display.
 */
function skeleton(text: string): string {
  const decomposed = text
    .normalize('NFKC')
    .normalize('NFD')
    .replace(/\p{Default_Ignorable_Code_Point}/gu, '')
  return unhomoglyph(decomposed).normalize('NFD')
}

/**
 * What a username is compared by for look-alikes (ADR 022): its skeleton, lower-cased because
 * usernames ignore case ("Alice" and "alice" are one name), and the skeleton of that. So "аdmin"
 * with a Cyrillic а is "admin", "paypaI" with a capital I is "paypal", and "Вob" (Cyrillic В) is
 * "bob". Stored in `users.username_skeleton` under a unique index: one name per look.
 */
export function usernameSkeleton(username: string): string {
  return skeleton(skeleton(username).toLowerCase())
}
