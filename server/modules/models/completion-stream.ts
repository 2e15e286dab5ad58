import { createParser } from 'eventsource-parser'
import { APIError } from 'openai'
import type { ChatCompletionChunk } from 'openai/resources/chat/completions'

/**
 * The longest event the reader keeps while it waits for the event's end (characters). A model
 * server's chunk is a few hundred; the largest with a usage report a few thousand.
 */
const MAX_EVENT_CHARS = 1_000_000

/**
 * Reads a streamed Chat Completions answer (server-sent events) as its chunks, in the batches that
 * arrived together, the way the `openai` client's own stream reads it: `[DONE]` ends it, an event
 * whose data carries `error` throws `APIError`, data that is not JSON throws `SyntaxError`.
 *
 * The client's stream takes several async generators and a promise per event; at one token per
 * event that was ~15% of a long reply's CPU (docs/performance.md, issue 24). Here one read of the
 * body is one step, whatever it holds.
 */
export async function* completionChunks(response: Response): AsyncGenerator<ChatCompletionChunk[], void, undefined> {
  if (!response.body) return
  let batch: ChatCompletionChunk[] = []
  let done = false
  let failure: Error | undefined
  const parser = createParser({
    maxBufferSize: MAX_EVENT_CHARS,
    onEvent(event) {
      if (done || failure) return
      if (event.data.startsWith('[DONE]')) {
        done = true
        return
      }
      let data: unknown
      try {
        data = JSON.parse(event.data)
      } catch (error) {
        failure = error as Error
        return
      }
      const error = (data as { error?: unknown } | null)?.error
      if (error) {
        failure = new APIError(undefined, error as object, undefined, response.headers)
        return
      }
      batch.push(data as ChatCompletionChunk)
    },
    onError(error) {
      // Only an event over MAX_EVENT_CHARS gets here (fields the parser does not know are skipped).
      failure ??= new SyntaxError(error.message)
    },
  })
  const decoder = new TextDecoder()
  for await (const bytes of response.body) {
    parser.feed(decoder.decode(bytes, { stream: true }))
    if (failure) throw failure
    if (batch.length > 0) {
      yield batch
      batch = []
    }
  }
  // An event the stream ended in the middle of is dropped, as the client's reader drops it.
  parser.feed(decoder.decode())
  if (failure) throw failure
  if (batch.length > 0) yield batch
}
