import { sql } from 'drizzle-orm'
import { DrizzleQueryError } from 'drizzle-orm/errors'
import { describe, expect, it } from 'vitest'
import { openDatabase } from './client.ts'
import { isDatabaseUnavailable } from './connection-errors.ts'

// How Drizzle hands the driver's error to a repo, a transaction and the error handler.
const wrapped = (cause: unknown) => new DrizzleQueryError('select 1', [], cause as Error)

describe('the one lost-connection rule', () => {
  it('knows lost, refused and silent connections, also wrapped by Drizzle', () => {
    const lost = [
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      Object.assign(new Error('the database system is starting up'), { code: '57P03' }),
      Object.assign(new Error('connection failure'), { code: '08006' }),
      Object.assign(new Error('sorry, too many clients already'), { code: '53300' }),
      Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      Object.assign(new Error('getaddrinfo ENOTFOUND db'), { code: 'ENOTFOUND' }),
      new Error('Connection terminated unexpectedly'),
      new Error('Query read timeout'),
      new Error('timeout exceeded when trying to connect'),
    ]
    for (const error of lost) {
      expect(isDatabaseUnavailable(error), error.message).toBe(true)
      expect(isDatabaseUnavailable(wrapped(error)), `wrapped: ${error.message}`).toBe(true)
    }
  })

  it('leaves bugs and refused statements alone', () => {
    const others = [
      new Error('a plain bug'),
      Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' }),
      Object.assign(new Error('canceling statement due to user request'), { code: '57014' }),
      Object.assign(new Error('invalid argument'), { code: 'EINVAL' }),
      wrapped(Object.assign(new Error('syntax error'), { code: '42601' })),
      undefined,
      null,
      'Connection terminated',
    ]
    for (const error of others) expect(isDatabaseUnavailable(error), String(error)).toBe(false)
  })
})

describe.skipIf(!process.env.TEST_DATABASE_URL)('the pool, on PostgreSQL', () => {
  // A statement given up by the query timeout still runs on its connection: a transaction that
  // failed so must destroy its client, not lend it to the next query, which would wait behind it.
  it('does not lend again the connection of a transaction whose statement timed out', async () => {
    const handle = openDatabase({ url: process.env.TEST_DATABASE_URL, dataDir: 'unused', queryTimeoutMs: 300 })
    try {
      await handle.db.execute(sql`select 1`)
      await expect(handle.db.transaction((tx) => tx.execute(sql`select pg_sleep(3)`))).rejects.toThrow()
      const started = Date.now()
      await handle.db.execute(sql`select 1`)
      expect(Date.now() - started).toBeLessThan(300)
    } finally {
      await handle.close()
    }
  })
})
