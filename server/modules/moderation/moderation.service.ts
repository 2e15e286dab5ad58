import type { Audit } from '#contracts/admin-audit.ts'
import type { Db } from '#db/client.ts'
import type { AccountService } from '#server/modules/account/account.service.ts'
import type { AuthService } from '#server/modules/auth/auth.service.ts'
import type { CatalogueService } from '#server/modules/catalogue/catalogue.service.ts'
import type { DiamondsService } from '#server/modules/diamonds/diamonds.service.ts'
import { createCharacterActions } from './character-actions.ts'
import type { PeopleRepo } from './people.repo.ts'
import { createPeople } from './people.ts'
import { createReportedCharacter } from './reported-character.ts'
import type { ReportsQueueRepo } from './reports-queue.repo.ts'
import { createReportsQueue } from './reports-queue.ts'
import type { RoleHidesRepo } from './role-hides.repo.ts'
import type { SuspensionsRepo } from './suspensions.repo.ts'
import type { WarningsRepo } from './warnings.repo.ts'

export type ModerationDeps = {
  /** For the transactions each action and its audit record commit in. */
  db: Pick<Db, 'transaction'>
  audit: Audit
  hides: RoleHidesRepo
  suspensions: SuspensionsRepo
  reports: ReportsQueueRepo
  warnings: WarningsRepo
  people: PeopleRepo
  catalogue: Pick<CatalogueService, 'invalidateListings' | 'getRole'>
  auth: Pick<AuthService, 'endAllLogins' | 'resendVerificationFor' | 'queueWarningMail' | 'kickJobs'>
  account: Pick<AccountService, 'deleteByOperator'>
  diamonds: Pick<DiamondsService, 'adjustByOperator'>
}

/**
 * The operator's moderation and people actions (issue 23 items 2 and 3, ADR 055), one part per
 * concern: characters (hide, restore, adult), the reports queue and one reported character, people (search, detail, suspend,
 * restore, delete, resend verification, warn, diamonds). Every action takes its actor and a note and
 * writes its audit record inside the transaction that makes the change.
 */
export function createModerationService(deps: ModerationDeps) {
  const characters = createCharacterActions(deps)
  const people = createPeople(deps)
  const usernames = deps.people.usernames
  const reports = createReportsQueue({ ...deps, characters, people, usernames })
  const reported = createReportedCharacter({ ...deps, usernames })
  return { ...characters, ...people, ...reports, ...reported }
}

export type ModerationService = ReturnType<typeof createModerationService>
