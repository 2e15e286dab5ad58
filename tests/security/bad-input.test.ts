import fc from 'fast-check'
import type { InjectOptions } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ERROR_CODES } from '#contracts/api.ts'
import { type OpenAiApiDouble, startOpenAiApi } from '#tests/doubles/openai-api.ts'
import { createRole } from '#tests/factories/catalogue.ts'
import { writeModelsFile } from '#tests/helpers/chat.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

// Issue 11, bad input: every API route, fed malformed, oversized, wrongly typed and hostile values in
// its path, query, body and headers, answers without a server error, with the error envelope when it
// refuses, and nothing it accepts breaks a later read. The fields the route really takes (from the
// OpenAPI document) are filled too, so values get past the first shape check into the handlers.

const RUNS = Number(process.env.FUZZ_RUNS ?? 25)

type Operation = {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH'
  path: string
  params: string[]
  query: string[]
  body: string[]
}

const HOSTILE_TEXT = [
  "'; DROP TABLE users; --",
  "' OR '1'='1",
  '1; SELECT pg_sleep(10)',
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  'javascript:alert(1)',
  '{{constructor.constructor("return process")()}}',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, on purpose
  '${process.exit()}',
  '../../../../etc/passwd',
  '%00%2e%2e%2f',
  '\u0000',
  '\u0000\u0001\u0007\u001b[31m',
  '\r\nSet-Cookie: hacked=1',
  '\u202eevil\u202c',
  '\ud800',
  '\udfff\ud800',
  '👩‍👩‍👧‍👦🏳️‍🌈',
  'Z̸̧̛͔̗a̷̛͖l̶̠͝g̵̣̈́o̸͚͑',
  'ﷺ',
  '\ufeff',
  '__proto__',
  'constructor',
  'A'.repeat(70_000),
  '',
  ' ',
  'null',
  'NaN',
  '-1',
  '1e308',
  '9007199254740993',
]

const hostileString = fc.oneof(
  fc.constantFrom(...HOSTILE_TEXT),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
)
const hostileNumber = fc.oneof(
  fc.constantFrom(0, -0, -1, 1.5, 1e308, -1e308, 2 ** 53 + 1, 2 ** 31, -(2 ** 63)),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
)
const { value: hostileValue } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileString,
    hostileNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(hostileString, fc.constantFrom('__proto__', 'constructor', 'prototype')), tie('value'), {
      maxKeys: 4,
    }),
  ),
}))

const deepJson = fc.integer({ min: 50, max: 100_000 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`)
const rawBody = fc.oneof(
  fc.constantFrom(
    '{',
    '{"a":',
    '[1,2',
    'undefined',
    '{"__proto__":{"admin":true}}',
    '{"constructor":{"prototype":{"x":1}}}',
  ),
  deepJson,
  fc.string({ unit: 'binary', maxLength: 200 }),
)

function bodyFor(op: Operation) {
  const fields = fc.record(Object.fromEntries(op.body.map((name) => [name, hostileValue])), { requiredKeys: [] })
  return fc.oneof(
    fields.map((value) => ({ kind: 'json' as const, value })),
    fields.chain((value) =>
      fc.dictionary(hostileString, hostileValue, { maxKeys: 3 }).map((extra) => ({
        kind: 'json' as const,
        value: { ...value, ...extra },
      })),
    ),
    hostileValue.map((value) => ({ kind: 'json' as const, value })),
    rawBody.map((text) => ({ kind: 'raw' as const, text, type: 'application/json' })),
    fc
      .tuple(fc.constantFrom('text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'image/png'), rawBody)
      .map(([type, text]) => ({ kind: 'raw' as const, text, type })),
  )
}

type Headers = Record<string, string>
const headerValue = fc.oneof(
  fc.constantFrom('', 'x'.repeat(8000), 'Bearer ', 'Bearer null', 'ñ'),
  fc.string({ maxLength: 30 }),
)

describe('every API route refuses bad input cleanly', () => {
  let t: TestApp
  let api: OpenAiApiDouble
  let token: string
  /** For `POST /api/logout-all`, which ends every token of its user: another user's. */
  let spareToken: string
  let operations: Operation[] = []

  beforeAll(async () => {
    api = await startOpenAiApi({ reply: 'A calm reply.' })
    const modelsFile = writeModelsFile([
      { id: 'tavern-8b', name: 'Tavern 8B', premium: false, contextTokens: 8192, baseUrl: api.baseUrl },
    ])
    t = await buildTestApp({ env: { MODELS_FILE: modelsFile, LLM_TIMEOUT_MS: '2000' } })
    const session = await t.login()
    token = session.token
    spareToken = (await t.login()).token
    const roleId = await createRole(t.database.db, { name: 'Fuzz Target', firstMessage: 'Hello, {{user}}.' })
    const created = await t.injectWithLogin({ method: 'POST', url: '/api/createSession', payload: { roleId } }, session)
    expect(created.statusCode).toBe(200)

    const doc = (await t.app.inject({ method: 'GET', url: '/api/docs/json' })).json() as {
      paths: Record<string, Record<string, { parameters?: { in: string; name: string }[]; requestBody?: unknown }>>
    }
    for (const [path, methods] of Object.entries(doc.paths)) {
      if (!path.startsWith('/api/') || path.startsWith('/api/docs')) continue
      for (const [method, spec] of Object.entries(methods)) {
        const parameters = spec.parameters ?? []
        const schema = (
          spec.requestBody as { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> }
        )?.content
        const bodyProps = Object.values(schema ?? {}).flatMap((c) => Object.keys(c.schema?.properties ?? {}))
        operations.push({
          method: method.toUpperCase() as Operation['method'],
          path,
          params: parameters.filter((p) => p.in === 'path').map((p) => p.name),
          query: parameters.filter((p) => p.in === 'query').map((p) => p.name),
          body: [...new Set(bodyProps)],
        })
      }
    }
    operations = operations.sort((a, b) => `${a.path} ${a.method}`.localeCompare(`${b.path} ${b.method}`))
  })
  afterAll(async () => {
    await t?.close()
    await api?.close()
  })

  it('finds the routes to test in the OpenAPI document', () => {
    expect(operations.length).toBeGreaterThan(40)
    expect(operations.some((o) => o.path === '/api/chat' && o.body.includes('message'))).toBe(true)
  })

  it('never answers 5xx, and refuses with the error envelope', async () => {
    const problems: string[] = []
    let sent = 0
    for (const op of operations) {
      const request = fc.record({
        params: fc.tuple(...op.params.map(() => hostileString), fc.constant('')),
        query: fc.record(Object.fromEntries(op.query.map((name) => [name, hostileString])), { requiredKeys: [] }),
        extraQuery: fc.dictionary(hostileString, hostileString, { maxKeys: 2 }),
        body: bodyFor(op),
        auth: fc.constantFrom('none', 'valid', 'garbage'),
        headers: fc.dictionary(
          fc.constantFrom(
            'accept-language',
            'cookie',
            'x-request-id',
            'user-agent',
            'x-forwarded-for',
            'origin',
            'referer',
          ),
          headerValue,
          { maxKeys: 3 },
        ),
      })
      await fc
        .assert(
          fc.asyncProperty(request, async (input) => {
            let url = op.path
            op.params.forEach((name, i) => {
              url = url.replace(`{${name}}`, encodeURIComponent((input.params[i] || 'x').toWellFormed()))
            })
            const search = new URLSearchParams()
            for (const [k, v] of Object.entries({ ...input.extraQuery, ...input.query })) search.append(k, String(v))
            const qs = search.toString()
            const headers: Headers = {}
            for (const [k, v] of Object.entries(input.headers)) {
              // Header values with control characters cannot be sent at all (the HTTP client refuses them).
              if (/^[\t\x20-\x7e\x80-\xff]*$/.test(v)) headers[k] = v
            }
            // "Log out everywhere" ends the tokens of the user it is sent for: it gets a user of its
            // own, so the routes after it still run signed in and the reads below still work.
            const own = op.path === '/api/logout-all' ? spareToken : token
            if (input.auth === 'valid') headers.authorization = `Bearer ${own}`
            if (input.auth === 'garbage') headers.authorization = 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.'
            const options: InjectOptions = { method: op.method, url: qs ? `${url}?${qs}` : url, headers }
            if (op.method !== 'GET' && op.method !== 'DELETE') {
              if (input.body.kind === 'json') {
                options.payload = JSON.stringify(input.body.value)
                headers['content-type'] = 'application/json'
              } else {
                options.payload = input.body.text
                headers['content-type'] = input.body.type
              }
            }
            const res = await t.app.inject(options)
            sent++
            const where = `${op.method} ${op.path} → ${res.statusCode}`
            if (res.statusCode >= 500) {
              problems.push(`${where}: ${res.body.slice(0, 300)} (request ${JSON.stringify(options).slice(0, 300)})`)
              return false
            }
            if (res.statusCode >= 400 && res.headers['content-type']?.includes('application/json')) {
              const body = res.json() as { success?: unknown; code?: unknown; error?: unknown; message?: unknown }
              const enveloped =
                body.success === false &&
                body.code === res.statusCode &&
                typeof body.message === 'string' &&
                (ERROR_CODES as readonly string[]).includes(String(body.error))
              if (!enveloped) {
                problems.push(`${where}: not the error envelope: ${res.body.slice(0, 200)}`)
                return false
              }
            }
            return true
          }),
          { numRuns: RUNS, endOnFailure: true },
        )
        .catch((error: unknown) => {
          // A property that returned false is already in `problems`; anything else is a problem too.
          if (!problems.some((p) => p.startsWith(`${op.method} ${op.path} `)))
            problems.push(`${op.method} ${op.path}: ${String(error).slice(0, 500)}`)
        })
    }
    expect(problems).toEqual([])
    expect(sent).toBe(operations.length * RUNS)
  }, 600_000)

  it('still serves every read after the barrage (nothing stored breaks a later page)', async () => {
    const auth = { authorization: `Bearer ${token}` }
    for (const url of ['/api/roles', '/api/roles?sort=newest', '/api/tags', '/api/models', '/api/plan', '/api/blogs']) {
      const res = await t.app.inject({ method: 'GET', url })
      expect(res.statusCode, url).toBe(200)
    }
    const sessions = await t.app.inject({ method: 'POST', url: '/api/sessions', headers: auth, payload: {} })
    expect(sessions.statusCode).toBe(200)
    for (const session of sessions.json().data.sessions as { id: string }[]) {
      const messages = await t.app.inject({
        method: 'POST',
        url: '/api/messages',
        headers: auth,
        payload: { sessionId: session.id },
      })
      expect(messages.statusCode).toBe(200)
    }
    const mine = await t.app.inject({ method: 'GET', url: '/api/my/roles', headers: auth })
    expect(mine.statusCode).toBe(200)
    for (const role of mine.json().data.roles as { roleId: string }[]) {
      expect((await t.app.inject({ method: 'GET', url: `/api/role?roleId=${role.roleId}` })).statusCode).toBe(200)
    }
  })
})
