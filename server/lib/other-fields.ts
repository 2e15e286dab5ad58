/**
 * The fields we do not know: the one owner of keeping what a file brings beyond the fields its
 * reader maps, so that it goes out again (character cards, ADR 046; lorebook files, ADR 043).
 *
 * A reader takes them aside with `fieldsOutside`; a writer puts them back after its own fields
 * with `addOtherFields`, which never overwrites a field already written: ours always win. Every
 * field is defined as an own property, so a key named `__proto__` (an own field once JSON.parse
 * has read it) stays a plain key and changes no prototype.
 *
 * Where they are kept between reading and writing is the caller's: a card's draft holds them under
 * names of ours (`otherCardFields`, `otherDataFields`, a lorebook's and each entry's `otherFields`,
 * pruned and bounded by the card reader), because the card form's schemas strip everything else;
 * a standalone lorebook keeps them on the book and its entries under their own names (it is
 * stored as a loose object).
 */

type Json = Record<string, unknown>

/** `target[key] = value` as an own, enumerable field, also for a key named `__proto__`. */
export function putField(target: Json, key: string, value: unknown) {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

/**
 * The fields of `source` that none of the `known` sets names, in their order (undefined values
 * left out: JSON has none). Object.fromEntries defines own fields, so `__proto__` stays a key.
 */
export function fieldsOutside(source: object, ...known: ReadonlySet<string>[]): Json {
  return Object.fromEntries(
    Object.entries(source).filter(([key, value]) => value !== undefined && !known.some((set) => set.has(key))),
  )
}

/**
 * Adds the fields we do not know to `target` after its own: a field `target` already has is left
 * as it is. Returns `target`.
 */
export function addOtherFields<T extends Json>(target: T, others: Json | undefined): T {
  for (const [key, value] of Object.entries(others ?? {})) {
    if (!Object.hasOwn(target, key)) putField(target, key, value)
  }
  return target
}
