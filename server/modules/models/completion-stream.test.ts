import { APIError } from 'openai'
import { describe, expect, it } from 'vitest'
import { completionChunks } from './completion-stream.ts'

/** A streamed answer whose body arrives in exactly these reads. */
function answer(...reads: string[]) {
  const encoder = new TextEncoder()
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const read of reads) controller.enqueue(encoder.encode(read))
      controller.close()
    },
  })
  return new Response(body, { headers: { 'content-type': 'text/event-stream', 'x-request-id': 'req-1' } })
}
const chunk = (content: string) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content } }] })}\n\n`
const contents = (batches: { choices: { delta: { content?: string | null } }[] }[][]) =>
  batches.map((batch) => batch.map((c) => c.choices[0]?.delta.content))

async function readAll(response: Response) {
  const batches = []
  for await (const batch of completionChunks(response)) batches.push(batch)
  return batches
}

describe('completionChunks', () => {
  it('gives the chunks of each read together, events split across reads and bytes of a character included', async () => {
    const split = chunk('café ☕')
    const bytes = new TextEncoder().encode(split)
    // Cut inside the two-byte é: the decoder must hold the first byte for the next read.
    const cut = split.indexOf('é') + 1
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(chunk('One') + chunk(' two')))
        controller.enqueue(bytes.slice(0, cut))
        controller.enqueue(bytes.slice(cut))
        controller.enqueue(new TextEncoder().encode(': keep-alive\n\ndata: [DONE]\n\n'))
        controller.close()
      },
    })
    expect(contents(await readAll(new Response(body)))).toEqual([['One', ' two'], ['café ☕']])
  })

  it('ends at [DONE] and ignores what follows, as the client does', async () => {
    const batches = await readAll(answer(chunk('a'), 'data: [DONE]\n\n', chunk('after')))
    expect(contents(batches)).toEqual([['a']])
  })

  it('throws the APIError of an event that carries an error, with what it says', async () => {
    const error = await readAll(
      answer(chunk('a'), `data: ${JSON.stringify({ error: { message: 'Context size exceeded', code: 400 } })}\n\n`),
    ).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(APIError)
    expect((error as APIError).message).toContain('Context size exceeded')
  })

  it('throws SyntaxError for data that is not JSON, and for an event larger than any model sends', async () => {
    await expect(readAll(answer('data: {"choices": [{"delta": {"content": "half\n\n'))).rejects.toBeInstanceOf(
      SyntaxError,
    )
    await expect(readAll(answer(`data: ${'x'.repeat(1_100_000)}`))).rejects.toBeInstanceOf(SyntaxError)
  })

  it('drops an event the stream ended in the middle of', async () => {
    const batches = await readAll(answer(chunk('whole'), 'data: {"choices":[{"delta":{"content":"cut'))
    expect(contents(batches)).toEqual([['whole']])
  })

  it('reads nothing from an answer without a body', async () => {
    expect(await readAll(new Response(null))).toEqual([])
  })
})
