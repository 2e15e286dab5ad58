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
