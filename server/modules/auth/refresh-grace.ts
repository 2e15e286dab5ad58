/**
 * Two tabs of one browser (or two calls of one page) may present the same refresh token at once:
 * the first rotates it, the second finds it used. Treating that second one as a stolen copy would
 * end the whole login (ADR 008), so a token used at most this long ago, whose login has not ended,
 * is accepted once more and gets a pair of its own in the same family (ADR 026). A use after the
 * window is still reuse and revokes the family: a thief must beat the owner by seconds, not hours.
 */
export const REFRESH_REUSE_GRACE_MS = 20_000

/** Whether a used refresh token was presented by a sibling request within the grace window. */
export function isSiblingRefresh(token: { usedAt: Date | null; revokedAt: Date | null }, now: number): boolean {
  if (!token.usedAt || token.revokedAt) return false
  const age = now - token.usedAt.getTime()
  return age >= 0 && age <= REFRESH_REUSE_GRACE_MS
}
