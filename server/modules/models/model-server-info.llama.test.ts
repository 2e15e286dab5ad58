import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRole } from '#tests/factories/catalogue.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'
import { streamChat } from './llm-client.ts'
import { forgetModelInfo, modelContext, recordPromptUsage, SAFETY_MARGIN } from './model-server-info.ts'
import { DEFAULT_CONTEXT_TOKENS, type ModelConfig } from './models.ts'
import { countTokens } from './tokens.ts'

/**
 * Against the real llama.cpp server of ../shared/llama (README there), started with `-c 512`:
 * the product learns the context and the tokenizer from it and keeps every prompt within it.
 * Reports itself skipped where that folder is absent.
 */

const llamaDir = path.resolve(import.meta.dirname, '../../../../shared/llama')
const present = existsSync(path.join(llamaDir, 'run.sh')) && existsSync(path.join(llamaDir, 'llama-server'))
const CTX = 512

async function freePort(): Promise<number> {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as net.AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

let llama: ChildProcess | undefined
let baseUrl = ''
let modelName = ''

async function tokenizeCount(text: string): Promise<number> {
  const res = await fetch(`${baseUrl}/tokenize`, { method: 'POST', body: JSON.stringify({ content: text }) })
  return ((await res.json()) as { tokens: number[] }).tokens.length
}

describe.skipIf(!present)(`a real llama-server started with -c ${CTX}`, () => {
  let t: TestApp

  beforeAll(async () => {
    const port = await freePort()
    // One slot: requests queue instead of sharing the 512 cells (the summary's own sizing is item 7's).
    llama = spawn(path.join(llamaDir, 'run.sh'), [String(port), String(CTX), '-', '-np', '1'], { stdio: 'ignore' })
    baseUrl = `http://127.0.0.1:${port}`
    for (let i = 0; ; i++) {
      const ok = await fetch(`${baseUrl}/health`).then(
        (r) => r.ok,
        () => false,
      )
      if (ok) break
      if (i > 150) throw new Error('llama-server did not start')
      await new Promise((r) => setTimeout(r, 200))
    }
    const models = (await (await fetch(`${baseUrl}/v1/models`)).json()) as { data: { id: string }[] }
    modelName = models.data[0]?.id ?? ''
    forgetModelInfo()
    // No MODELS_FILE: the one model of LLM_*, its context unknown until the server tells it.
    t = await buildTestApp({ env: { LLM_BASE_URL: `${baseUrl}/v1`, LLM_MODEL: modelName } })
  }, 60_000)

  afterAll(async () => {
    await t?.close()
    llama?.kill('SIGTERM')
  })

  const model = (): ModelConfig => ({
    id: modelName,
    name: 'tiny',
    description: '',
    baseUrl: `${baseUrl}/v1`,
    apiKey: undefined,
    model: modelName,
    premium: false,
    diamondsPerMessage: 0,
    contextTokens: DEFAULT_CONTEXT_TOKENS,
    contextConfigured: false,
    maxReplyTokens: undefined,
    sampling: {},
  })

  it('learns n_ctx from the server', async () => {
    const fit = await modelContext(model())
    expect(fit.serverContextTokens).toBe(CTX)
    expect(fit.contextTokens).toBeLessThan(CTX * (1 - SAFETY_MARGIN))
  })

  it("counts Arabic, Thai and Hindi close to the server's /tokenize, where o200k is off several times", async () => {
    const texts = {
      arabic: 'كانت الغرفة مظلمة، لكنها سمعت خطوات بطيئة تقترب من الباب. همست: من هناك؟ لم يجب أحد.',
      thai: 'ห้องมืดสนิท แต่เธอได้ยินเสียงฝีเท้าช้าๆ เดินเข้ามาใกล้ประตู เธอกระซิบว่า ใครอยู่ตรงนั้น ไม่มีใครตอบ',
      hindi: 'कमरे में अँधेरा था, पर उसने दरवाज़े की ओर आते धीमे कदमों की आहट सुनी। उसने फुसफुसाकर पूछा: कौन है? किसी ने जवाब नहीं दिया।',
      english: 'The room was dark, but she heard slow footsteps coming toward the door. "Who is there?" she whispered.',
    }
    const fit = await modelContext(model())
    for (const [script, text] of Object.entries(texts)) {
      const server = await tokenizeCount(text)
      const ours = fit.count(text)
      const seen = `${script}: ours ${ours}, server ${server}`
      // Never short by more than the margin; over is safe (a prompt errs short), but not by much.
      expect(ours, seen).toBeGreaterThanOrEqual(server * (1 - SAFETY_MARGIN))
      expect(ours, seen).toBeLessThanOrEqual(server * (script === 'english' ? 1.25 : 1 + SAFETY_MARGIN))
      if (script !== 'english') expect(server / countTokens(text), script).toBeGreaterThan(1.5)
    }
  })

  it('keeps a long chat within the context: no request is refused as too long', async () => {
    const user = await t.login()
    const roleId = await createRole(t.database.db, {
      name: 'Mara',
      description: '{{char}} keeps the lighthouse on the northern cliffs and tells stories of ships.',
      firstMessage: 'Come in out of the rain, {{user}}.',
    })
    const created = await t.injectWithLogin({ method: 'POST', url: '/api/createSession', payload: { roleId } }, user)
    const sessionId = created.json().data.id as string
    const lines = [
      'Tell me about the ship that sank last winter, and the sailors who swam to the rocks in the storm.',
      'كانت الغرفة مظلمة، لكنها سمعت خطوات بطيئة تقترب من الباب. همست: من هناك؟ لم يجب أحد.',
      'कमरे में अँधेरा था, पर उसने दरवाज़े की ओर आते धीमे कदमों की आहट सुनी। किसी ने जवाब नहीं दिया।',
      'ห้องมืดสนิท แต่เธอได้ยินเสียงฝีเท้าช้าๆ เดินเข้ามาใกล้ประตู ไม่มีใครตอบ',
    ]
    const refused: string[] = []
    let trimmed = false
    for (let i = 0; i < 12; i++) {
      const res = await t.injectWithLogin(
        { method: 'POST', url: '/api/chat', payload: { sessionId, message: lines[i % lines.length] } },
        user,
      )
      if (res.statusCode !== 200) {
        refused.push(`turn ${i}: ${res.statusCode} ${res.body}`)
        continue
      }
      const context = res.json().data.context
      expect.soft(context.windowTokens).toBeLessThan(CTX)
      trimmed ||= context.trimmed
    }
    expect(refused).toEqual([])
    // The chat did outgrow the window: older messages were left out, not sent.
    expect(trimmed).toBe(true)
  }, 120_000)

  it("corrects our count toward the server's usage.prompt_tokens, also after a chat turn", async () => {
    // Many short turns: the chat template's own tokens, which no /tokenize of the text sees, weigh.
    const messages = Array.from({ length: 8 }, (_, i) => ({
      role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
      content: i % 2 === 0 ? 'Is the lamp lit?' : 'It is.',
    }))
    const text = messages.map((m) => m.content).join('\n')
    const stream = streamChat({ model: model(), messages, maxTokens: 4 })
    let step = await stream.next()
    while (!step.done) step = await stream.next()
    const served = step.value.promptTokens
    expect(served).toBeGreaterThan(0)
    const before = (await modelContext(model(), text)).count(text)
    expect(Math.abs(before - (served ?? 0))).toBeGreaterThan(2)
    recordPromptUsage(model(), text, before, served ?? 0)
    const after = (await modelContext(model(), text)).count(text)
    expect(Math.abs(after - (served ?? 0)), `before ${before}, after ${after}, server ${served}`).toBeLessThan(
      Math.abs(before - (served ?? 0)),
    )
    // The chat feeds the server's count in after each turn: the conversion of our counts moves.
    const sample = 'Tell me about the lamp and the keeper who lit it every night.'
    const ratio = (await modelContext(model(), sample)).serverTokensPerOurs
    const user = await t.login()
    const roleId = await createRole(t.database.db, { name: 'Mara', firstMessage: 'Come in.' })
    const created = await t.injectWithLogin({ method: 'POST', url: '/api/createSession', payload: { roleId } }, user)
    const sessionId = created.json().data.id as string
    const res = await t.injectWithLogin(
      { method: 'POST', url: '/api/chat', payload: { sessionId, message: sample } },
      user,
    )
    expect(res.statusCode).toBe(200)
    expect((await modelContext(model(), sample)).serverTokensPerOurs).not.toBe(ratio)
  }, 60_000)
})
