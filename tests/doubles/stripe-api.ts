import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import Stripe from 'stripe'

/**
 * Stripe's API as far as the product calls it (`POST /v1/checkout/sessions`, form-encoded, with
 * the SDK's Bearer key and Idempotency-Key), plus `sign()` producing webhook bodies and
 * `Stripe-Signature` headers with the `stripe` SDK's own test helper, exactly as Stripe signs them.
 */
export async function startStripeApi(options: { secretKey: string; webhookSecret: string }) {
  const sessions = new Map<string, Record<string, unknown>>()
  const byIdempotencyKey = new Map<string, string>()
  const requests: { path: string; form: URLSearchParams; idempotencyKey?: string }[] = []
  let failNext = 0

  const readBody = async (req: IncomingMessage) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks).toString('utf8')
  }

  const server = createServer(async (req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, {
        'content-type': 'application/json',
        'request-id': `req_${randomBytes(6).toString('hex')}`,
      })
      res.end(JSON.stringify(body))
    }
    if (req.headers.authorization !== `Bearer ${options.secretKey}`) {
      return send(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } })
    }
    const form = new URLSearchParams(await readBody(req))
    const idempotencyKey = req.headers['idempotency-key'] as string | undefined
    requests.push({ path: req.url ?? '', form, idempotencyKey })
    if (failNext > 0) {
      failNext -= 1
      return send(500, { error: { type: 'api_error', message: 'Something went wrong on Stripe’s end.' } })
    }
    if (req.method === 'POST' && req.url === '/v1/checkout/sessions') {
      const known = idempotencyKey && byIdempotencyKey.get(idempotencyKey)
      if (known) return send(200, sessions.get(known))
      const id = `cs_test_${randomBytes(12).toString('hex')}`
      const metadata: Record<string, string> = {}
      for (const [key, value] of form) {
        const match = /^metadata\[(\w+)\]$/.exec(key)
        if (match?.[1]) metadata[match[1]] = value
      }
      const session = {
        id,
        object: 'checkout.session',
        mode: form.get('mode'),
        client_reference_id: form.get('client_reference_id'),
        amount_total: Number(form.get('line_items[0][price_data][unit_amount]')),
        currency: form.get('line_items[0][price_data][currency]'),
        metadata,
        success_url: form.get('success_url'),
        cancel_url: form.get('cancel_url'),
        payment_status: 'unpaid',
        status: 'open',
        url: `https://checkout.stripe.test/c/pay/${id}`,
      }
      sessions.set(id, session)
      if (idempotencyKey) byIdempotencyKey.set(idempotencyKey, id)
      return send(200, session)
    }
    send(404, {
      error: { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method}: ${req.url})` },
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const sdk = new Stripe(options.secretKey)
  let eventCounter = 0

  return {
    url,
    sessions,
    requests,
    /** The next `n` API calls answer 500. */
    failNext(n = 1) {
      failNext = n
    },
    /** A webhook delivery: the JSON body and its `Stripe-Signature` header. */
    event(type: string, object: Record<string, unknown>, created = Math.floor(Date.now() / 1000)) {
      eventCounter += 1
      const payload = JSON.stringify({
        id: `evt_test_${eventCounter}_${randomBytes(6).toString('hex')}`,
        object: 'event',
        api_version: '2026-10-28.endive',
        created,
        type,
        livemode: false,
        pending_webhooks: 1,
        data: { object },
      })
      const signature = sdk.webhooks.generateTestHeaderString({ payload, secret: options.webhookSecret })
      return { payload, signature }
    },
    async close() {
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    },
  }
}

export type StripeApiDouble = Awaited<ReturnType<typeof startStripeApi>>
