/**
 * Token counting for the memory budget ("K memory") and the context gauge.
 *
 * Encoding: o200k_base (GPT-4o, GPT-4.1, o-series, gpt-oss), not cl100k_base. The platform speaks
 * 21 languages and the models behind it are mostly not OpenAI's (Llama, Mistral, Qwen, ... under
 * Ollama), so no OpenAI encoding is exact; what matters is that the count treats every language
 * fairly and is close to modern multilingual vocabularies (Llama 3: 128k tokens, Qwen: 151k).
 * cl100k charges non-Latin scripts two to three times as much for the same sentence ("مرحبا بك في
 * عالم القصص": 15 cl100k tokens, 7 o200k; Hindi 20 against 9), which would give an Arabic or Hindi
 * speaker a third of the memory their plan buys. Counts are estimates for non-OpenAI models:
 * callers keep a margin below a model's `contextTokens`.
 *
 * Costs: o200k's ranks load once (1.8-2.5 s on a loaded 2-vCPU machine, ADR 067) and hold ~16 MB
 * of heap; counting a 20,000-token text takes ~5 ms. gpt-tokenizer keeps an LRU of merged word
 * pieces (100,000 entries by default); a tenth of that keeps the common words of every language
 * and bounds the memory.
 *
 * Loaded on first need, not at start (ADR 067): an idle server, or one that only serves pages,
 * never holds the ranks. Counting stays synchronous; every async path that counts awaits
 * `tokenizerReady()` first, and a count before that throws instead of returning a wrong number.
 */
type Encoding = typeof import('gpt-tokenizer/encoding/o200k_base')

let encoding: Encoding | undefined
let loading: Promise<void> | undefined

/** Loads the encoding once; later calls return the same promise. A failed load is tried again. */
export function tokenizerReady(): Promise<void> {
  loading ??= import('gpt-tokenizer/encoding/o200k_base').then(
    (loaded) => {
      loaded.setMergeCacheSize(10_000)
      encoding = loaded
    },
    (error: unknown) => {
      loading = undefined
      throw error
    },
  )
  return loading
}

/** Whether the encoding is in memory (the idle-memory tests check it is not, at start). */
export function tokenizerLoaded(): boolean {
  return encoding !== undefined
}

// User text may contain "<|endoftext|>" or "<|im_start|>": count it as the plain text the
// provider tokenizes it as, instead of throwing (gpt-tokenizer's default for special tokens).
const asPlainText = { disallowedSpecial: new Set<string>() }

/** The frame of each message in OpenAI's chat format: `<|start|>{role}<|message|>{content}<|end|>`. */
export const TOKENS_PER_MESSAGE = 3
/** A `name` on a message costs one token beyond its own text. */
export const TOKENS_PER_NAME = 1
/** Every reply is primed with `<|start|>assistant<|message|>`. */
export const REPLY_PRIMING_TOKENS = 3

export type CountableMessage = { role: string; content: string; name?: string | undefined }

export function countTokens(text: string): number {
  // Even an empty text throws before the load: a path that forgot to await is found by any test.
  if (!encoding) throw new Error('countTokens called before tokenizerReady() resolved')
  return text ? encoding.countTokens(text, asPlainText) : 0
}

/** One message with its chat-format overhead, for adding messages to a budget one by one. */
export function countOneMessageTokens(message: CountableMessage): number {
  return (
    TOKENS_PER_MESSAGE +
    countTokens(message.role) +
    countTokens(message.content) +
    (message.name ? TOKENS_PER_NAME + countTokens(message.name) : 0)
  )
}

/**
 * The prompt size of a Chat Completions request, as OpenAI's cookbook counts it: each message with
 * its overhead, plus the priming of the reply.
 */
export function countMessageTokens(messages: readonly CountableMessage[]): number {
  let total = REPLY_PRIMING_TOKENS
  for (const message of messages) total += countOneMessageTokens(message)
  return total
}
