import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

// Issue 17 item 4: one owner per table where practical. A module reaches another's rows through
// that module's service; a repo that joins another's table in its own SQL is listed here with why.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')
const modules = path.join(root, 'server/modules')
const repos = readdirSync(modules, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .flatMap((dir) =>
    readdirSync(path.join(modules, dir.name))
      .filter((file) => file.endsWith('.repo.ts'))
      .map((file) => `${dir.name}/${file}`),
  )
const source = (repo: string) => readFileSync(path.join(modules, repo), 'utf8')

/** Each holds one part of an account: credentials and proof, the account page and deletion, name and preferences. */
const USERS_OWNERS = ['auth/auth.repo.ts', 'account/account.repo.ts', 'users/users.repo.ts']
/** Read the users table inside their own queries, never write it. */
const USERS_READERS: Record<string, string> = {
  'catalogue/catalogue.repo.ts': "the creator's name on the character page, in the same query",
  'characters/characters.repo.ts': "the creator's name with a character, in the same query",
  'chat/chat-rows.repo.ts': "the player name of a session, shared by the chat's queries",
  'chat/chat-send.repo.ts':
    'the player name in the one-statement send path (ADR 020: one round trip before the model call)',
  'chat/chat-sessions.repo.ts': 'the player name in the session list and a session read, in the same query',
  'diamonds/diamonds.repo.ts': 'the monthly award: one set-based statement over every verified account',
  'staff/staff.repo.ts': "the staff list with each member's address and name, in one query",
  'staff/audit.repo.ts': "an audit record's actor label (their username at the time), in the insert itself",
  'moderation/people.repo.ts': "an operator's people search and a person's account (ADR 055)",
  'health/health-stats.repo.ts': "the console's sign-ups per day (ADR 057): one count over the column, never a write",
  'curation/tags-console.repo.ts': "a user-made tag's maker in the console's tag list (ADR 059), in the same query",
}
const WRITES_USERS = /\.(insert|update|delete)\(\s*users\s*\)|(insert\s+into|update|delete\s+from)\s+\$\{\s*users\s*\}/i

describe('who owns the users table', () => {
  it('is found: the repos are read', () => {
    expect(repos).toEqual(expect.arrayContaining([...USERS_OWNERS, ...Object.keys(USERS_READERS)]))
  })

  it('only its owners and the listed readers import it', () => {
    const importing = repos.filter((repo) => source(repo).includes("'#db/schema/users.ts'"))
    expect(importing.filter((repo) => !USERS_OWNERS.includes(repo) && !(repo in USERS_READERS))).toEqual([])
  })

  it('only its owners write it; other modules go through the users, auth or account service', () => {
    expect(Object.keys(USERS_READERS).filter((repo) => WRITES_USERS.test(source(repo)))).toEqual([])
    // The pattern does see a write where there is one.
    expect(USERS_OWNERS.every((repo) => WRITES_USERS.test(source(repo)))).toBe(true)
  })
})

describe('one transaction type', () => {
  it('is defined in db/client.ts only; repos import it', () => {
    const definition = /Parameters<\s*Parameters<\s*Db\['transaction'\]\s*>/
    const defining = repos.filter((repo) => definition.test(source(repo)))
    expect(defining).toEqual([])
    expect(readFileSync(path.join(root, 'db/client.ts'), 'utf8')).toMatch(definition)
  })
})

// ADR 039: the translations of a character's texts belong to the role-texts repo. Other repos reach
// them only through what it exports: SQL fragments inside their own queries, and the one write
// that must share the transaction changing a role's source texts.
const TRANSLATIONS_OWNER = 'role-texts/role-texts.repo.ts'
const TRANSLATIONS_USERS: Record<string, string> = {
  'catalogue/catalogue.repo.ts':
    "search in the visitor's language and the sitemaps' locales, in the listing's own query",
  'characters/characters.repo.ts': 'translations marked stale in the transaction that changes the source texts',
  'curation/tags-console.repo.ts':
    "translations' search texts derived again in the transaction that renames, hides or merges a tag (ADR 059)",
}

describe('who owns the role_translations table', () => {
  it('only the role-texts repo imports its schema or names the table', () => {
    const touching = repos.filter(
      (repo) => source(repo).includes("'#db/schema/role-texts.ts'") || source(repo).includes('role_translations'),
    )
    expect(touching).toEqual([TRANSLATIONS_OWNER])
  })

  it("other repos use only the role-texts repo's exports, and are listed with why", () => {
    const using = repos.filter((repo) => repo !== TRANSLATIONS_OWNER && source(repo).includes('role-texts.repo.ts'))
    expect(using.sort()).toEqual(Object.keys(TRANSLATIONS_USERS).sort())
  })
})

// ADR 052: a scene's members belong to the scene-members repo. The branches repo copies them in its
// own transaction through what that repo exports; the chat-rows repo reads their count with the
// session (one statement before the model is asked, issue 24).
const MEMBERS_OWNER = 'chat/scene-members.repo.ts'

describe('who owns the chat_members table', () => {
  it('only the scene-members repo imports its schema or names the table', () => {
    const touching = repos.filter((repo) => /\bchatMembers\b|chat_members/.test(source(repo)))
    expect(touching).toEqual([MEMBERS_OWNER])
  })

  it("the branches repo copies members through the scene-members repo's export", () => {
    const using = repos.filter((repo) => repo !== MEMBERS_OWNER && source(repo).includes('scene-members.repo.ts'))
    expect(using.sort()).toEqual(['chat/chat-branches.repo.ts', 'chat/chat-rows.repo.ts'])
  })
})

// ADR 056: the refunds an operator asked for belong to the refunds repo; the payments service
// settles them (API answer or webhook) through what it exports, in the payments transaction.
const REFUNDS_OWNER = 'payments/refunds.repo.ts'

describe('who owns the order_refunds table', () => {
  it('only the refunds repo imports its schema or names the table', () => {
    const touching = repos.filter((repo) => /\borderRefunds\b|order_refunds/.test(source(repo)))
    expect(touching).toEqual([REFUNDS_OWNER])
  })
})

// ADR 054: staff roles and second factors belong to the staff repo, the audit log to the audit repo.
const STAFF_TABLES: Record<string, { owner: string; pattern: RegExp }> = {
  staff_members: { owner: 'staff/staff.repo.ts', pattern: /\bstaffMembers\b|staff_members/ },
  staff_second_factors: { owner: 'staff/staff.repo.ts', pattern: /\bstaffSecondFactors\b|staff_second_factors/ },
  staff_recovery_codes: { owner: 'staff/staff.repo.ts', pattern: /\bstaffRecoveryCodes\b|staff_recovery_codes/ },
  admin_audit: { owner: 'staff/audit.repo.ts', pattern: /\badminAudit\b|admin_audit/ },
}

describe('who owns the staff tables and the audit log', () => {
  for (const [table, { owner, pattern }] of Object.entries(STAFF_TABLES)) {
    it(`only ${owner} touches ${table}`, () => {
      expect(repos.filter((repo) => pattern.test(source(repo)))).toEqual([owner])
    })
  }
})

// ADR 055: each table of the moderation module has one repo; nothing else imports its schema.
const MODERATION_OWNERS: Record<string, string> = {
  userSuspensions: 'moderation/suspensions.repo.ts',
  roleHides: 'moderation/role-hides.repo.ts',
  userWarnings: 'moderation/warnings.repo.ts',
}

describe('who owns the moderation tables', () => {
  it.each(Object.entries(MODERATION_OWNERS))('only its repo names %s', (table, owner) => {
    const touching = repos.filter((repo) => new RegExp(`\\b${table}\\b`).test(source(repo)))
    expect(touching).toEqual([owner])
  })
})

// ADR 057: the reply statistics of the health dashboard belong to its repo; the chat reaches it
// through the recorder it is given.
const DAILY_STATS_OWNER = 'health/health-stats.repo.ts'

describe('who owns the model_daily_stats table', () => {
  it('only the health statistics repo imports its schema or names the table', () => {
    const touching = repos.filter((repo) => /\bmodelDailyStats\b|model_daily_stats/.test(source(repo)))
    expect(touching).toEqual([DAILY_STATS_OWNER])
  })
})

// ADR 059: the featured characters and the operator's settings each have one repo.
const CURATION_OWNERS: Record<string, string> = {
  featuredRoles: 'curation/featured.repo.ts',
  siteSettings: 'curation/site-settings.repo.ts',
}

describe('who owns the featured list and the site settings', () => {
  it.each(Object.entries(CURATION_OWNERS))('only its repo names %s', (table, owner) => {
    const touching = repos.filter((repo) => new RegExp(`\\b${table}\\b`).test(source(repo)))
    expect(touching).toEqual([owner])
  })
})
