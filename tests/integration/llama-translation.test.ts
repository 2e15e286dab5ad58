import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { jobKey } from '#server/modules/role-texts/machine-translation.ts'
import { createRole } from '#tests/factories/catalogue.ts'
import { writeModelsFile } from '#tests/helpers/chat.ts'
import { type LlamaServer, llamaAvailable, reservePort, startLlamaServer } from '#tests/helpers/llama-server.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

// Issue 20 item 3 (ADR 040) against the real llama.cpp server (../shared/llama) with a thinking
// model's template (Qwen 3, thinking turned off as MODELS_FILE says): the translation requests are
// accepted and the job stores a machine translation. The tiny model's words are gibberish; what is
// checked is the protocol, the sizes and the storing. Skipped where ../shared/llama is absent.

const CTX = 2048
const TEMPLATE = 'Qwen-Qwen3-0.6B.jinja'

describe.skipIf(!llamaAvailable)(`real llama-server at -c ${CTX}: machine translation`, () => {
  let t: TestApp
  let server: LlamaServer | undefined
  const logLines: string[] = []

  beforeAll(async () => {
    const reserved = await reservePort()
    server = await startLlamaServer(reserved, CTX, TEMPLATE)
    // No contextTokens: the app learns the context from the server (/props), as in production.
    const modelsFile = writeModelsFile([
      {
        id: 'tiny',
        premium: false,
        baseUrl: `http://127.0.0.1:${reserved.port}/v1`,
        reasoningOff: 'chat_template_kwargs',
        maxReplyTokens: 200,
      },
    ])
    t = await buildTestApp({
      env: { MODELS_FILE: modelsFile, TRANSLATE_MODEL: 'tiny', TRANSLATE_DAILY_CHARACTERS: '2000000' },
      jobQueue: { worker: false, retryDelayMs: () => 60_000 },
      logStream: { write: (text) => void logLines.push(text) },
    })
  }, 60_000)
  afterAll(async () => {
    await t?.close()
    await server?.stop()
  })

  const why = () =>
    [
      '--- app log (tail):',
      ...logLines.filter((l) => l.includes('translat') || l.includes('"err"')).slice(-6),
      '--- llama-server log (tail):',
      server?.log().slice(-1500),
    ].join('\n')

  it('the job translates a public character and stores it as a machine translation', async () => {
    const owner = await t.login()
    const roleId = await createRole(t.database.db, {
      name: 'Mara',
      creatorId: owner.user.id,
      // Long enough that the tiny model's gibberish, cut at the reply length, is not refused as a
      // runaway answer (more than six times its source): this text is stored, the short ones not.
      introduction: Array.from(
        { length: 6 },
        (_, i) =>
          `Night ${i + 1}: the keeper of the lighthouse on the stormy coast reads the letters the sea brought in.`,
      ).join(' '),
      scenario: 'A winter night at the lighthouse.',
      firstMessage: '*She opens the door.* Come in, {{user}}.',
    })
    const jobs = t.app.services.jobs
    expect(await jobs.enqueue('translate-role', { roleId, locale: 'fr' }, { key: jobKey(roleId, 'fr') })).toBe(true)
    await jobs.drain()
    const list = await t.injectWithLogin({ method: 'POST', url: '/api/role/translations', payload: { roleId } }, owner)
    const fr = list.json().data.translations.find((x: { locale: string }) => x.locale === 'fr')
    expect(fr, why()).toMatchObject({ locale: 'fr', origin: 'machine', stale: false })
    // Whatever the tiny model wrote for the long text was kept; the texts whose answers were not
    // usable (gibberish far longer than a short source, a lost {{user}}) show the source.
    expect(fr.texts.introduction.length, why()).toBeGreaterThan(0)
    expect(
      logLines.filter((l) => l.includes('job failed') || l.includes('will be retried')),
      why(),
    ).toEqual([])

    // The editor's draft is accepted by the same server too.
    const draft = await t.injectWithLogin(
      {
        method: 'POST',
        url: '/api/role/translate-draft',
        payload: { roleId, locale: 'ja', texts: { introduction: 'A keeper of lights.' } },
      },
      owner,
    )
    expect(draft.statusCode, `${draft.body}\n${why()}`).toBe(200)
  }, 120_000)
})
