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
import { createCardFilesHold } from '#server/modules/characters/card-files.ts'
import { createCharactersRepo } from '#server/modules/characters/characters.repo.ts'
import { createCharactersService } from '#server/modules/characters/characters.service.ts'
import { createChatRepo } from '#server/modules/chat/chat.repo.ts'
import { createChatService } from '#server/modules/chat/chat.service.ts'
import { createModelActivity } from '#server/modules/chat/model-activity.ts'
import { createPersonasRepo } from '#server/modules/chat/personas/personas.repo.ts'
import { createPersonasService } from '#server/modules/chat/personas/personas.service.ts'
import { createSceneMembersRepo } from '#server/modules/chat/scene-members.repo.ts'
import { createChatTransferRepo } from '#server/modules/chat/transfer/chat-transfer.repo.ts'
import { createChatTransfer } from '#server/modules/chat/transfer/chat-transfer.service.ts'
import { createFeaturedRepo } from '#server/modules/curation/featured.repo.ts'
import { createFeaturedConsole } from '#server/modules/curation/featured-console.ts'
import { createSiteSettingsRepo } from '#server/modules/curation/site-settings.repo.ts'
import { createTagsConsoleRepo } from '#server/modules/curation/tags-console.repo.ts'
import { createTagsConsole } from '#server/modules/curation/tags-console.ts'
import { createDiamondsRepo } from '#server/modules/diamonds/diamonds.repo.ts'
import { createDiamondsService } from '#server/modules/diamonds/diamonds.service.ts'
import { createEntitlementsRepo } from '#server/modules/entitlements/entitlements.repo.ts'
import { createEntitlements } from '#server/modules/entitlements/entitlements.service.ts'
import { loadPlanRegistry } from '#server/modules/entitlements/plan-registry.ts'
import { PLANS_FILE } from '#server/modules/entitlements/plans-file.ts'
import { createConsoleHealth, createReplyRecorder } from '#server/modules/health/console-health.ts'
import { createHealthStatsRepo } from '#server/modules/health/health-stats.repo.ts'
import { createModelHealth } from '#server/modules/health/model-health.ts'
import { createImagesRepo } from '#server/modules/images/images.repo.ts'
import { createImagesService } from '#server/modules/images/images.service.ts'
import { createJobQueue, type JobQueueOptions, PermanentJobError } from '#server/modules/jobs/job-queue.ts'
import { createContactService } from '#server/modules/links/contact.service.ts'
import { LINKS_FILE, loadFriendshipLinks } from '#server/modules/links/friendship-links.ts'
import { createLorebooksRepo } from '#server/modules/lorebooks/lorebooks.repo.ts'
import { createLorebooksService } from '#server/modules/lorebooks/lorebooks.service.ts'
import { createMailer, describeMailError, isPermanentMailError } from '#server/modules/mail/mailer.ts'
import { createEmbeddedProvider } from '#server/modules/models/embedded/provider.ts'
import { refreshModelInfo } from '#server/modules/models/model-server-info.ts'
import { loadModelRegistry } from '#server/modules/models/models.ts'
import { createModerationService } from '#server/modules/moderation/moderation.service.ts'
import { createPeopleRepo } from '#server/modules/moderation/people.repo.ts'
import { createReportsQueueRepo } from '#server/modules/moderation/reports-queue.repo.ts'
import { createRoleHidesRepo } from '#server/modules/moderation/role-hides.repo.ts'
import { createSuspensionsRepo } from '#server/modules/moderation/suspensions.repo.ts'
import { createWarningsRepo } from '#server/modules/moderation/warnings.repo.ts'
import { createPaymentGateways } from '#server/modules/payments/gateways.ts'
import { createPaymentsRepo } from '#server/modules/payments/payments.repo.ts'
import { createPaymentsService } from '#server/modules/payments/payments.service.ts'
import { createRefundsRepo } from '#server/modules/payments/refunds.repo.ts'
import { createMachineTranslation, translationModel } from '#server/modules/role-texts/machine-translation.ts'
import { createRoleTextsRepo } from '#server/modules/role-texts/role-texts.repo.ts'
import { createRoleTextsService } from '#server/modules/role-texts/role-texts.service.ts'
import { createTranslateDraft } from '#server/modules/role-texts/translate-draft.ts'
import { createTranslationUsageRepo } from '#server/modules/role-texts/translation-usage.repo.ts'
import { createTranslator } from '#server/modules/role-texts/translator.ts'
import { createSitemapService } from '#server/modules/sitemap/sitemap.service.ts'
import { createAuditRepo } from '#server/modules/staff/audit.repo.ts'
import { createAudit, createAuditLog } from '#server/modules/staff/audit.ts'
import { createConsoleSessions } from '#server/modules/staff/console-sessions.ts'
import { createStaffRepo } from '#server/modules/staff/staff.repo.ts'
import { createStaffService } from '#server/modules/staff/staff.service.ts'
import { createSecretBox } from '#server/modules/staff/totp.ts'
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
  // A character's texts per language (ADR 039); the translation job listens to it (`roleTexts.listen`).
  const roleTextsRepo = createRoleTextsRepo(db)
  const roleTexts = createRoleTextsService({ repo: roleTextsRepo, warn: warn ?? log })
  // Characters an operator hid (ADR 055): their creator's view of them says so.
  const hides = createRoleHidesRepo(db)
  // Featured characters and tag moderation (ADR 059): the catalogue reads the featured list, the
  // characters module asks the policy for new user-made tags.
  const featuredRepo = createFeaturedRepo(db)
  const siteSettings = createSiteSettingsRepo(db)
  const catalogue = createCatalogueService(
    createCatalogueRepo(db),
    kv,
    users,
    roleTexts,
    listingCache,
    { isHidden: async (roleId) => (await hides.causesOf(roleId)).length > 0 },
    { featuredRoleIds: () => featuredRepo.roleIds() },
  )
  const auditRepo = createAuditRepo(db)
  const audit = createAudit(auditRepo)
  const tagsConsole = createTagsConsole({ db, audit, repo: createTagsConsoleRepo(db), settings: siteSettings })
  const featuredConsole = createFeaturedConsole({ db, audit, repo: featuredRepo })
  const characters = createCharactersService({
    repo: createCharactersRepo(db),
    images,
    catalogue,
    texts: roleTexts,
    held: createCardFilesHold(kv),
    hidden: hides,
    tagPolicy: tagsConsole,
  })
  // A user's own lorebooks, attached to their characters (ADR 043).
  const lorebooks = createLorebooksService({ repo: createLorebooksRepo(db), characters })
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
  // Suspended accounts (ADR 055): every login and refresh asks here before it issues a token.
  const suspensions = createSuspensionsRepo(db)
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
    suspensions,
  })
  const googleSignIn = createGoogleSignIn(config, kv)
  // The payment providers whose keys are set, and the sandbox (server/modules/payments/README.md).
  const gateways = createPaymentGateways(config)
  const payments = createPaymentsService({
    repo: createPaymentsRepo(db),
    refunds: createRefundsRepo(db),
    plans: entitlements,
    diamonds,
    gateways,
    publicUrl: config.publicUrl,
    log,
    securityEvent: logSecurityEvent,
    jobs,
  })
  // Replies being written per model endpoint: memory summaries and machine translations give way to them (ADR 034, 040).
  const modelActivity = createModelActivity()
  // Who the user is in a story (ADR 049): a new chat takes the default persona.
  const personas = createPersonasService({ repo: createPersonasRepo(db), images })
  const chatRepo = createChatRepo(db)
  // The console's daily figures (ADR 057): gathered a second at a time, one upsert, not waited for.
  const healthStats = createHealthStatsRepo(db)
  const replyStats = createReplyRecorder(healthStats, warn ?? log)
  const chat = createChatService({
    recordReply: replyStats,
    personas,
    activity: modelActivity,
    repo: chatRepo,
    sceneMembers: createSceneMembersRepo(db),
    entitlements,
    diamonds,
    catalogue,
    texts: roleTexts,
    timeoutMs: config.llm.timeoutMs,
    streamLimits: { firstTokenTimeoutMs: config.llm.firstTokenTimeoutMs, idleTimeoutMs: config.llm.idleTimeoutMs },
    log,
    warn: warn ?? log,
    jobs,
  })
  // A chat's history in and out: SillyTavern JSONL and Markdown downloads, SillyTavern imports (ADR 051).
  const chatTransfer = createChatTransfer({ repo: createChatTransferRepo(db), chats: chatRepo, catalogue })
  // Machine translation of public characters' texts (ADR 040): a job per character and locale, queued
  // by what roleTexts tells; TRANSLATE_MODEL, else the summaries' model.
  const translateModel = translationModel(config.translate.model, models, entitlements.summaryModel)
  const translator = createTranslator({ model: translateModel, log })
  const translationUsage = createTranslationUsageRepo(db)
  const machineTranslation = createMachineTranslation({
    texts: roleTexts,
    repo: roleTextsRepo,
    usage: translationUsage,
    jobs,
    translator,
    model: translateModel,
    activity: modelActivity,
    settings: config.translate,
    timeoutMs: config.llm.timeoutMs,
    log,
    warn: warn ?? log,
  })
  roleTexts.listen(machineTranslation.listener)
  const translateDraft = createTranslateDraft({
    texts: roleTexts,
    usage: translationUsage,
    translator,
    model: translateModel,
    activity: modelActivity,
    settings: config.translate,
    timeoutMs: config.llm.timeoutMs,
    log,
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
  jobs.register('chat-purge', (job) => chat.purgeDeletedSession(job.payload))
  jobs.register('expired-tokens', async () => {
    const deleted = await auth.deleteSpentTokens()
    if (deleted.refreshTokens + deleted.emailTokens > 0) log(deleted, 'expired sign-in tokens and links deleted')
  })
  jobs.register('stale-holds', async () => {
    const refunded = await diamonds.refundStaleHolds(new Date(Date.now() - chat.holdDeadlineMs))
    if (refunded > 0) log({ refunded }, 'diamond holds of replies that never ended refunded')
  })
  jobs.register('refund-duplicate-subscription', (job) => payments.refundDuplicate(job.payload))
  // One translation at a time per instance (TRANSLATE_CONCURRENCY); the rest wait in the table.
  jobs.register('translate-role', (job) => machineTranslation.run(job.payload, job.signal), {
    concurrency: config.translate.concurrency,
  })
  jobs.register('translate-ahead', async () => {
    await machineTranslation.queueAhead()
  })
  jobs.register('monthly-award', async () => {
    const result = await diamonds.awardMonthly()
    if (result.awarded > 0) log(result, 'monthly diamonds awarded')
  })
  const account = createAccountService({ repo: createAccountRepo(db), kv, images, catalogue, roleTexts })
  // The operator console's foundation (ADR 054): staff roles, the second factor, the audit log.
  const auditLog = createAuditLog(auditRepo)
  const consoleSessions = createConsoleSessions(kv)
  const staff = createStaffService({
    repo: createStaffRepo(db),
    users,
    audit,
    secrets: createSecretBox(config.staffTotpKey),
    sessions: consoleSessions,
    kv,
  })
  const consoleHealth = createConsoleHealth({
    stats: healthStats,
    jobs,
    audit,
    models,
    statuses: () => modelHealth.statuses(),
    flushReplies: replyStats.flush,
  })

  // The operator's moderation and people actions (ADR 055), each audited in its own transaction.
  const moderation = createModerationService({
    db,
    audit,
    hides,
    suspensions,
    reports: createReportsQueueRepo(db),
    warnings: createWarningsRepo(db),
    people: createPeopleRepo(db),
    catalogue,
    auth,
    account,
    diamonds,
  })
  return {
    jobs,
    consoleHealth,
    replyStats,
    users,
    audit,
    auditLog,
    consoleSessions,
    staff,
    account,
    moderation,
    tagsConsole,
    featuredConsole,
    images,
    catalogue,
    characters,
    lorebooks,
    roleTexts,
    machineTranslation,
    translateDraft,
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
    personas,
    chatTransfer,
    blog,
    friendshipLinks,
    contact,
    sitemap,
  }
}

export type Services = ReturnType<typeof createServices>
