import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { recordPromptUsage, refreshModelInfo } from '#server/modules/models/model-server-info.ts'
import { createRole } from '#tests/factories/catalogue.ts'
import { addMessages } from '#tests/factories/chat.ts'
import { embeddedAvailable, embeddedEnv } from '#tests/helpers/embedded.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

// Issue 19 with ADR 031: a prompt the embedded model refuses as longer than its context (400
// exceed_context_size_error, as llama-server) is trimmed and sent once more, and the reply comes.
// The estimate is made to fall short through the usage corrections of ADR 035, as a text unlike
// the tokenizer samples can make it.

describe.skipIf(!embeddedAvailable)('a prompt too long for the embedded model', () => {
  let t: TestApp
  const lines: string[] = []
  beforeAll(async () => {
    t = await buildTestApp({
      env: embeddedEnv({ EMBEDDED_CONTEXT: '2048', EMBEDDED_PARALLEL: '1' }),
      logStream: { write: (line) => void lines.push(line) },
    })
    await t.app.services.embedded?.start()
  }, 60_000)
  afterAll(async () => {
    await t?.close()
  })

  it('is trimmed and sent again: the reply comes', async () => {
    const user = await t.login()
    const roleId = await createRole(t.database.db, { name: 'Mara', firstMessage: 'Come in.' })
    const created = await t.injectWithLogin({ method: 'POST', url: '/api/createSession', payload: { roleId } }, user)
    const sessionId = created.json().data.id as string
    const line = 'The keeper climbed the stairs and counted every step before the storm. '
    await addMessages(
      t.database.db,
      sessionId,
      Array.from({ length: 6 }, (_, i) => ({
        author: i % 2 ? ('assistant' as const) : ('user' as const),
        content: `${i}: ${line.repeat(25)}`,
      })),
    )
    // Our estimate falls short of the model's count (as it may for a text unlike the samples):
    // the reported usage of earlier prompts said the model counted about half of what we did.
    const model = t.app.services.models.defaultModel
    await refreshModelInfo(model)
    for (let i = 0; i < 3; i++) recordPromptUsage(model, line, 1000, 400)
    const res = await t.injectWithLogin(
      { method: 'POST', url: '/api/chat', payload: { sessionId, message: 'Do you see its lights yet?' } },
      user,
    )
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json().data.reply.content.length).toBeGreaterThan(0)
    // The first prompt was refused as too long, then trimmed and answered.
    expect(lines.filter((l) => l.includes('trimmed, retrying'))).toHaveLength(1)
  }, 120_000)
})
