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
  /** Right after a block: the blank lines templates put before the answer are not part of it. */
  let afterBlock = false

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
      const addContent = (part: string) => {
        const kept = afterBlock ? part.trimStart() : part
        if (kept) afterBlock = false
        out.content += kept
      }
      for (;;) {
        const tag = inside ? CLOSE : OPEN
        const at = text.indexOf(tag)
        if (at === -1) {
          const keep = partialTail(text, tag)
          held = text.slice(text.length - keep)
          const part = text.slice(0, text.length - keep)
          if (inside) out.reasoning += part
          else addContent(part)
          return out
        }
        if (inside) out.reasoning += text.slice(0, at)
        else addContent(text.slice(0, at))
        text = text.slice(at + tag.length)
        if (inside) afterBlock = true
        inside = !inside
      }
    },
    /** The end of the stream: whatever was held back is what it seemed to be. */
    flush(): Parts {
      const rest = held
      held = ''
      if (inside) return { content: '', reasoning: rest }
      return { content: afterBlock ? rest.trimStart() : rest, reasoning: '' }
    },
  }
}
