/**
 * Splits `<think>…</think>` blocks out of streamed content, for servers that do not move reasoning
 * to `reasoning_content` themselves (DeepSeek-R1 and Qwen 3 templates without a reasoning parser).
 * A tag may arrive split over deltas: a tail that could be the start of one is held back until
 * the next delta says what it is.
 */
const OPEN = '<think>'
const CLOSE = '</think>'

export type Parts = { content: string; reasoning: string }

export function createThinkSplitter() {
  let inside = false
  let held = ''

  /** How many trailing characters of `text` could begin `tag`. */
  function partialTail(text: string, tag: string): number {
    for (let n = Math.min(tag.length - 1, text.length); n > 0; n--) {
      if (text.endsWith(tag.slice(0, n))) return n
    }
    return 0
  }

  return {
    push(delta: string): Parts {
      let text = held + delta
      held = ''
      const out: Parts = { content: '', reasoning: '' }
      for (;;) {
        const tag = inside ? CLOSE : OPEN
        const at = text.indexOf(tag)
        if (at === -1) {
          const keep = partialTail(text, tag)
          held = text.slice(text.length - keep)
          const part = text.slice(0, text.length - keep)
          if (inside) out.reasoning += part
          else out.content += part
          return out
        }
        if (inside) out.reasoning += text.slice(0, at)
        else out.content += text.slice(0, at)
        text = text.slice(at + tag.length)
        inside = !inside
      }
    },
    /** The end of the stream: whatever was held back is what it seemed to be. */
    flush(): Parts {
      const rest = held
      held = ''
      return inside ? { content: '', reasoning: rest } : { content: rest, reasoning: '' }
    },
  }
}
