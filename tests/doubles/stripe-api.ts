import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import Stripe from 'stripe'

type StripeObject = Record<string, unknown>

/**
 * Stripe's API as far as the product calls it (`POST /v1/checkout/sessions` and
 * `POST /v1/subscriptions/:id`, form-encoded, with the SDK's Bearer key and Idempotency-Key), plus
 * webhook deliveries (`event()`, `paidCheckout()`, `subscriptionEvent()`, `endSubscription()`)
 * whose `Stripe-Signature` headers come from the `stripe` SDK's own test helper, exactly as Stripe
 * signs them.
 */
export async function startStripeApi(options: { secretKey: string; webhookSecret: string }) {
  const sessions = new Map<string, StripeObject>()
  /** Subscriptions Stripe holds: created when a checkout is paid (`paidCheckout()`). */
  const subscriptions = new Map<string, StripeObject>()
  const byIdempotencyKey = new Map<string, string>()
  /** Stripe answers a reused key with the first answer, or 400 when the parameters differ. */
  const subscriptionUpdates = new Map<string, { form: string; response: StripeObject }>()
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
    const subscriptionPath = /^\/v1\/subscriptions\/([\w-]+)$/.exec(req.url ?? '')
    if (req.method === 'POST' && subscriptionPath?.[1]) {
      const id = subscriptionPath[1]
      const formText = form.toString()
      const replayed = idempotencyKey ? subscriptionUpdates.get(`${id}|${idempotencyKey}`) : undefined
      if (replayed) {
        if (replayed.form !== formText) {
          return send(400, {
            error: {
              type: 'idempotency_error',
              message: `Keys for idempotent requests can only be used with the same parameters they were first used with.`,
            },
          })
        }
        return send(200, replayed.response)
      }
      const subscription = subscriptions.get(id)
      if (!subscription) {
        return send(404, {
          error: {
            type: 'invalid_request_error',
            code: 'resource_missing',
            param: 'id',
            message: `No such subscription: '${id}'`,
          },
        })
      }
      if (subscription.status === 'canceled') {
        return send(400, {
          error: {
            type: 'invalid_request_error',
            message: 'A canceled subscription can only update its cancellation_details and metadata.',
          },
        })
      }
      const cancel = form.get('cancel_at_period_end')
      if (cancel !== null) {
        const periodEnd = periodEndOf(subscription)
        Object.assign(
          subscription,
          cancel === 'true'
            ? { cancel_at_period_end: true, cancel_at: periodEnd, canceled_at: Math.floor(Date.now() / 1000) }
            : { cancel_at_period_end: false, cancel_at: null, canceled_at: null },
        )
      }
      const response = structuredClone(subscription)
      if (idempotencyKey) subscriptionUpdates.set(`${id}|${idempotencyKey}`, { form: formText, response })
      return send(200, response)
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
  const periodEndOf = (subscription: StripeObject) =>
    ((subscription.items as { data: { current_period_end: number }[] }).data[0]?.current_period_end ?? 0) as number

  /** A webhook delivery: the JSON body and its `Stripe-Signature` header. */
  function event(type: string, object: StripeObject, created = Math.floor(Date.now() / 1000)) {
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
  }

  return {
    url,
    sessions,
    subscriptions,
    requests,
    /** The next `n` API calls answer 500. */
    failNext(n = 1) {
      failNext = n
    },
    event,
    /**
     * The buyer paid a Checkout Session of subscription mode: Stripe now holds the subscription
     * (so `POST /v1/subscriptions/:id` finds it), and sends `checkout.session.completed` and the
     * first `invoice.paid` (`billing_reason: subscription_create`), which may arrive in either order.
     */
    paidCheckout(
      checkoutSession: StripeObject,
      { periodDays = 30, at = Math.floor(Date.now() / 1000) }: { periodDays?: number; at?: number } = {},
    ) {
      const metadata = (checkoutSession.metadata ?? {}) as Record<string, string>
      const orderId = metadata.orderId ?? String(checkoutSession.client_reference_id)
      const subscriptionId = `sub_test_${randomBytes(12).toString('hex')}`
      const periodEnd = at + periodDays * 86400
      subscriptions.set(subscriptionId, {
        id: subscriptionId,
        object: 'subscription',
        status: 'active',
        metadata,
        cancel_at_period_end: false,
        cancel_at: null,
        canceled_at: null,
        ended_at: null,
        start_date: at,
        items: { object: 'list', data: [{ current_period_start: at, current_period_end: periodEnd }] },
      })
      const completed = event(
        'checkout.session.completed',
        { ...checkoutSession, status: 'complete', payment_status: 'paid', subscription: subscriptionId },
        at,
      )
      const invoicePaid = event(
        'invoice.paid',
        {
          id: `in_test_${randomBytes(12).toString('hex')}`,
          object: 'invoice',
          billing_reason: 'subscription_create',
          parent: {
            type: 'subscription_details',
            subscription_details: { subscription: subscriptionId, metadata: { ...metadata, orderId } },
          },
          lines: { data: [{ period: { start: at, end: periodEnd } }] },
        },
        at,
      )
      return { subscriptionId, completed, invoicePaid }
    },
    /** A `customer.subscription.*` delivery carrying the subscription as Stripe holds it now. */
    subscriptionEvent(type: string, subscriptionId: string, created?: number) {
      const subscription = subscriptions.get(subscriptionId)
      if (!subscription) throw new Error(`The Stripe double holds no subscription ${subscriptionId}`)
      return event(type, structuredClone(subscription), created)
    },
    /** The period ended without renewal (or the subscription was cancelled at once): `customer.subscription.deleted`. */
    endSubscription(subscriptionId: string, at = Math.floor(Date.now() / 1000)) {
      const subscription = subscriptions.get(subscriptionId)
      if (!subscription) throw new Error(`The Stripe double holds no subscription ${subscriptionId}`)
      Object.assign(subscription, { status: 'canceled', ended_at: at, canceled_at: subscription.canceled_at ?? at })
      return event('customer.subscription.deleted', structuredClone(subscription), at)
    },
    async close() {
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    },
  }
}

export type StripeApiDouble = Awaited<ReturnType<typeof startStripeApi>>
