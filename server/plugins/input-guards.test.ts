import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { jsonDepthExceeds, MAX_JSON_DEPTH, scanJson } from '#server/lib/json-text.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

describe('input guards', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await buildTestApp()
  })
  afterAll(() => t.close())

  const post = (payload: string) =>
    t.injectWithLogin({
      method: 'POST',
      url: '/api/sessions',
      payload,
      headers: { 'content-type': 'application/json' },
    })

  it('refuses JSON nested deeper than the limit, before parsing, and takes it at the limit', async () => {
    const nested = (depth: number) => `{"page":1,"x":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`
    expect((await post(nested(MAX_JSON_DEPTH))).statusCode).toBe(200)
    const deep = await post(nested(MAX_JSON_DEPTH + 1))
    expect(deep.statusCode).toBe(400)
    expect(deep.json()).toMatchObject({
      success: false,
      error: 'BAD_REQUEST',
      message: expect.stringContaining('nested'),
    })
    expect((await post(nested(600_000))).statusCode).toBe(413)
    expect((await post(nested(200_000))).statusCode).toBe(400)
  })

  it('still refuses prototype poisoning and malformed JSON with the envelope', async () => {
    for (const body of ['{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"x":1}}}', '{"page":', '[1,2']) {
      const res = await post(body)
      expect(res.statusCode, body).toBe(400)
      expect(res.json().success).toBe(false)
    }
  })

  it('refuses NUL characters in the path, query and body', async () => {
    const role = await t.app.inject({ method: 'GET', url: '/api/roles/%00x/export.json' })
    expect(role.statusCode).toBe(400)
    expect(role.json().error).toBe('VALIDATION_ERROR')
    expect((await t.app.inject({ method: 'GET', url: '/api/roles?q=a%00b' })).statusCode).toBe(400)
    expect((await t.app.inject({ method: 'GET', url: '/api/roles?q=ab' })).statusCode).toBe(200)
    const body = await t.app.inject({
      method: 'POST',
      url: '/api/login',
      payload: { email: 'a@b.test', password: 'pass\u0000word' },
    })
    expect(body.statusCode).toBe(400)
  })

  it('counts depth outside strings only, whatever the text', () => {
    expect(jsonDepthExceeds('{"a":"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}', 2)).toBe(false)
    expect(jsonDepthExceeds('{"a":"\\"[[[[","b":[[1]]}', 3)).toBe(false)
    expect(jsonDepthExceeds('{"a":"\\"[[[[","b":[[[1]]]}', 3)).toBe(true)
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        const text = JSON.stringify(value)
        const depth = (v: unknown): number =>
          v !== null && typeof v === 'object' ? 1 + Math.max(0, ...Object.values(v).map(depth)) : 0
        expect(jsonDepthExceeds(text, depth(value))).toBe(false)
        if (depth(value) > 0) expect(jsonDepthExceeds(text, depth(value) - 1)).toBe(true)
      }),
    )
  })

  it('finds an escaped NUL inside strings only, and not an escaped backslash before u0000', () => {
    expect(scanJson('{"a":["x\\u0000"]}')).toBe('nul')
    expect(scanJson('{"a\\u0000":1}')).toBe('nul')
    expect(scanJson('{"a":"\\\\u0000"}')).toBe(null)
    expect(scanJson('{"a":"fine","b":[1,2]}')).toBe(null)
  })
})

describe('router errors', () => {
  it('answer a path parameter over the limit with the envelope, not the path', async () => {
    const t = await buildTestApp()
    try {
      const res = await t.app.inject({ method: 'GET', url: `/api/roles/${'A'.repeat(5000)}/export.json` })
      expect(res.statusCode).toBe(414)
      expect(res.json()).toEqual({
        code: 414,
        success: false,
        error: 'BAD_REQUEST',
        message: 'A path parameter is too long.',
      })
    } finally {
      await t.close()
    }
  })
})
