import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

// The path chooses how a plan is paid (/subscription: card, /payment: crypto); the `paymentType`
// field the body used to declare was never read. It is gone from the API, and a page still
// sending it is answered as before.
describe('starting a payment: no paymentType field', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await buildTestApp()
  })
  afterAll(() => t.close())

  it('is not part of the documented request bodies', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/docs/json' })).json() as {
      paths: Record<
        string,
        { post?: { requestBody?: { content: Record<string, { schema: { properties: object } }> } } }
      >
    }
    for (const path of ['/api/subscription', '/api/payment']) {
      const schema = doc.paths[path]?.post?.requestBody?.content['application/json']?.schema
      expect(Object.keys(schema?.properties ?? {}).sort()).toEqual(['billingCycle', 'locale', 'planId'])
    }
  })

  it('is ignored when an older page still sends it: the path decides', async () => {
    const session = await t.login()
    const res = await t.injectWithLogin(
      {
        method: 'POST',
        url: '/api/subscription',
        payload: { paymentType: 'crypto', planId: 'plus', billingCycle: 'monthly', locale: 'de' },
      },
      session,
    )
    expect(res.statusCode).toBe(200)
    const { orderId, paymentUrl } = res.json().data
    expect(paymentUrl).toBe(`http://localhost:3000/de/subscribe/sandbox?orderId=${orderId}`)
    const current = await t.injectWithLogin(
      { method: 'POST', url: '/api/payment/status', payload: { orderId } },
      session,
    )
    expect(current.json().data.status).toBe('pending')
  })
})
