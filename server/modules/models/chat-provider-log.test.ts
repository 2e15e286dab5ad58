import { describe, expect, it } from 'vitest'
import { logChatProvider } from './chat-provider-log.ts'
import type { EmbeddedModelStatus } from './embedded/status.ts'
import { loadModelRegistry } from './models.ts'

const registry = loadModelRegistry({
  baseUrl: 'https://user:secret@models.example.com:8443/v1',
  apiKey: 'sk-secret',
  model: 'llama3.2',
  modelsFile: undefined,
  requireTls: false,
  timeoutMs: 1000,
})

function capture() {
  const lines: { level: string; obj: Record<string, unknown>; msg: string }[] = []
  return {
    lines,
    log: {
      info: (obj: object, msg: string) => lines.push({ level: 'info', obj: obj as Record<string, unknown>, msg }),
      warn: (obj: object, msg: string) => lines.push({ level: 'warn', obj: obj as Record<string, unknown>, msg }),
    },
  }
}

describe('the start-up log of what serves chat', () => {
  it('over HTTP: the server (no credentials, no path) and the model id', () => {
    const { lines, log } = capture()
    logChatProvider({ registry, embedded: undefined, log })
    expect(lines).toHaveLength(1)
    expect(lines[0]?.obj).toEqual({
      provider: 'http',
      models: [{ id: 'llama3.2', server: 'https://models.example.com:8443', model: 'llama3.2' }],
    })
    expect(lines[0]?.msg).toBe('chat is served over HTTP by llama3.2 at https://models.example.com:8443')
    expect(JSON.stringify(lines)).not.toContain('secret')
  })

  it('embedded: its source and state, then each change: ready at info, a failure at warn with the hint', async () => {
    const { lines, log } = capture()
    let status: EmbeddedModelStatus = {
      source: 'hf:o/r/m.gguf',
      displayName: 'o/r/m.gguf',
      state: 'downloading',
      percent: 3,
      failure: null,
    }
    const stop = logChatProvider({ registry, embedded: { status: () => status }, log, intervalMs: 10 })
    expect(lines[0]).toMatchObject({
      level: 'info',
      obj: { provider: 'embedded', model: 'o/r/m.gguf', source: 'hf:o/r/m.gguf', state: 'downloading', percent: 3 },
    })
    expect(lines[0]?.msg).toContain('being prepared')
    status = { ...status, percent: 50 }
    await new Promise((r) => setTimeout(r, 40))
    expect(lines).toHaveLength(1) // progress alone is model-file.ts's to log
    status = { ...status, state: 'failed', percent: null, failure: { code: 'offline', hint: 'place the file' } }
    await expect.poll(() => lines.length).toBe(2)
    expect(lines[1]).toMatchObject({ level: 'warn', obj: { code: 'offline', hint: 'place the file' } })
    status = { ...status, state: 'ready', failure: null }
    await expect.poll(() => lines.length).toBe(3)
    expect(lines[2]).toMatchObject({ level: 'info', msg: 'embedded model ready' })
    stop()
  })
})
