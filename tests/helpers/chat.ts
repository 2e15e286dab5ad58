import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { ChatStreamEvent } from '#contracts/chat.ts'

/** Writes a MODELS_FILE for tests and returns its path. */
export function writeModelsFile(models: Record<string, unknown>[]): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'rp-models-')), 'models.json')
  writeFileSync(file, JSON.stringify(models))
  return file
}

/** Parses a text/event-stream body into its events (comment lines skipped). */
export function parseEvents(body: string): ChatStreamEvent[] {
  const events: ChatStreamEvent[] = []
  for (const block of body.split('\n\n')) {
    let event = 'message'
    const data: string[] = []
    for (const line of block.split('\n')) {
      if (line.startsWith('event: ')) event = line.slice(7)
      else if (line.startsWith('data: ')) data.push(line.slice(6))
    }
    if (data.length > 0) events.push({ event, data: JSON.parse(data.join('\n')) } as ChatStreamEvent)
  }
  return events
}

/** Reads a streamed fetch response event by event, calling `onEvent` for each as it arrives. */
export async function readEvents(
  response: Response,
  onEvent: (event: ChatStreamEvent) => void | Promise<void> = () => {},
): Promise<ChatStreamEvent[]> {
  const events: ChatStreamEvent[] = []
  const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader()
  if (!reader) return events
  let buffer = ''
  try {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) break
      buffer += value
      let end = buffer.indexOf('\n\n')
      while (end >= 0) {
        for (const event of parseEvents(buffer.slice(0, end + 2))) {
          events.push(event)
          await onEvent(event)
        }
        buffer = buffer.slice(end + 2)
        end = buffer.indexOf('\n\n')
      }
    }
  } catch (error) {
    if ((error as Error).name !== 'AbortError') throw error
  }
  return events
}
