import { PGlite } from '@electric-sql/pglite'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type PreparedClient, withPreparedStatements } from './pglite-statements.ts'

/** Named statements PGlite keeps for this session (read with PGlite's own, unnamed, query). */
async function prepared(pg: PGlite) {
  const result = await pg.query<{ name: string; statement: string }>(
    'select name, statement from pg_prepared_statements order by name',
  )
  return result.rows
}

describe('PGlite prepared statements', () => {
  let pg: PGlite
  let client: PreparedClient

  beforeEach(async () => {
    pg = new PGlite('memory://')
    client = withPreparedStatements(pg)
    await pg.exec(`
      create table notes (id serial primary key, body text not null unique, meta jsonb, at timestamptz, tags text[], n bigint, ok boolean);
    `)
  })
  afterEach(() => pg.close())

  it('parses a query once and answers every later call from the named statement, as PGlite itself would', async () => {
    const insert = 'insert into notes (body, meta, at, tags, n, ok) values ($1, $2, $3, $4, $5, $6) returning *'
    const at = new Date('2026-11-22T10:00:00Z')
    for (let i = 0; i < 5; i++) {
      await client.query(insert, [`note ${i}`, { i, nested: ['x'] }, at, ['a', 'b,c'], 2 ** 40 + i, i % 2 === 0])
    }
    await client.query(insert, ['empty', null, null, null, null, null])
    const select = 'select * from notes where id > $1 order by id'
    const mine = await client.query(select, [0])
    const theirs = await pg.query(select, [0])
    expect(mine.rows).toEqual(theirs.rows)
    expect(mine.fields).toEqual(theirs.fields)
    expect(mine.rows[1]).toMatchObject({ body: 'note 1', meta: { i: 1, nested: ['x'] }, tags: ['a', 'b,c'], ok: false })
    expect((mine.rows[0] as { at: Date }).at.toISOString()).toBe(at.toISOString())
    // Two texts, two statements, however often each ran.
    expect((await prepared(pg)).map((row) => row.statement)).toEqual([insert, select])
    // Array mode and the caller's parsers, as Drizzle asks for them.
    const asArrays = await client.query('select body, at from notes where id = $1', [1], {
      rowMode: 'array',
      parsers: { 1184: (value: string) => `raw:${value}` },
    })
    expect(asArrays.rows).toEqual([['note 0', 'raw:2026-11-22 10:00:00+00']])
  })

  it("applies the caller's parsers over PGlite's without copying PGlite's on each call", async () => {
    await client.query('insert into notes (body, at, n, ok) values ($1, $2, $3, $4)', ['x', new Date(0), 7, true])
    // Counts how often something lists PGlite's parsers (318 of them), as copying them into a new
    // object does: that copy cost ~0.1 ms per statement, as much as running a small one.
    let listed = 0
    const own = (pg as unknown as { parsers: Record<number, unknown> }).parsers
    ;(pg as unknown as { parsers: unknown }).parsers = new Proxy(own, {
      ownKeys(target) {
        listed++
        return Reflect.ownKeys(target)
      },
    })
    const drizzleLike = { rowMode: 'array' as const, parsers: { 1184: (value: string) => `raw:${value}` } }
    for (let i = 0; i < 3; i++) {
      const result = await client.query('select body, at, n, ok, meta from notes', [], drizzleLike)
      // The caller's parser for timestamptz; PGlite's for int8, bool and a null jsonb.
      expect(result.rows).toEqual([['x', 'raw:1970-01-01 00:00:00+00', 7, true, null]])
    }
    expect(listed).toBe(0)
  })

  it('reports a failing statement with its code and keeps working afterwards', async () => {
    const insert = 'insert into notes (body) values ($1)'
    await client.query(insert, ['once'])
    await expect(client.query(insert, ['once'])).rejects.toMatchObject({ code: '23505', query: insert })
    await expect(client.query('selec nothing', [])).rejects.toMatchObject({ code: '42601' })
    await expect(client.query('select $1::int', ['not a number'])).rejects.toMatchObject({ code: '22P02' })
    await client.query(insert, ['twice'])
    const rows = await client.query<{ body: string }>('select body from notes order by id', [])
    expect(rows.rows.map((row) => row.body)).toEqual(['once', 'twice'])
    // The statement that never parsed is not kept.
    expect((await prepared(pg)).map((row) => row.statement)).not.toContain('selec nothing')
  })

  it('runs inside transactions: commits, rolls back, and makes outside queries wait their turn', async () => {
    const insert = 'insert into notes (body) values ($1)'
    const count = async () => (await client.query<{ n: number }>('select count(*)::int as n from notes', [])).rows[0]?.n
    await client.transaction(async (tx) => {
      await tx.query(insert, ['kept'])
    })
    await expect(
      client.transaction(async (tx) => {
        await tx.query(insert, ['undone'])
        throw new Error('changed my mind')
      }),
    ).rejects.toThrow('changed my mind')
    await expect(
      client.transaction(async (tx) => {
        await tx.query(insert, ['kept'])
      }),
    ).rejects.toMatchObject({ code: '23505' })
    expect(await count()).toBe(1)

    // A query from outside while a transaction runs waits for it (PGlite has one connection).
    let release: () => void = () => {}
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    const order: string[] = []
    const transaction = client.transaction(async (tx) => {
      await tx.query(insert, ['inside'])
      await held
      order.push('transaction done')
    })
    await new Promise((resolve) => setTimeout(resolve, 20))
    const outside = count().then((n) => {
      order.push(`outside saw ${n}`)
    })
    await new Promise((resolve) => setTimeout(resolve, 20))
    release()
    await Promise.all([transaction, outside])
    expect(order).toEqual(['transaction done', 'outside saw 2'])
  })

  it('notices a table that changed under a kept statement and prepares it again', async () => {
    const all = 'select * from notes order by id'
    await client.query('insert into notes (body) values ($1)', ['first'])
    expect(Object.keys((await client.query(all, [])).rows[0] ?? {})).not.toContain('extra')
    await pg.exec('alter table notes add column extra int default 7')
    const again = await client.query<{ extra: number }>(all, [])
    expect(again.rows[0]?.extra).toBe(7)
  })

  it('keeps at most the given number of statements, closing the least recently used', async () => {
    client = withPreparedStatements(pg, { maxStatements: 2 })
    await client.query('select 1 as a', [])
    await client.query('select 2 as b', [])
    await client.query('select 1 as a', [])
    await client.query('select 3 as c', [])
    expect((await prepared(pg)).map((row) => row.statement).sort()).toEqual(['select 1 as a', 'select 3 as c'])
    expect((await client.query('select 2 as b', [])).rows).toEqual([{ b: 2 }])
  })
})
