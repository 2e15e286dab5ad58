import type { ChatMessage } from '#server/modules/models/llm-client.ts'
import type { ModelConfig } from '#server/modules/models/models.ts'

/** Continue (ADR 031): how the model is asked to extend its own reply, and how what comes joins it. */

/** MODELS_FILE's `continueStyle`. */
const userTurnStyle = (model: ModelConfig) => model.continueStyle === 'user-turn'

/**
 * The messages that ask the model to continue `partial`, its own reply: by default the reply as the
 * last, unfinished assistant turn, which llama.cpp (and vLLM, with `continue_final_message`)
 * continues where it stopped; `continueStyle: "user-turn"` adds a user turn "Continue." for
 * servers that answer a trailing assistant turn anew (OpenAI).
 */
export function continuationMessages(messages: readonly ChatMessage[], partial: string, model: ModelConfig) {
  const asked: ChatMessage[] = [...messages, { role: 'assistant', content: partial }]
  if (userTurnStyle(model)) asked.push({ role: 'user', content: 'Continue.' })
  return asked
}

/** How a continuation joins the reply: as it came after a prefill; after a space when it was a new turn. */
export function joinContinuation(partial: string, text: string, model: ModelConfig) {
  if (!userTurnStyle(model)) return text
  return /\s$/.test(partial) || /^\s/.test(text) ? text : ` ${text}`
}

/**
 * llama.cpp streams a continued assistant turn from its beginning: the first delta repeats the
 * partial reply, then the new text follows. What repeats `partial` exactly is dropped; a stream
 * that does not start with it passes through untouched (other servers send only the new text).
 */
export function createEchoStripper(partial: string) {
  let held = ''
  let decided = partial === ''
  return {
    push(delta: string): string {
      if (decided) return delta
      held += delta
      if (held.length < partial.length && partial.startsWith(held)) return ''
      decided = true
      const out = held.startsWith(partial) ? held.slice(partial.length) : held
      held = ''
      return out
    },
    /** The stream ended while it still looked like the echo: that text was there already. */
    flush(): string {
      held = ''
      decided = true
      return ''
    },
  }
}
