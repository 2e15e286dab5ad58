/**
 * A value read from elsewhere (the database), asked at most every `maxAgeMs`: calls meanwhile share
 * the last answer, or the read in flight. `forget()` makes the next call read anew, and an answer to
 * a read started before it is not remembered, nor is such a read joined. With `maxAgeMs` 0 every
 * call reads.
 *
 * The catalogue version (ADR 062) is read this way: a change made through this instance shows on its
 * very next request (its writes call `forget`), one made elsewhere (another instance, a background
 * job) within `maxAgeMs`.
 */
export function throttledRead<T>(read: () => Promise<T>, maxAgeMs: number) {
  let remembered: { value: T; askedAt: number } | null = null
  let flight: Promise<T> | null = null
  let epoch = 0
  return {
    get(): T | Promise<T> {
      if (maxAgeMs <= 0) return read()
      const now = performance.now()
      if (remembered && now - remembered.askedAt < maxAgeMs) return remembered.value
      if (!flight) {
        const asked = epoch
        const query = read()
          .then((value) => {
            if (epoch === asked) remembered = { value, askedAt: now }
            return value
          })
          .finally(() => {
            if (flight === query) flight = null
          })
        flight = query
      }
      return flight
    },
    forget() {
      epoch++
      remembered = null
      flight = null
    },
  }
}
