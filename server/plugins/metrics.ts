import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import { AppError } from '#server/lib/errors.ts'

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Registry
  }
}

/**
 * Prometheus metrics at `/metrics`: process defaults, a request-duration histogram, and the
 * background jobs waiting and failed for good per kind (ADR 017), read from the database on scrape.
 * They tell a stranger the routes, the error rates and the job backlog, so (ADR 026) with a token
 * only a scraper sending `Authorization: Bearer <token>` gets them; without one they are open only
 * when `open` (outside production) and not served at all otherwise.
 */
export default fp(
  async function metrics(app: FastifyInstance, options: { token: string | undefined; open: boolean }) {
    const registry = new Registry()
    collectDefaultMetrics({ register: registry })
    const duration = new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time from request received to response sent',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
      registers: [registry],
    })
    new Gauge({
      name: 'jobs',
      help: 'Background jobs per kind: waiting or running (state="pending"), failed for good (state="failed")',
      labelNames: ['kind', 'state'],
      registers: [registry],
      async collect() {
        // A database that does not answer leaves the gauge empty rather than failing the scrape.
        const counts = await app.services.jobs.counts().catch(() => undefined)
        this.reset()
        for (const [kind, { pending, failed }] of Object.entries(counts ?? {})) {
          this.set({ kind, state: 'pending' }, pending)
          this.set({ kind, state: 'failed' }, failed)
        }
      },
    })
    app.decorate('metrics', registry)

    app.addHook('onResponse', async (request, reply) => {
      // The route pattern, never the raw URL, so ids and queries do not explode the label set.
      const route = request.routeOptions.url ?? 'unmatched'
      duration.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000)
    })

    if (!options.token && !options.open) return
    const expected = options.token ? digest(options.token) : undefined
    app.get('/metrics', { schema: { hide: true }, logLevel: 'warn' }, async (request, reply) => {
      if (expected) {
        const header = request.headers.authorization ?? ''
        const given = header.startsWith('Bearer ') ? header.slice('Bearer '.length).trim() : ''
        // Digests of equal length, compared in constant time: the answer's timing says nothing.
        if (!timingSafeEqual(digest(given), expected)) {
          reply.header('www-authenticate', 'Bearer realm="metrics"')
          throw AppError.unauthorized()
        }
      }
      reply.header('content-type', registry.contentType)
      reply.header('cache-control', 'no-store')
      return registry.metrics()
    })
  },
  { name: 'metrics' },
)

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest()
}
