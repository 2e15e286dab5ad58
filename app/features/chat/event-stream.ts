import { ApiError } from '#app/lib/http.ts'

/**
 * Reads a `text/event-stream` response to its end, calling `onEvent` with each event's name and
 * its JSON data (events without data, such as the server's keep-alive comments, are skipped).
 * Throws ApiError when there is no body or an event's data is not JSON.
 */
export async function readEventStream<E>(response: Response, onEvent: (event: E) => void): Promise<void> {
  const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader()
  if (!reader) throw new ApiError(500, 'INTERNAL_ERROR', 'No response body')
  let buffer = ''
  for (;;) {
    const { value, done } = await reader.read()
    if (done) break
    buffer += value
    let end = buffer.indexOf('\n\n')
    while (end !== -1) {
      const block = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      end = buffer.indexOf('\n\n')
      let name = 'message'
      const data: string[] = []
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) name = line.slice(6).trim()
        else if (line.startsWith('data:')) data.push(line.slice(5).trimStart())
      }
      if (data.length === 0) continue
      let parsed: unknown
      try {
        parsed = JSON.parse(data.join('\n'))
      } catch {
        throw new ApiError(500, 'INTERNAL_ERROR', 'Invalid server response format')
      }
      onEvent({ event: name, data: parsed } as E)
    }
  }
}
