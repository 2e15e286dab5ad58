import { describe, expect, it } from 'vitest'
import { ApiError } from '#app/lib/http.ts'
import { readEventStream } from './event-stream.ts'

/** A response whose body arrives in the given pieces, split wherever the test says. */
function streamOf(...pieces: string[]): Response {
  const encoder = new TextEncoder()
  return new Response(
    new ReadableStream({
      start(controller) {
        for (const piece of pieces) controller.enqueue(encoder.encode(piece))
        controller.close()
      },
    }),
  )
}

describe('readEventStream', () => {
  it('gives each event with its JSON data, whatever the pieces, and skips keep-alive comments', async () => {
    const events: unknown[] = []
    await readEventStream(
      streamOf(
        'event: start\ndata: {"modelId":"m"}\n\n: keep-alive\n\nevent: del',
        'ta\ndata: {"text":"Hel',
        'lo"}\n\n',
      ),
      (event) => events.push(event),
    )
    expect(events).toEqual([
      { event: 'start', data: { modelId: 'm' } },
      { event: 'delta', data: { text: 'Hello' } },
    ])
  })

  it('refuses data that is not JSON as an invalid server response', async () => {
    await expect(readEventStream(streamOf('event: delta\ndata: {oops\n\n'), () => {})).rejects.toBeInstanceOf(ApiError)
  })
})
