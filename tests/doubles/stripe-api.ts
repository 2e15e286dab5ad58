import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import Stripe from 'stripe'

type StripeObject = Record<string, unknown>

const DAY = 86400
/** Pending updates accept only these parameters; Stripe refuses anything else with them. */
const PENDING_UPDATE_PARAMS =
  /^(expand|payment_behavior|proration_behavior|proration_date|billing_cycle_anchor|items|trial_end|trial_from_plan|add_invoice_items)\b/

/**
 * Stripe's API as far as the product calls it (`POST /v1/checkout/sessions`, `GET
 * /v1/checkout/sessions/:id` and `POST .../:id/expire`, `GET`/`POST`/`DELETE /v1/subscriptions/:id`,
 * `GET`/`POST /v1/prices`, `GET /v1/invoice_payments`, `POST /v1/refunds`, form-encoded, with the
 * SDK's Bearer key and Idempotency-Key), plus webhook deliveries (`event()`, `paidCheckout()`,
 * `subscriptionEvent()`, `endSubscription()`) whose `Stripe-Signature` headers come from the
 * `stripe` SDK's own test helper, exactly as Stripe signs them.
 *
 * A price change of a subscription (`items[0][id]` + `items[0][price]`) prorates as Stripe does:
 * the same interval keeps the period and invoices the price difference for the time left; another
 * interval starts a new period now and invoices the new price less the unused time of the old one.
 * With `proration_behavior=always_invoice` the invoice is charged at once; the events Stripe then
 * sends (`invoice.paid` with `billing_reason: subscription_update`, `customer.subscription.updated`)
 * wait in `outbox` for the test to deliver. `declineNext()` makes the next charge fail: with
 * `payment_behavior=pending_if_incomplete` the subscription keeps its price and gets a
 * `pending_update`, and `invoice.payment_failed` is sent.
 *
 * A Checkout Session is `open` until it is paid (`paidCheckout()`, then `complete`) or expired
 * (`POST .../expire`, then `expired`, and `checkout.session.expired` is sent); Stripe expires only an
 * open session, and an expired one can no longer be paid. Paying one creates the subscription, its
 * first invoice and that invoice's payment (a PaymentIntent), which `POST /v1/refunds` gives back
 * once: a second full refund is refused with `charge_already_refunded`; each refund sends `refund.created`
 * and `charge.refunded` (to the outbox), and `refundEvent()` makes a later `refund.updated`. Cancelling a subscription
 * (`DELETE`) ends it at once and sends `customer.subscription.deleted`.
 */
export async function startStripeApi(options: { secretKey: string; webhookSecret: string }) {
  const sessions = new Map<string, StripeObject>()
  /** Subscriptions Stripe holds: created when a checkout is paid (`paidCheckout()`). */
  const subscriptions = new Map<string, StripeObject>()
  const byIdempotencyKey = new Map<string, string>()
  /** Stripe answers a reused key with the first answer, or 400 when the parameters differ. */
  const subscriptionUpdates = new Map<string, { form: string; response: StripeObject }>()
  const requests: { method: string; path: string; form: URLSearchParams; idempotencyKey?: string }[] = []
  /** Prices made through the API (Checkout's inline prices live on their subscription items only). */
  const prices = new Map<string, StripeObject>()
  const pricesByKey = new Map<string, string>()
  /** What each Checkout Session sells, as its `line_items[0][price_data]` said. */
  const sessionLines = new Map<string, { unitAmount: number; currency: string; interval: string; name: string }>()
  /** Invoices Stripe charged for subscription changes: amount and what they were for. */
  const invoices: StripeObject[] = []
  /** Invoice payments (`invoice_payment` objects) of paid first invoices, by invoice id. */
  const invoicePayments = new Map<string, StripeObject[]>()
  /** What each PaymentIntent took and how much of it was refunded. */
  const paymentIntents = new Map<string, { amount: number; currency: string; refunded: number; charge: string }>()
  const refunds: StripeObject[] = []
  /** Answers to `POST /v1/refunds` and `DELETE` by Idempotency-Key, as Stripe replays them. */
  const replays = new Map<string, { form: string; status: number; response: unknown }>()
  /** Signed deliveries of the events Stripe sent after an API call, oldest first. */
  const outbox: { type: string; payload: string; signature: string }[] = []
  let failNext = 0
  let declineNext = 0

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
    const [path = '', query = ''] = (req.url ?? '').split('?')
    // The SDK sends the parameters of GET and DELETE in the query string, the others in the body.
    const form = new URLSearchParams(req.method === 'GET' || req.method === 'DELETE' ? query : await readBody(req))
    const idempotencyKey = req.headers['idempotency-key'] as string | undefined
    requests.push({ method: req.method ?? '', path, form, idempotencyKey })
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
      sessionLines.set(id, {
        unitAmount: Number(form.get('line_items[0][price_data][unit_amount]')),
        currency: form.get('line_items[0][price_data][currency]') ?? '',
        interval: form.get('line_items[0][price_data][recurring][interval]') ?? 'month',
        name: form.get('line_items[0][price_data][product_data][name]') ?? '',
      })
      if (idempotencyKey) byIdempotencyKey.set(idempotencyKey, id)
      return send(200, session)
    }
    const sessionPath = /^\/v1\/checkout\/sessions\/([\w-]+)(\/expire)?$/.exec(path)
    if (sessionPath?.[1] && (req.method === 'GET' ? !sessionPath[2] : req.method === 'POST' && sessionPath[2])) {
      const session = sessions.get(sessionPath[1])
      if (!session) {
        return send(404, {
          error: {
            type: 'invalid_request_error',
            code: 'resource_missing',
            param: 'session',
            message: `No such checkout.session: '${sessionPath[1]}'`,
          },
        })
      }
      if (req.method === 'GET') return send(200, session)
      if (session.status !== 'open') {
        return send(400, {
          error: {
            type: 'invalid_request_error',
            message: `Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "${String(session.status)}".`,
          },
        })
      }
      Object.assign(session, { status: 'expired', url: null })
      outbox.push({ type: 'checkout.session.expired', ...event('checkout.session.expired', structuredClone(session)) })
      return send(200, session)
    }
    if (req.method === 'GET' && path === '/v1/invoice_payments') {
      const status = form.get('status')
      const data = (invoicePayments.get(form.get('invoice') ?? '') ?? []).filter((p) => !status || p.status === status)
      return send(200, { object: 'list', url: '/v1/invoice_payments', has_more: false, data })
    }
    if (req.method === 'POST' && path === '/v1/refunds') {
      const key = idempotencyKey && `refunds|${idempotencyKey}`
      const replayed = key ? replays.get(key) : undefined
      if (replayed) return send(replayed.status, replayed.response)
      const [status, response] = refund(form)
      if (key) replays.set(key, { form: form.toString(), status, response })
      return send(status, response)
    }
    if (req.method === 'GET' && path === '/v1/prices') {
      // The SDK sends arrays as `lookup_keys[0]=...`.
      const keys = [...form].filter(([key]) => /^lookup_keys\[\d*\]$/.test(key)).map(([, value]) => value)
      const data = keys.flatMap((key) => {
        const id = pricesByKey.get(key)
        const price = id ? prices.get(id) : undefined
        return price && (form.get('active') !== 'true' || price.active) ? [price] : []
      })
      return send(200, { object: 'list', url: '/v1/prices', has_more: false, data })
    }
    if (req.method === 'POST' && path === '/v1/prices') {
      const known = idempotencyKey && byIdempotencyKey.get(idempotencyKey)
      if (known) return send(200, prices.get(known))
      const lookupKey = form.get('lookup_key')
      if (lookupKey && pricesByKey.has(lookupKey) && form.get('transfer_lookup_key') !== 'true') {
        return send(400, {
          error: {
            type: 'invalid_request_error',
            param: 'lookup_key',
            message: `A price (\`${pricesByKey.get(lookupKey)}\`) already uses that lookup key.`,
          },
        })
      }
      const interval = form.get('recurring[interval]')
      if (!form.get('currency') || !form.get('unit_amount') || !interval) {
        return send(400, { error: { type: 'invalid_request_error', message: 'Missing required param.' } })
      }
      const price = {
        id: `price_${randomBytes(12).toString('hex')}`,
        object: 'price',
        active: true,
        currency: form.get('currency'),
        unit_amount: Number(form.get('unit_amount')),
        recurring: { interval, interval_count: 1 },
        lookup_key: lookupKey,
        metadata: formMetadata(form, 'metadata'),
        product: `prod_${randomBytes(8).toString('hex')}`,
        type: 'recurring',
      }
      prices.set(price.id, price)
      if (lookupKey) pricesByKey.set(lookupKey, price.id)
      if (idempotencyKey) byIdempotencyKey.set(idempotencyKey, price.id)
      return send(200, price)
    }
    const subscriptionPath = /^\/v1\/subscriptions\/([\w-]+)$/.exec(path)
    if (req.method === 'GET' && subscriptionPath?.[1]) {
      const subscription = subscriptions.get(subscriptionPath[1])
      if (!subscription) return send(404, noSuchSubscription(subscriptionPath[1]))
      return send(200, subscription)
    }
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
      if (!subscription) return send(404, noSuchSubscription(id))
      if (subscription.status === 'canceled') {
        return send(400, {
          error: {
            type: 'invalid_request_error',
            message: 'A canceled subscription can only update its cancellation_details and metadata.',
          },
        })
      }
      if (form.get('payment_behavior') === 'pending_if_incomplete') {
        const unsupported = [...form.keys()].find((key) => !PENDING_UPDATE_PARAMS.test(key))
        if (unsupported) {
          return send(400, {
            error: {
              type: 'invalid_request_error',
              param: unsupported,
              message: `The parameter \`${unsupported}\` cannot be used with pending updates (payment_behavior=pending_if_incomplete).`,
            },
          })
        }
      }
      if (form.has('items[0][price]')) {
        const refused = changePrice(subscription, form)
        if (refused) return send(400, { error: { type: 'invalid_request_error', ...refused } })
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
    if (req.method === 'DELETE' && subscriptionPath?.[1]) {
      const id = subscriptionPath[1]
      const key = idempotencyKey && `delete|${id}|${idempotencyKey}`
      const replayed = key ? replays.get(key) : undefined
      if (replayed) return send(replayed.status, replayed.response)
      const subscription = subscriptions.get(id)
      // Stripe no longer finds a subscription to cancel once it has ended.
      if (!subscription || subscription.status === 'canceled') return send(404, noSuchSubscription(id))
      const now = Math.floor(Date.now() / 1000)
      Object.assign(subscription, { status: 'canceled', ended_at: now, canceled_at: now, pending_update: null })
      const response = structuredClone(subscription)
      outbox.push({ type: 'customer.subscription.deleted', ...event('customer.subscription.deleted', response, now) })
      if (key) replays.set(key, { form: form.toString(), status: 200, response })
      return send(200, response)
    }
    send(404, {
      error: { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method}: ${req.url})` },
    })
  })

  /** `POST /v1/refunds` by `payment_intent` or `charge`: the rest of the payment, or `amount` of it. */
  function refund(form: URLSearchParams): [number, unknown] {
    const chargeId = form.get('charge')
    const intentId =
      form.get('payment_intent') ?? [...paymentIntents].find(([, intent]) => intent.charge === chargeId)?.[0]
    const intent = intentId ? paymentIntents.get(intentId) : undefined
    if (!intentId || !intent) {
      const param = form.has('charge') ? 'charge' : 'payment_intent'
      return [
        404,
        {
          error: {
            type: 'invalid_request_error',
            code: 'resource_missing',
            param,
            message: `No such ${param}: '${form.get(param) ?? ''}'`,
          },
        },
      ]
    }
    const left = intent.amount - intent.refunded
    if (left <= 0) {
      return [
        400,
        {
          error: {
            type: 'invalid_request_error',
            code: 'charge_already_refunded',
            message: `Charge ${intent.charge} has already been refunded.`,
          },
        },
      ]
    }
    const amount = form.has('amount') ? Number(form.get('amount')) : left
    if (!(amount > 0 && amount <= left)) {
      return [
        400,
        {
          error: {
            type: 'invalid_request_error',
            param: 'amount',
            message: `Refund amount (${amount}) is greater than unrefunded amount on charge (${left})`,
          },
        },
      ]
    }
    intent.refunded += amount
    const created = {
      id: `re_${randomBytes(12).toString('hex')}`,
      object: 'refund',
      amount,
      currency: intent.currency,
      payment_intent: intentId,
      charge: intent.charge,
      reason: form.get('reason'),
      metadata: formMetadata(form, 'metadata'),
      status: 'succeeded',
    }
    refunds.push(created)
    // What Stripe then sends: `refund.created` with the Refund, and `charge.refunded` with the Charge
    // (whose `refunds` list recent API versions no longer include).
    const now = Math.floor(Date.now() / 1000)
    outbox.push({ type: 'refund.created', ...event('refund.created', structuredClone(created), now) })
    const charge = {
      id: intent.charge,
      object: 'charge',
      amount: intent.amount,
      amount_refunded: intent.refunded,
      currency: intent.currency,
      payment_intent: intentId,
      refunded: intent.refunded >= intent.amount,
      status: 'succeeded',
      metadata: {},
    }
    outbox.push({ type: 'charge.refunded', ...event('charge.refunded', charge, now) })
    return [200, created]
  }
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const sdk = new Stripe(options.secretKey)
  let eventCounter = 0
  const periodEndOf = (subscription: StripeObject) =>
    ((subscription.items as { data: { current_period_end: number }[] }).data[0]?.current_period_end ?? 0) as number

  function noSuchSubscription(id: string) {
    return {
      error: {
        type: 'invalid_request_error',
        code: 'resource_missing',
        param: 'id',
        message: `No such subscription: '${id}'`,
      },
    }
  }

  type Item = {
    id: string
    price: { id: string; unit_amount: number; recurring: { interval: string } }
    current_period_start: number
    current_period_end: number
  }

  /**
   * `items[0][id]` + `items[0][price]`: prorates, invoices (with `always_invoice`), charges and
   * applies the new price, or leaves a pending update when the charge fails. Returns an error to
   * answer with when the request is not one Stripe would accept.
   */
  function changePrice(subscription: StripeObject, form: URLSearchParams) {
    const items = (subscription.items as { data: Item[] }).data
    const item = items[0]
    if (!item || form.get('items[0][id]') !== item.id) {
      return { param: 'items[0][id]', message: `Invalid subscription_item id: ${form.get('items[0][id]')}` }
    }
    const price = prices.get(form.get('items[0][price]') ?? '') as Item['price'] | undefined
    if (!price) {
      return {
        code: 'resource_missing',
        param: 'items[0][price]',
        message: `No such price: '${form.get('items[0][price]')}'`,
      }
    }
    const behavior = form.get('proration_behavior') ?? 'create_prorations'
    if (!['always_invoice', 'create_prorations', 'none'].includes(behavior)) {
      return { param: 'proration_behavior', message: `Invalid proration_behavior: ${behavior}` }
    }
    const now = Math.floor(Date.now() / 1000)
    const { current_period_start: start, current_period_end: end } = item
    const unused = Math.max(0, end - now) / Math.max(1, end - start)
    const newInterval = price.recurring.interval !== item.price.recurring.interval
    // Another interval restarts the billing period now; the same one keeps it.
    const period = newInterval
      ? { start: now, end: now + (price.recurring.interval === 'year' ? 365 : 30) * DAY }
      : { start, end }
    const credit = Math.round(item.price.unit_amount * unused)
    const charge = newInterval ? price.unit_amount : Math.round(price.unit_amount * unused)
    const amountDue = behavior === 'none' && !newInterval ? 0 : Math.max(0, charge - credit)
    const invoice = {
      id: `in_test_${randomBytes(12).toString('hex')}`,
      object: 'invoice',
      billing_reason: 'subscription_update',
      amount_due: amountDue,
      amount_paid: 0,
      currency: (price as unknown as { currency: string }).currency,
      status: 'open',
      parent: {
        type: 'subscription_details',
        subscription_details: { subscription: subscription.id, metadata: subscription.metadata },
      },
      lines: {
        data: [
          { amount: -credit, proration: true, period: { start: now, end }, price: item.price.id },
          { amount: charge, proration: !newInterval, period: { start: now, end: period.end }, price: price.id },
        ],
      },
    }
    const charged = behavior === 'always_invoice' || newInterval
    if (charged && amountDue > 0 && declineNext > 0) {
      declineNext -= 1
      if (form.get('payment_behavior') === 'pending_if_incomplete') {
        subscription.pending_update = {
          expires_at: now + DAY,
          subscription_items: [{ id: item.id, price: structuredClone(price) }],
        }
        subscription.latest_invoice = invoice.id
        invoices.push(invoice)
        outbox.push({ type: 'invoice.payment_failed', ...event('invoice.payment_failed', invoice, now) })
        return undefined
      }
      subscription.status = 'past_due'
    } else if (charged) {
      Object.assign(invoice, { status: 'paid', amount_paid: amountDue })
    }
    const previous = structuredClone(subscription.items)
    items[0] = {
      ...item,
      price: structuredClone(price),
      current_period_start: period.start,
      current_period_end: period.end,
    }
    subscription.pending_update = null
    if (charged) {
      subscription.latest_invoice = invoice.id
      invoices.push(invoice)
    }
    outbox.push({
      type: 'customer.subscription.updated',
      ...event('customer.subscription.updated', structuredClone(subscription), now, { items: previous }),
    })
    if (charged && invoice.status === 'paid')
      outbox.push({ type: 'invoice.paid', ...event('invoice.paid', invoice, now) })
    return undefined
  }

  /** A webhook delivery: the JSON body and its `Stripe-Signature` header. */
  function event(
    type: string,
    object: StripeObject,
    created = Math.floor(Date.now() / 1000),
    previousAttributes?: StripeObject,
  ) {
    eventCounter += 1
    const payload = JSON.stringify({
      id: `evt_test_${eventCounter}_${randomBytes(6).toString('hex')}`,
      object: 'event',
      api_version: '2026-10-28.endive',
      created,
      type,
      livemode: false,
      pending_webhooks: 1,
      data: previousAttributes ? { object, previous_attributes: previousAttributes } : { object },
    })
    const signature = sdk.webhooks.generateTestHeaderString({ payload, secret: options.webhookSecret })
    return { payload, signature }
  }

  return {
    url,
    sessions,
    subscriptions,
    prices,
    invoices,
    refunds,
    outbox,
    requests,
    /** A `refund.*` delivery carrying a refund as Stripe holds it now (`changes` applied first). */
    refundEvent(type: string, refundId: string, changes: StripeObject = {}) {
      const held = refunds.find((r) => r.id === refundId)
      if (!held) throw new Error(`The Stripe double holds no refund ${refundId}`)
      Object.assign(held, changes)
      return event(type, structuredClone(held))
    },
    /** The next `n` API calls answer 500. */
    failNext(n = 1) {
      failNext = n
    },
    /** The next `n` charges for subscription changes are declined. */
    declineNext(n = 1) {
      declineNext = n
    },
    /** Takes the deliveries waiting in the outbox (oldest first). */
    takeEvents() {
      return outbox.splice(0)
    },
    event,
    /**
     * The buyer paid a Checkout Session of subscription mode: Stripe now holds the subscription
     * (so `POST /v1/subscriptions/:id` finds it), its paid first invoice and that invoice's payment,
     * and sends `checkout.session.completed` and the first `invoice.paid` (`billing_reason:
     * subscription_create`), which may arrive in either order. Only an open session can be paid:
     * Stripe shows an expired or completed one as such, so this throws for them.
     */
    paidCheckout(
      checkoutSession: StripeObject,
      { periodDays = 30, at = Math.floor(Date.now() / 1000) }: { periodDays?: number; at?: number } = {},
    ) {
      const held = sessions.get(String(checkoutSession.id))
      if (held && held.status !== 'open') {
        throw new Error(`Checkout Session ${String(checkoutSession.id)} is ${String(held.status)}: it cannot be paid`)
      }
      const metadata = (checkoutSession.metadata ?? {}) as Record<string, string>
      const orderId = metadata.orderId ?? String(checkoutSession.client_reference_id)
      const subscriptionId = `sub_test_${randomBytes(12).toString('hex')}`
      const periodEnd = at + periodDays * 86400
      const line = sessionLines.get(String(checkoutSession.id))
      // Checkout's inline price_data becomes a Price of its own, without lookup key or metadata.
      const price = {
        id: `price_${randomBytes(12).toString('hex')}`,
        object: 'price',
        active: false,
        currency: line?.currency ?? checkoutSession.currency,
        unit_amount: line?.unitAmount ?? checkoutSession.amount_total,
        recurring: { interval: line?.interval ?? 'month', interval_count: 1 },
        lookup_key: null,
        metadata: {},
        product: `prod_${randomBytes(8).toString('hex')}`,
        type: 'recurring',
      }
      const amount = Number(line?.unitAmount ?? checkoutSession.amount_total)
      const currency = String(line?.currency ?? checkoutSession.currency)
      const invoiceId = `in_test_${randomBytes(12).toString('hex')}`
      const intentId = `pi_test_${randomBytes(12).toString('hex')}`
      paymentIntents.set(intentId, {
        amount,
        currency,
        refunded: 0,
        charge: `ch_test_${randomBytes(12).toString('hex')}`,
      })
      invoicePayments.set(invoiceId, [
        {
          id: `inpay_${randomBytes(12).toString('hex')}`,
          object: 'invoice_payment',
          invoice: invoiceId,
          amount_paid: amount,
          currency,
          is_default: true,
          status: 'paid',
          payment: { type: 'payment_intent', payment_intent: intentId },
        },
      ])
      if (held)
        Object.assign(held, {
          status: 'complete',
          payment_status: 'paid',
          subscription: subscriptionId,
          invoice: invoiceId,
        })
      subscriptions.set(subscriptionId, {
        id: subscriptionId,
        object: 'subscription',
        status: 'active',
        latest_invoice: invoiceId,
        metadata,
        cancel_at_period_end: false,
        cancel_at: null,
        canceled_at: null,
        ended_at: null,
        start_date: at,
        pending_update: null,
        items: {
          object: 'list',
          data: [
            {
              id: `si_${randomBytes(10).toString('hex')}`,
              object: 'subscription_item',
              quantity: 1,
              price,
              current_period_start: at,
              current_period_end: periodEnd,
            },
          ],
        },
      })
      const completed = event(
        'checkout.session.completed',
        { ...checkoutSession, status: 'complete', payment_status: 'paid', subscription: subscriptionId },
        at,
      )
      const invoicePaid = event(
        'invoice.paid',
        {
          id: invoiceId,
          object: 'invoice',
          billing_reason: 'subscription_create',
          status: 'paid',
          amount_paid: amount,
          currency,
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

/** `metadata[key]=value` fields of a form, as an object. */
function formMetadata(form: URLSearchParams, prefix: string): Record<string, string> {
  const metadata: Record<string, string> = {}
  for (const [key, value] of form) {
    const match = new RegExp(`^${prefix}\\[(\\w+)\\]$`).exec(key)
    if (match?.[1]) metadata[match[1]] = value
  }
  return metadata
}
