import { randomUUID } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import { constants as zlib } from 'node:zlib'
import compress from '@fastify/compress'
import cookie from '@fastify/cookie'
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify'
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod'
import type { ViteDevServer } from 'vite'
import type { DatabaseHandle } from '#db/client.ts'
import type { Config } from '#server/config.ts'
import type { KeyValueStore } from '#server/lib/key-value-store.ts'
import { redactUrl } from '#server/lib/log-redaction.ts'
import { accountRoutes } from '#server/modules/account/account.routes.ts'
import { authRoutes } from '#server/modules/auth/auth.routes.ts'
import { blogAssetRoutes, blogRoutes } from '#server/modules/blog/blog.routes.ts'
import { catalogueRoutes } from '#server/modules/catalogue/catalogue.routes.ts'
import { CATALOGUE_VERSION_MAX_AGE_MS, type ListingCacheOptions } from '#server/modules/catalogue/catalogue.service.ts'
import { charactersRoutes } from '#server/modules/characters/characters.routes.ts'
import { chatRoutes } from '#server/modules/chat/chat.routes.ts'
import { chatBranchesRoutes } from '#server/modules/chat/chat-branches.routes.ts'
import { chatScenesRoutes } from '#server/modules/chat/chat-scenes.routes.ts'
import { chatTidyRoutes } from '#server/modules/chat/chat-tidy.routes.ts'
import { personasRoutes } from '#server/modules/chat/personas/personas.routes.ts'
import { chatTransferRoutes } from '#server/modules/chat/transfer/chat-transfer.routes.ts'
import { writingAidsRoutes } from '#server/modules/chat/writing-aids.routes.ts'
import { curationRoutes } from '#server/modules/curation/curation.routes.ts'
import { diamondsRoutes } from '#server/modules/diamonds/diamonds.routes.ts'
import { consoleHealthRoutes } from '#server/modules/health/console-health.routes.ts'
import { healthRoutes } from '#server/modules/health/health.routes.ts'
import { imagesRoutes } from '#server/modules/images/images.routes.ts'
import type { JobQueueOptions } from '#server/modules/jobs/job-queue.ts'
import { contactRoutes } from '#server/modules/links/contact.routes.ts'
import { lorebooksRoutes } from '#server/modules/lorebooks/lorebooks.routes.ts'
import { modelsRoutes } from '#server/modules/models/models.routes.ts'
import { moderationRoutes } from '#server/modules/moderation/moderation.routes.ts'
import { moderationConsoleRoutes } from '#server/modules/moderation/moderation-console.routes.ts'
import { peopleRoutes } from '#server/modules/moderation/people.routes.ts'
import { moneyRoutes } from '#server/modules/payments/money.routes.ts'
import { paymentsRoutes } from '#server/modules/payments/payments.routes.ts'
import { webhookRoutes } from '#server/modules/payments/webhooks.routes.ts'
import { roleTextsRoutes } from '#server/modules/role-texts/role-texts.routes.ts'
import { translateDraftRoutes } from '#server/modules/role-texts/translate-draft.routes.ts'
import { sitemapApiRoutes, sitemapFileRoutes } from '#server/modules/sitemap/sitemap.routes.ts'
import { staffRoutes } from '#server/modules/staff/staff.routes.ts'
import apiDocs from '#server/plugins/api-docs.ts'
import authentication from '#server/plugins/authentication.ts'
import database from '#server/plugins/database.ts'
import errorHandler, { errorEnvelope } from '#server/plugins/error-handler.ts'
import inputGuards from '#server/plugins/input-guards.ts'
import keyValueStore from '#server/plugins/key-value-store.ts'
import localeDetection from '#server/plugins/locale-detection.ts'
import metrics from '#server/plugins/metrics.ts'
import securityHeaders from '#server/plugins/security-headers.ts'
import staffGate from '#server/plugins/staff-gate.ts'
import webApp from '#server/plugins/web-app.ts'
import { createServices, type Services } from '#server/services.ts'

declare module 'fastify' {
  interface FastifyInstance {
    config: Config
    services: Services
  }
}

export type BuildAppOptions = {
  config: Config
  database: DatabaseHandle
  kv: KeyValueStore
  /** Close the database with the app (the entry does; tests that share a handle do not). */
  closeDatabase?: boolean
  /** Serve the React Router build from this folder; omit for an API-only app (most tests). */
  webBuildDir?: string
  /** `npm run dev`: render from source through this Vite dev server instead of the build. */
  vite?: ViteDevServer
  logger?: boolean
  /** Where log lines go instead of stdout (tests read them). */
  logStream?: { write(line: string): void }
  /** Sizes of the role listing's caches (tests and benchmarks; the defaults suit production). */
  listingCache?: ListingCacheOptions
  /**
   * The background job worker (ADR 017) runs unless `worker: false` (tools that only serve);
   * tests shorten its polling and retry delays.
   */
  jobQueue?: Partial<Omit<JobQueueOptions, 'log'>> & { worker?: boolean }
  /** The plans file; default config/plans.json (tests give their own). */
  plansFile?: string
}

const REQUEST_ID = /^[A-Za-z0-9._-]{8,128}$/

/** Builds the whole HTTP application without listening, so tests can `inject` into it. */
export async function buildApp(options: BuildAppOptions): Promise<FastifyInstance> {
  const { config } = options
  const app = Fastify({
    logger:
      options.logger === false
        ? false
        : {
            level: config.logLevel,
            redact: {
              paths: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
              censor: '[redacted]',
            },
            // The request line without the secrets a link carries (tests/security/logs.test.ts).
            serializers: {
              req: (request: { method: string; url: string; hostname?: string; ip?: string }) => ({
                method: request.method,
                url: redactUrl(request.url),
                host: request.hostname,
                remoteAddress: request.ip,
              }),
            },
            ...(options.logStream ? { stream: options.logStream } : {}),
          },
    // An upstream proxy's request id is kept when it looks like one, so logs join up.
    genReqId: (req) => {
      const incoming = req.headers['x-request-id']
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID()
    },
    requestIdHeader: false,
    bodyLimit: 1024 * 1024,
    // Loading the server-rendering bundle and opening the database can take longer than Fastify's
    // 10 s on a busy machine (seen at a load average of 12 on 2 cores); a slow start is not a failure.
    pluginTimeout: 120_000,
    // Drop idle keep-alive sockets at once on close; requests in flight are drained.
    forceCloseConnections: 'idle',
    routerOptions: { maxParamLength: 200 },
    // A hop count is a function for Fastify's types; proxy-addr counts hops from the socket.
    trustProxy:
      typeof config.trustProxy === 'number'
        ? (() => {
            const hops = config.trustProxy
            return (_address: string, hop: number) => hop < hops
          })()
        : config.trustProxy,
    // Errors the router raises before any route runs (a path parameter over maxParamLength, a
    // malformed URL) leave as the error envelope too, without echoing the path back.
    frameworkErrors: (error, _request, reply) => {
      const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 400
      const message =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'A path parameter is too long.' : 'The URL is not valid.'
      void (reply as FastifyReply).status(status).send(errorEnvelope(status, 'BAD_REQUEST', message))
    },
  }).withTypeProvider<ZodTypeProvider>()

  app.setValidatorCompiler(validatorCompiler)
  app.setSerializerCompiler(serializerCompiler)
  app.decorate('config', config)
  const services = createServices({
    db: options.database.db,
    kv: options.kv,
    config,
    log: (info, msg) => app.log.info(info, msg),
    warn: (info, msg) => app.log.warn(info, msg),
    securityEvent: (event, info) => app.log.warn({ ...info, event }, 'security event'),
    // In production a page's listings and tags share one read of the catalogue version (ADR 062).
    listingCache: { versionMaxAgeMs: config.isProduction ? CATALOGUE_VERSION_MAX_AGE_MS : 0, ...options.listingCache },
    jobQueue: options.jobQueue,
    plansFile: options.plansFile,
  })
  app.addHook('onClose', async () => services.mailer.close())
  // A write this instance answered may have changed the catalogue: the next read asks for its version.
  app.addHook('onSend', async (request, _reply, payload) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') services.catalogue.forgetListingVersion()
    return payload
  })
  // The embedded model is prepared in the background: the site serves meanwhile (ADR 036). It is
  // released after the replies it writes have stopped (chat.close, preClose).
  const { embedded } = services
  app.decorate('embeddedModel', embedded ? { status: () => embedded.status() } : undefined)
  if (embedded) {
    app.addHook('onReady', async () => void embedded.start())
    app.addHook('onClose', async () => embedded.close())
  }
  // Every model endpoint checked at start and every minute (ADR 031).
  app.addHook('onReady', async () => services.modelHealth.start())
  app.addHook('preClose', async () => services.modelHealth.stop())
  // Jobs cut short by shutdown return to the queue before the database closes.
  if (options.jobQueue?.worker !== false) {
    app.addHook('onReady', async () => services.jobs.start())
    app.addHook('preClose', async () => services.jobs.stop())
  }
  // Replies being written stop and are stored, and summaries end, while the database is still open.
  app.addHook('preClose', async () => services.chat.close())
  // Their figures for the console (ADR 057), gathered in memory, are written before it closes too.
  app.addHook('preClose', async () => services.replyStats.flush())
  // The plans on sale come from config/plans.json, read at start; the database copy (which orders
  // and subscriptions reference) follows it on every start.
  app.addHook('onReady', async () => services.entitlements.syncPlansCopy())
  // Usernames stored before look-alikes were refused get their skeleton (ADR 022); none left is one query.
  app.addHook('onReady', async () => {
    const { filled, lookAlikes } = await services.auth.backfillUsernameSkeletons()
    if (filled || lookAlikes) app.log.info({ filled, lookAlikes }, 'username skeletons filled in')
  })
  app.decorate('services', services)
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id)
  })
  // While draining, every response closes its connection: a keep-alive socket that goes idle after
  // shutdown began would otherwise hold the server open until its keep-alive timeout.
  let closing = false
  // A response already under way when shutdown begins (an event stream) sent its headers before it
  // could say `connection: close`: its connection is ended when it finishes instead, or the idle
  // socket would keep the server open past the grace period (tests/integration/sigterm-streams.test.ts).
  const inFlight = new Set<ServerResponse>()
  app.addHook('onRequest', async (_request, reply) => {
    const res = reply.raw
    inFlight.add(res)
    res.once('close', () => inFlight.delete(res))
  })
  app.addHook('preClose', async () => {
    closing = true
    for (const res of inFlight) {
      const socket = res.socket
      // (Injected requests have a stand-in socket without end().)
      const end = () => typeof socket?.end === 'function' && socket.end()
      if (res.writableFinished) end()
      else res.once('finish', end)
    }
  })
  app.addHook('onSend', async (_request, reply, payload) => {
    if (closing) reply.header('connection', 'close')
    return payload
  })

  await app.register(errorHandler)
  await app.register(inputGuards)
  await app.register(securityHeaders, {
    production: config.isProduction,
    devServer: Boolean(options.vite),
    frameSources: config.captcha.provider === 'turnstile' ? ['https://challenges.cloudflare.com'] : [],
  })
  await app.register(cookie)
  await app.register(compress, {
    global: true,
    threshold: 1024,
    encodings: ['br', 'gzip'],
    // Cheap settings: pages are compressed on every request, assets were compressed at build.
    brotliOptions: { params: { [zlib.BROTLI_PARAM_QUALITY]: 4 } },
    zlibOptions: { level: 6 },
  })
  await app.register(database, { handle: options.database, closeOnShutdown: options.closeDatabase ?? false })
  await app.register(keyValueStore, { store: options.kv })
  await app.register(metrics, config.metrics)
  await app.register(authentication, { accessTokens: services.accessTokens })
  await app.register(staffGate, { staff: services.staff, sessions: services.consoleSessions })
  // Off in production unless API_DOCS=true: the whole API's map is no help to users (ADR 026).
  if (config.apiDocs) await app.register(apiDocs, { publicUrl: config.publicUrl })

  await app.register(healthRoutes(services.modelHealth))
  // Outside /api: robots.txt, the sitemaps and the articles' images.
  await app.register(sitemapFileRoutes(services.sitemap))
  await app.register(blogAssetRoutes(services.blog))
  await app.register(
    async (api) => {
      await api.register(authRoutes(services.auth, services.humanVerification, services.googleSignIn))
      await api.register(accountRoutes(services.account))
      await api.register(moderationRoutes(services.moderation))
      await api.register(curationRoutes(services.tagsConsole, services.featuredConsole))
      await api.register(catalogueRoutes(services.catalogue))
      await api.register(charactersRoutes(services.characters, services.catalogue, options.kv))
      await api.register(lorebooksRoutes(services.lorebooks, options.kv))
      await api.register(roleTextsRoutes(services.roleTexts, options.kv))
      await api.register(translateDraftRoutes(services.translateDraft, options.kv))
      await api.register(diamondsRoutes(services.diamonds, services.entitlements, config.cronSecret))
      await api.register(imagesRoutes(services.images))
      await api.register(paymentsRoutes(services.payments, options.kv))
      await api.register(modelsRoutes(services.models, services.modelHealth))
      await api.register(chatRoutes(services.chat, options.kv, config.llm.streamKeepAliveMs))
      await api.register(chatBranchesRoutes(services.chat, options.kv))
      await api.register(writingAidsRoutes(services.chat, options.kv, config.llm.streamKeepAliveMs))
      await api.register(chatScenesRoutes(services.chat, options.kv, config.llm.streamKeepAliveMs))
      await api.register(chatTidyRoutes(services.chat, options.kv))
      await api.register(personasRoutes(services.personas, options.kv))
      await api.register(chatTransferRoutes(services.chatTransfer, options.kv))
      await api.register(blogRoutes(services.blog))
      await api.register(sitemapApiRoutes(services.sitemap))
      await api.register(contactRoutes(services.contact))
      await api.register(webhookRoutes(services.payments, services.gateways))
      await api.register(staffRoutes(services.staff, services.auditLog, services.users.usernameOf))
      await api.register(consoleHealthRoutes(services.consoleHealth, services.modelHealth))
      await api.register(moneyRoutes(services.payments.console(services.audit)))
      await api.register(peopleRoutes(services.moderation, services.users.usernameOf))
      await api.register(moderationConsoleRoutes(services.moderation))
      api.setNotFoundHandler((request, reply) =>
        reply.status(404).send({
          code: 404,
          success: false,
          error: 'NOT_FOUND',
          message: `No route ${request.method} ${request.url.split('?')[0]}`,
        }),
      )
    },
    { prefix: '/api' },
  )

  if (options.webBuildDir) {
    await app.register(localeDetection)
    await app.register(webApp, {
      buildDir: options.webBuildDir,
      publicUrl: config.publicUrl,
      mode: config.isProduction ? 'production' : 'development',
      vite: options.vite,
      services,
    })
  }
  return app
}
