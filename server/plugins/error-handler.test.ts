import net from 'node:net'
import { drizzle } from 'drizzle-orm/node-postgres'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isDatabaseUnavailable } from '#server/lib/database-errors.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

// What the driver really throws when PostgreSQL is away: a port nobody listens on (refused), and a
// server that accepts and hangs up at once (a restart dropping the connection).
async function driverErrors(): Promise<unknown[]> {
  const closed = net.createServer()
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r))
  const closedPort = (closed.address() as net.AddressInfo).port
  await new Promise<void>((r) => closed.close(() => r()))
  const hangUp = net.createServer((socket) => socket.destroy())
  await new Promise<void>((r) => hangUp.listen(0, '127.0.0.1', r))
  const hangUpPort = (hangUp.address() as net.AddressInfo).port
  const errors: unknown[] = []
  for (const port of [closedPort, hangUpPort]) {
    const pool = new pg.Pool({ host: '127.0.0.1', port, user: 'x', database: 'x', connectionTimeoutMillis: 2000 })
    pool.on('error', () => {})
    // Through Drizzle, as the repos query: its wrapper keeps the driver's error as the cause.
    await drizzle(pool)
      .execute('select 1')
      .catch((error: unknown) => errors.push(error))
    await pool.end()
  }
  await new Promise<void>((r) => hangUp.close(() => r()))
  return errors
}

describe('database outages in the error handler', () => {
  let t: TestApp
  let errors: unknown[]
  beforeAll(async () => {
    errors = await driverErrors()
    t = await buildTestApp({
      configure: (app) => {
        app.get<{ Querystring: { n: string } }>('/api/test/db-down', async (request) => {
          throw errors[Number(request.query.n)]
        })
        app.get('/api/test/bug', async () => {
          throw new Error('a plain bug')
        })
        app.get('/api/test/sql', async () => {
          throw Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' })
        })
      },
    })
  })
  afterAll(() => t.close())

  it('recognises refused and dropped connections and restarts, not other failures', () => {
    expect(errors).toHaveLength(2)
    for (const error of errors) expect(isDatabaseUnavailable(error), String(error)).toBe(true)
    expect(
      isDatabaseUnavailable({ code: '57P01', message: 'terminating connection due to administrator command' }),
    ).toBe(true)
    expect(isDatabaseUnavailable(new Error('a plain bug'))).toBe(false)
    expect(isDatabaseUnavailable({ code: '23505' })).toBe(false)
    expect(isDatabaseUnavailable(undefined)).toBe(false)
  })

  it('answers an unreachable database with the 503 envelope and a retry hint, nothing of the driver', async () => {
    for (const n of [0, 1]) {
      const res = await t.app.inject({ method: 'GET', url: `/api/test/db-down?n=${n}` })
      expect(res.statusCode).toBe(503)
      expect(res.headers['retry-after']).toBe('5')
      expect(res.json()).toEqual({
        code: 503,
        success: false,
        error: 'SERVICE_UNAVAILABLE',
        message: 'The service is unavailable right now. Please try again.',
      })
    }
  })

  it('still answers bugs and refused statements with the plain 500', async () => {
    for (const url of ['/api/test/bug', '/api/test/sql']) {
      const res = await t.app.inject({ method: 'GET', url })
      expect(res.statusCode).toBe(500)
      expect(res.json()).toMatchObject({ error: 'INTERNAL_ERROR', message: 'Internal server error' })
    }
  })
})
