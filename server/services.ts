import path from 'node:path'
import type { Db } from '#db/client.ts'
import type { Config } from '#server/config.ts'
import type { KeyValueStore } from '#server/lib/key-value-store.ts'
import { createAccessTokens } from '#server/modules/auth/access-token.ts'
import { createAuthRepo } from '#server/modules/auth/auth.repo.ts'
import { createAuthService } from '#server/modules/auth/auth.service.ts'
import { createGoogleSignIn } from '#server/modules/auth/google-sign-in.ts'
import { createHumanVerification } from '#server/modules/auth/human-verification.ts'
import { createCatalogueRepo } from '#server/modules/catalogue/catalogue.repo.ts'
import { createCatalogueService } from '#server/modules/catalogue/catalogue.service.ts'
import { createDiamondsRepo } from '#server/modules/diamonds/diamonds.repo.ts'
import { createDiamondsService } from '#server/modules/diamonds/diamonds.service.ts'
import { createImagesRepo } from '#server/modules/images/images.repo.ts'
import { createImagesService } from '#server/modules/images/images.service.ts'
import { createMailer } from '#server/modules/mail/mailer.ts'
import { createPlansRepo } from '#server/modules/plans/plans.repo.ts'
import { createPlansService } from '#server/modules/plans/plans.service.ts'

export type ServiceDeps = {
  db: Db
  kv: KeyValueStore
  config: Config
  log: (info: Record<string, unknown>, msg: string) => void
}

/** Every module's service, built once per app. Routes and page loaders both use these. */
export function createServices({ db, kv, config, log }: ServiceDeps) {
  const images = createImagesService(createImagesRepo(db))
  const catalogue = createCatalogueService(createCatalogueRepo(db), kv)
  const accessTokens = createAccessTokens(config.jwtSecret)
  const mailer = createMailer({
    smtpUrl: config.mail.smtpUrl,
    from: config.mail.from,
    outboxDir: path.join(config.dataDir, 'outbox'),
    log,
  })
  const humanVerification = createHumanVerification(config, kv)
  const plans = createPlansService(createPlansRepo(db))
  const diamonds = createDiamondsService(createDiamondsRepo(db), plans)
  const auth = createAuthService({
    diamonds,
    repo: createAuthRepo(db),
    kv,
    mailer,
    accessTokens,
    humanVerification,
    publicUrl: config.publicUrl,
  })
  const googleSignIn = createGoogleSignIn(config, kv)
  return { images, catalogue, accessTokens, mailer, humanVerification, auth, googleSignIn, plans, diamonds }
}

export type Services = ReturnType<typeof createServices>
