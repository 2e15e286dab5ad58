import type { LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTcpProxy } from '#tests/doubles/tcp-proxy.ts'
import { createRole } from '#tests/factories/catalogue.ts'
import { addMessages } from '#tests/factories/chat.ts'
import { parseEvents, writeModelsFile } from '#tests/helpers/chat.ts'
import { type LlamaServer, llamaAvailable, reservePort, startLlamaServer } from '#tests/helpers/llama-server.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

// Issue 18: real chats through the product against the real llama.cpp server (../shared/llama),
// with the chat templates popular model families ship. Strict ones (Mistral-Nemo, Gemma 2, Llama 3,
// Qwen 3.5) refuse a late system message, an assistant turn right after the system message and two
// turns of one author in a row; the prompt is shaped so that every one of them takes it (ADR 029).
// The model double (chat.test.ts) keeps covering what a real server cannot be made to do.
// One server at a time (two cores); a TCP proxy in front of each plays the failed turns.

const TEMPLATES = [
  { template: 'mistralai-Mistral-Nemo-Instruct-2407.jinja' },
  { template: 'google-gemma-2-2b-it.jinja' },
  { template: 'meta-llama-Llama-3.1-8B-Instruct.jinja' },
  { template: 'Qwen-Qwen2.5-7B-Instruct.jinja' },
  // Reasoning stays in the content here (--reasoning-format none): the product splits <think> out.
  { template: 'Qwen-Qwen3-0.6B.jinja' },
  // Its template opens a <think> block the tiny model never closes; the chat turns thinking off,
  // as an operator would (MODELS_FILE).
  { template: 'Qwen3.5-4B.jinja', reasoningOff: 'chat_template_kwargs' as const },
  // Its template always opens <think> and has no switch to turn it off: llama.cpp's
  // --reasoning off, --reasoning-budget 0 and the request's reasoning_budget_tokens or
  // chat_template_kwargs leave the block open (tried on this build). The tiny model never closes
  // it, so every new reply is reasoning only: shown, never stored, a clear retryable failure
  // (ADR 035). Its reasoning comes as reasoning_content (the server's default parsing).
  { template: 'deepseek-ai-DeepSeek-R1-Distill-Llama-8B.jinja', onlyReasoning: true },
]
/** Every template at the three context sizes of issue 18: one server each, every scenario on each. */
const SERVERS = TEMPLATES.flatMap((t) =>
  [4096, 512, 256].map((ctx) => ({ reasoningOff: undefined, onlyReasoning: false, ...t, ctx })),
).map((s, i) => ({ ...s, modelId: `real-${i}` }))
const flagsOf = (s: (typeof SERVERS)[number]) => (s.onlyReasoning ? [] : ['--reasoning-format', 'none'])

type Session = Awaited<ReturnType<TestApp['login']>>

describe.skipIf(!llamaAvailable)('real llama-server: chats every chat template takes', () => {
  let t: TestApp
  const ports = new Map<string, Awaited<ReturnType<typeof reservePort>>>()
  const proxies = new Map<string, Awaited<ReturnType<typeof startTcpProxy>>>()
  /** The app's log: a failed reply's reason from the provider is there. */
  const logLines: string[] = []

  beforeAll(async () => {
    for (const s of SERVERS) {
      const reserved = await reservePort()
      ports.set(s.modelId, reserved)
      const proxy = await startTcpProxy({ host: '127.0.0.1', port: reserved.port })
      proxy.cut()
      proxies.set(s.modelId, proxy)
    }
    // The model's context is the server's (-c), stated in MODELS_FILE: the servers start one by one
    // after the app, so it cannot learn them at its start. Short replies keep the suite fast.
    // Each server twice: straight (every reply), and behind a proxy that refuses every connection
    // (the turns made to fail). Replies do not go through the proxy: it closes a kept-alive
    // connection a moment after the server does, and a reused one then fails ("other side closed").
    const modelsFile = writeModelsFile(
      SERVERS.flatMap((s) => [
        {
          id: s.modelId,
          name: `${s.template} ${s.ctx}`,
          premium: false,
          contextTokens: s.ctx,
          maxReplyTokens: 16,
          ...(s.reasoningOff ? { reasoningOff: s.reasoningOff } : {}),
          baseUrl: `http://127.0.0.1:${ports.get(s.modelId)?.port}/v1`,
        },
        {
          id: `${s.modelId}-proxied`,
          name: `${s.template} ${s.ctx} (proxied)`,
          premium: false,
          contextTokens: s.ctx,
          maxReplyTokens: 16,
          ...(s.reasoningOff ? { reasoningOff: s.reasoningOff } : {}),
          baseUrl: `http://127.0.0.1:${proxies.get(s.modelId)?.port}/v1`,
        },
      ]),
    )
    t = await buildTestApp({
      env: { MODELS_FILE: modelsFile },
      logStream: { write: (line) => void logLines.push(line) },
    })
  })
  afterAll(async () => {
    await t?.close()
    for (const proxy of proxies.values()) await proxy.close()
    for (const reserved of ports.values()) await reserved.release().catch(() => {})
  })

  describe.each(SERVERS)('$template, context $ctx', (spec) => {
    const { template, ctx, modelId, onlyReasoning } = spec
    let server: LlamaServer | undefined
    beforeAll(async () => {
      server = await startLlamaServer(
        ports.get(modelId) as Awaited<ReturnType<typeof reservePort>>,
        ctx,
        template,
        flagsOf(spec),
      )
    })
    afterAll(async () => {
      await server?.stop()
    })

    const post = (session: Session, url: string, payload: object) =>
      t.injectWithLogin({ method: 'POST', url, payload }, session)
    // With the interface's language, as the client sends it: the prompt then ends its system
    // message with the language instruction (ADR 038).
    const send = (session: Session, sessionId: string, message: string) =>
      post(session, '/api/chat', { sessionId, message, chatModelId: modelId, locale: 'ja' })
    const regenerate = (session: Session, sessionId: string) =>
      post(session, '/api/chat/regenerate', { sessionId, chatModelId: modelId, locale: 'ja' })

    /** A reply came back from the model and was stored; otherwise the product's answer and the server's log say why. */
    const why = (res: LightMyRequestResponse) =>
      [
        `${res.statusCode} ${res.body}`,
        '--- app log (errors, tail):',
        ...logLines
          .filter((l) => l.includes('"err"'))
          .slice(-3)
          .map((l) => l.slice(0, 700)),
        '--- llama-server log (tail):',
        server?.log().slice(-1500),
      ].join('\n')

    /**
     * A turn came to its end: a reply stored, or (DeepSeek-R1 on the tiny model) the clear failure of
     * a reply that was only reasoning, the user's message kept and a retry offered. Never a refusal
     * of the template or of the context.
     */
    function expectAnswered(res: LightMyRequestResponse) {
      if (onlyReasoning) {
        expect(res.statusCode, why(res)).toBe(502)
        expect(res.json(), why(res)).toMatchObject({
          error: 'MODEL_REPLY_ONLY_REASONING',
          details: { reason: 'reasoning_only', retryable: true, partialKept: false, reply: null },
        })
        return undefined
      }
      expect(res.statusCode, why(res)).toBe(200)
      const reply = res.json().data.reply
      expect(reply.author).toBe('assistant')
      expect(reply.content.length, why(res)).toBeGreaterThan(0)
      return res.json().data
    }

    /** The chat as stored, oldest first: a reasoning trace is never part of it. */
    async function storedMessages(session: Session, sessionId: string) {
      const res = await post(session, '/api/messages', { sessionId, limit: 100 })
      return (res.json().data.items as { id: number; author: string; content: string; status: string }[]).reverse()
    }

    /** A chat with a greeting and post-history instructions: what most cards have. */
    async function newChat() {
      const user = await t.login()
      const roleId = await createRole(t.database.db, {
        name: 'Mara',
        description: '{{char}} keeps the lighthouse.',
        personality: 'Patient.',
        scenario: '{{user}} arrives during a storm.',
        firstMessage: 'Come in out of the rain, {{user}}.',
        exampleDialogue: '{{user}}: Hello?\n{{char}}: Door is open.',
        cardExtras: { postHistoryInstructions: 'Answer {{user}} in one sentence.' },
      })
      const res = await post(user, '/api/createSession', { roleId })
      expect(res.statusCode).toBe(200)
      return { user, sessionId: res.json().data.id as string }
    }

    it('answers after the greeting, with post-history instructions, sent and streamed', async () => {
      const { user, sessionId } = await newChat()
      expectAnswered(await send(user, sessionId, 'May I dry my coat?'))
      const streamed = await post(user, '/api/chat/stream', { sessionId, message: 'Thanks.', chatModelId: modelId })
      const events = parseEvents(streamed.body)
      if (!onlyReasoning) {
        expect(
          events.map((e) => e.event),
          why(streamed),
        ).toContain('done')
        return
      }
      // The reasoning streamed apart, then the failure; stored: the greeting and both messages only.
      const thought = events.flatMap((e) => (e.event === 'reasoning' ? [String(e.data.text)] : [])).join('')
      expect(thought.trim().length, why(streamed)).toBeGreaterThan(0)
      expect(events.at(-1), why(streamed)).toMatchObject({
        event: 'error',
        data: { code: 'MODEL_REPLY_ONLY_REASONING', retryable: true },
      })
      const stored = await storedMessages(user, sessionId)
      expect(stored.map((m) => m.author)).toEqual(['assistant', 'user', 'user'])
      expect(JSON.stringify(stored)).not.toContain(thought.trim().slice(0, 20))
    })

    it('answers after a failed turn: a new message, then a retry of a stranded one', async () => {
      const { user, sessionId } = await newChat()
      const failing = (message: string) =>
        post(user, '/api/chat', { sessionId, message, chatModelId: `${modelId}-proxied` })
      expect((await failing('Is the lamp lit?')).statusCode).toBe(502)
      // The stranded message and the new one reach the model as one user turn.
      expectAnswered(await send(user, sessionId, 'Hello? Anyone?'))
      expect((await failing('Still there?')).statusCode).toBe(502)
      expectAnswered(await regenerate(user, sessionId))
    })

    it('answers a regenerate and an edit', async () => {
      const { user, sessionId } = await newChat()
      expectAnswered(await send(user, sessionId, 'I bring bad news.'))
      expectAnswered(await send(user, sessionId, 'The ship sank.'))
      const again = expectAnswered(await regenerate(user, sessionId))
      if (again) expect(again.reply.swipeCount).toBe(2)
      const first = (await storedMessages(user, sessionId)).find((m) => m.content === 'I bring bad news.')
      const edited = await post(user, '/api/chat/editMessage', {
        sessionId,
        messageId: first?.id,
        content: 'I bring good news.',
      })
      expect(edited.statusCode).toBe(200)
      expectAnswered(await regenerate(user, sessionId))
    })

    it('answers a long chat past the window', async () => {
      const { user, sessionId } = await newChat()
      const line = 'The storm keeps beating on the old tower while we talk about the sea. '
      await addMessages(
        t.database.db,
        sessionId,
        Array.from({ length: 60 }, (_, i) => ({
          author: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
          content: `Message ${i + 1}. ${line.repeat(3)}`,
        })),
      )
      const data = expectAnswered(await send(user, sessionId, 'What did I say first?'))
      if (!data) return
      expect(data.context.trimmed).toBe(true)
      expect(data.context.windowTokens).toBeLessThanOrEqual(ctx)
    })

    it('continues a reply cut at its length', async () => {
      const { user, sessionId } = await newChat()
      let cut: string
      if (onlyReasoning) {
        // No reply of its own ever completes: a cut one written before (another model's, say). The
        // continued reply is the last assistant turn, so the template opens no think block.
        await addMessages(t.database.db, sessionId, [
          { author: 'user', content: 'Tell me of the wreck.' },
          { author: 'assistant', content: 'The ship struck the rocks at' },
        ])
        cut = 'The ship struck the rocks at'
      } else {
        // 16-token replies: the tiny model is cut at its length.
        const data = expectAnswered(await send(user, sessionId, 'Tell me of the wreck.'))
        expect(data.reply.status).toBe('cut')
        cut = data.reply.content
      }
      const res = await post(user, '/api/chat/continue', { sessionId, chatModelId: modelId })
      expect(res.statusCode, why(res)).toBe(200)
      const reply = res.json().data.reply
      expect(reply.content.startsWith(cut), why(res)).toBe(true)
      expect(reply.content.length).toBeGreaterThan(cut.length)
      expect(reply.swipeCount).toBe(1)
    })
  })
})
