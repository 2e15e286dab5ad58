import path from 'node:path'
import type { Db } from '#db/client.ts'
import type { Config } from '#server/config.ts'
import type { KeyValueStore } from '#server/lib/key-value-store.ts'
import { createAccountRepo } from '#server/modules/account/account.repo.ts'
import { createAccountService } from '#server/modules/account/account.service.ts'
import { createAccessTokens } from '#server/modules/auth/access-token.ts'
import { createAuthRepo } from '#server/modules/auth/auth.repo.ts'
import { createAuthService } from '#server/modules/auth/auth.service.ts'
import { createGoogleSignIn } from '#server/modules/auth/google-sign-in.ts'
import { createHumanVerification } from '#server/modules/auth/human-verification.ts'
import { createBlogService } from '#server/modules/blog/blog.service.ts'
import { loadBlogContent } from '#server/modules/blog/blog-content.ts'
import { createCatalogueRepo } from '#server/modules/catalogue/catalogue.repo.ts'
import { createCatalogueService, type ListingCacheOptions } from '#server/modules/catalogue/catalogue.service.ts'
import { createCharactersRepo } from '#server/modules/characters/characters.repo.ts'
import { createCharactersService } from '#server/modules/characters/characters.service.ts'
import { createChatRepo } from '#server/modules/chat/chat.repo.ts'
import { createChatService } from '#server/modules/chat/chat.service.ts'
import { createDiamondsRepo } from '#server/modules/diamonds/diamonds.repo.ts'
import { createDiamondsService } from '#server/modules/diamonds/diamonds.service.ts'
import { createEntitlementsRepo } from '#server/modules/entitlements/entitlements.repo.ts'
import { createEntitlements } from '#server/modules/entitlements/entitlements.service.ts'
import { loadPlanRegistry } from '#server/modules/entitlements/plan-registry.ts'
import { PLANS_FILE } from '#server/modules/entitlements/plans-file.ts'
import { createModelHealth } from '#server/modules/health/model-health.ts'
import { createImagesRepo } from '#server/modules/images/images.repo.ts'
import { createImagesService } from '#server/modules/images/images.service.ts'
import { createJobQueue, type JobQueueOptions, PermanentJobError } from '#server/modules/jobs/job-queue.ts'
import { createContactService } from '#server/modules/links/contact.service.ts'
import { LINKS_FILE, loadFriendshipLinks } from '#server/modules/links/friendship-links.ts'
import { createMailer, describeMailError, isPermanentMailError } from '#server/modules/mail/mailer.ts'
import { createEmbeddedProvider } from '#server/modules/models/embedded/provider.ts'
import { refreshModelInfo } from '#server/modules/models/model-server-info.ts'
import { loadModelRegistry } from '#server/modules/models/models.ts'
import { createPaymentGateways } from '#server/modules/payments/gateways.ts'
import { createPaymentsRepo } from '#server/modules/payments/payments.repo.ts'
import { createPaymentsService } from '#server/modules/payments/payments.service.ts'
import { createSitemapService } from '#server/modules/sitemap/sitemap.service.ts'
import { createUsersRepo } from '#server/modules/users/users.repo.ts'
import { createUsersService } from '#server/modules/users/users.service.ts'

export type ServiceDeps = {
  db: Db
  kv: KeyValueStore
  config: Config
  log: (info: Record<string, unknown>, msg: string) => void
  /** Warnings an operator should see (jobs given up for good); default: `log`. */
  warn?: (info: Record<string, unknown>, msg: string) => void
  /** Security events (failed logins, reused refresh tokens...), at warning level. */
  securityEvent?: SecurityEventLog
  listingCache?: ListingCacheOptions | undefined
  /** Tests shorten the job queue's polling and retry delays. */
  jobQueue?: Partial<Omit<JobQueueOptions, 'log'>> | undefined
  /** The plans file; default config/plans.json (tests give their own). */
  plansFile?: string | undefined
}

/** Every module's service, built once per app. Routes and page loaders both use these. */
type SecurityEventLog = (event: string, info: Record<string, unknown>) => void

export function createServices({
  db,
  kv,
  config,
  log,
  warn,
  securityEvent,
  listingCache,
  jobQueue,
  plansFile = PLANS_FILE,
}: ServiceDeps) {
  const jobs = createJobQueue(db, { log, warn, ...jobQueue })
  const images = createImagesService(createImagesRepo(db))
  const users = createUsersService(createUsersRepo(db))
  const catalogue = createCatalogueService(createCatalogueRepo(db), kv, users, listingCache)
  const characters = createCharactersService({ repo: createCharactersRepo(db), images, catalogue })
  const accessTokens = createAccessTokens(config.jwtSecret)
  const mailer = createMailer({
    smtpUrl: config.mail.smtpUrl,
    from: config.mail.from,
    outboxDir: path.join(config.dataDir, 'outbox'),
    // The links carry one-time secrets: shown to a developer, never written to a production log.
    logLinks: !config.isProduction,
    log,
  })
  const humanVerification = createHumanVerification(config, kv)
  const logSecurityEvent: SecurityEventLog =
    securityEvent ?? ((event, info) => log({ ...info, event }, 'security event'))
  // The plans and models are read once, here: a bad file throws a ConfigError and the app does not
  // start. Every rule about them is then answered by entitlements from memory (ADR 027).
  const plans = loadPlanRegistry(plansFile)
  // Reads MODELS_FILE; a bad file throws ModelsFileError (a ConfigError) and the app does not start.
  const models = loadModelRegistry(config.llm)
  // No model server configured: the embedded model, in this process (ADR 036). It is prepared in
  // the background once the app is ready (app.ts); chat answers 503 model_preparing until then.
  const embedded = config.llm.embedded
    ? createEmbeddedProvider({
        config: config.llm.embedded,
        dataDir: config.dataDir,
        downloads: config.env !== 'test',
        modelName: models.defaultModel.model,
        log,
        warn: warn ?? log,
        // The loaded context and tokenizer are learned at once, not at the next probe.
        onReady: () => void refreshModelInfo(models.defaultModel).catch(() => {}),
      })
    : undefined
  const modelHealth = createModelHealth({
    models: models.models,
    warn: warn ?? log,
    info: log,
    intervalMs: config.llm.healthIntervalMs,
  })
  const diamonds = createDiamondsService(createDiamondsRepo(db), plans)
  const entitlements = createEntitlements({ repo: createEntitlementsRepo(db), plans, models, diamonds, log })
  const auth = createAuthService({
    diamonds,
    repo: createAuthRepo(db),
    kv,
    mailer,
    jobs,
    securityEvent: logSecurityEvent,
    accessTokens,
    humanVerification,
    publicUrl: config.publicUrl,
  })
  const googleSignIn = createGoogleSignIn(config, kv)
  // The payment providers whose keys are set, and the sandbox (server/modules/payments/README.md).
  const gateways = createPaymentGateways(config)
  const payments = createPaymentsService({
    repo: createPaymentsRepo(db),
    plans: entitlements,
    diamonds,
    gateways,
    publicUrl: config.publicUrl,
    log,
    securityEvent: logSecurityEvent,
    jobs,
  })
  const chat = createChatService({
    repo: createChatRepo(db),
    entitlements,
    diamonds,
    catalogue,
    timeoutMs: config.llm.timeoutMs,
    streamLimits: { firstTokenTimeoutMs: config.llm.firstTokenTimeoutMs, idleTimeoutMs: config.llm.idleTimeoutMs },
    log,
    warn: warn ?? log,
    jobs,
  })
  // The articles are read and rendered once; a broken one stops the start (BlogContentError).
  const blog = createBlogService({ content: loadBlogContent(config.blogDir), catalogue, log })
  const friendshipLinks = loadFriendshipLinks(LINKS_FILE)
  const contact = createContactService({
    kv,
    jobs,
    humanVerification,
    to: config.mail.contactTo,
    publicUrl: config.publicUrl,
  })
  const sitemap = createSitemapService({
    publicUrl: config.publicUrl,
    catalogue,
    blog,
    files: { plans: plansFile, links: LINKS_FILE },
  })
  // What each background job does (ADR 017). Every handler is safe to run twice.
  // A mail the server refused for good (a 5xx) is not retried.
  const mailJob = async (send: () => Promise<void>) => {
    try {
      await send()
    } catch (error) {
      throw isPermanentMailError(error) ? new PermanentJobError(describeMailError(error)) : error
    }
  }
  jobs.register('account-mail', (job) => mailJob(() => auth.deliverAccountMail(job.payload)))
  jobs.register('security-mail', (job) => mailJob(() => auth.deliverSecurityMail(job.payload)))
  jobs.register('mail', (job) => mailJob(() => mailer.send(job.payload)))
  jobs.register('chat-summary', (job) => chat.summariseMemory(job.payload, job.signal))
  jobs.register('expired-tokens', async () => {
    const deleted = await auth.deleteSpentTokens()
    if (deleted.refreshTokens + deleted.emailTokens > 0) log(deleted, 'expired sign-in tokens and links deleted')
  })
  jobs.register('stale-holds', async () => {
    const refunded = await diamonds.refundStaleHolds(new Date(Date.now() - chat.holdDeadlineMs))
    if (refunded > 0) log({ refunded }, 'diamond holds of replies that never ended refunded')
  })
  jobs.register('refund-duplicate-subscription', (job) => payments.refundDuplicate(job.payload))
  jobs.register('monthly-award', async () => {
    const result = await diamonds.awardMonthly()
    if (result.awarded > 0) log(result, 'monthly diamonds awarded')
  })
  const account = createAccountService({ repo: createAccountRepo(db), kv, images, catalogue })
  return {
    jobs,
    account,
    images,
    catalogue,
    characters,
    accessTokens,
    mailer,
    humanVerification,
    auth,
    googleSignIn,
    entitlements,
    diamonds,
    payments,
    gateways,
    models,
    embedded,
    modelHealth,
    chat,
    blog,
    friendshipLinks,
    contact,
    sitemap,
  }
}

export type Services = ReturnType<typeof createServices>
