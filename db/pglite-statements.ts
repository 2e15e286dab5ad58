import { type PGlite, parse, protocol, type Results, type Transaction } from '@electric-sql/pglite'

/**
 * Server-side prepared statements for PGlite (docs/decisions/020-pglite-prepared-statements.md).
 *
 * PGlite's `query()` parses, plans and describes every statement again on each call (the unnamed
 * statement of the extended protocol), so a query's planning is paid every time: for the chat's
 * send statement that was 1–2 ms of the ~2–3 ms it took. node-postgres names the statements Drizzle
 * prepares, and PostgreSQL keeps their plans; this gives PGlite the same: each distinct SQL text is
 * parsed once into a named statement, and later calls only bind and execute it.
 *
 * What Drizzle sees is a client with PGlite's `query` and `transaction`; everything else (migrations,
 * `exec`) goes to PGlite itself. The locking mirrors PGlite's own: a query outside a transaction
 * waits for the transaction lock and then the query lock; one inside a transaction takes only the
 * query lock (the transaction holds the other).
 */

/** The PGlite internals this relies on (present on PGlite and its transactions' owner). */
type PgliteLocks = {
  _runExclusiveQuery<T>(fn: () => Promise<T>): Promise<T>
  _runExclusiveTransaction<T>(fn: () => Promise<T>): Promise<T>
  serializers: Record<number, (value: unknown) => string>
  parsers: Record<number, (value: string, typeId?: number) => unknown>
}

type QueryOptions = {
  rowMode?: 'array' | 'object'
  parsers?: Record<number, (value: string, typeId?: number) => unknown>
  blob?: unknown
}

/** Statements kept per database; the app has a few hundred distinct queries at most. */
const MAX_STATEMENTS = 500

/** SQLSTATEs after which a cached statement is dropped and the call made once more. */
const STALE_STATEMENT = new Set([
  '26000', // the statement no longer exists (DEALLOCATE, DISCARD)
  '0A000', // "cached plan must not change result type" after a table changed
])

type Statement = { name: string; paramTypes: number[] }

// The same three messages end every call.
const DESCRIBE_PORTAL = protocol.serialize.describe({ type: 'P' })
const EXECUTE = protocol.serialize.execute({})
const SYNC = protocol.serialize.sync()

function concat(parts: readonly Uint8Array[]): Uint8Array {
  let length = 0
  for (const part of parts) length += part.length
  const joined = new Uint8Array(length)
  let offset = 0
  for (const part of parts) {
    joined.set(part, offset)
    offset += part.length
  }
  return joined
}

export type PreparedClient = {
  query<T>(text: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>>
  transaction<T>(callback: (tx: PreparedClient & { rollback(): Promise<void> }) => Promise<T>): Promise<T>
}

export function withPreparedStatements(pg: PGlite, { maxStatements = MAX_STATEMENTS } = {}): PreparedClient {
  const locks = pg as unknown as PgliteLocks
  // Insertion order doubles as recency: a hit moves its statement to the end.
  const statements = new Map<string, Statement>()
  let counter = 0

  // The messages of one call go to PGlite as one buffer: its loop runs them one after the other
  // (after an error PostgreSQL skips to the Sync), and the replies are parsed as they come, without
  // the copy of the raw bytes `execProtocol` keeps. One pass through the WebAssembly module per
  // statement instead of four or five.
  const exec = (...messages: Uint8Array[]) =>
    pg.execProtocolStream(messages.length === 1 ? (messages[0] as Uint8Array) : concat(messages), {
      syncToFs: false,
      throwOnError: true,
    })

  async function prepare(text: string): Promise<Statement> {
    const cached = statements.get(text)
    if (cached) {
      statements.delete(text)
      statements.set(text, cached)
      return cached
    }
    if (statements.size >= maxStatements) {
      const [oldestText, oldest] = statements.entries().next().value as [string, Statement]
      statements.delete(oldestText)
      await exec(protocol.serialize.close({ type: 'S', name: oldest.name }), SYNC)
    }
    const name = `pgl_${++counter}`
    const described = await exec(
      protocol.serialize.parse({ name, text }),
      protocol.serialize.describe({ type: 'S', name }),
      SYNC,
    )
    const paramTypes = parse.parseDescribeStatementResults(described)
    const statement = { name, paramTypes }
    statements.set(text, statement)
    return statement
  }

  /** One call of a named statement; runs under the query lock, ends with Sync whatever happens. */
  async function run<T>(text: string, params: unknown[], options: QueryOptions | undefined): Promise<Results<T>> {
    let results: Awaited<ReturnType<typeof exec>>
    try {
      const statement = await prepare(text)
      const values = params.map((param, i) => {
        if (param === null || param === undefined) return null
        const serialize = locks.serializers[statement.paramTypes[i] ?? 0]
        return serialize ? serialize(param) : String(param)
      })
      results = await exec(
        protocol.serialize.bind({ statement: statement.name, values }),
        DESCRIBE_PORTAL,
        EXECUTE,
        SYNC,
      )
    } catch (error) {
      if (error instanceof protocol.messages.DatabaseError) {
        Object.assign(error, { query: text, params })
        if (error.code && STALE_STATEMENT.has(error.code)) statements.delete(text)
      }
      throw error
    }
    await pg.syncToFs()
    return parse.parseResults(results, parsersFor(options), { rowMode: options?.rowMode })[0] as Results<T>
  }

  /**
   * The type parsers of one call: the caller's (Drizzle passes a few with every query) over
   * PGlite's. Handed to PGlite as options, they would be merged by copying PGlite's 318 parsers into
   * a new object on every call: ~0.1 ms a statement, as much as running a small one. Here the
   * caller's sit on an object whose prototype holds PGlite's, so nothing is copied.
   */
  function parsersFor(options: QueryOptions | undefined): PgliteLocks['parsers'] {
    if (!options?.parsers) return locks.parsers
    return Object.assign(Object.create(locks.parsers) as PgliteLocks['parsers'], options.parsers)
  }

  /** Once more with a fresh statement when the cached one had gone stale. */
  async function query<T>(text: string, params: unknown[], options: QueryOptions | undefined, inTransaction: boolean) {
    await pg.waitReady
    const locked = () => locks._runExclusiveQuery(() => run<T>(text, params, options))
    const attempt = () => (inTransaction ? locked() : locks._runExclusiveTransaction(locked))
    try {
      return await attempt()
    } catch (error) {
      const code = (error as { code?: unknown }).code
      // Inside a transaction a failed statement aborts it: retrying there would only fail again.
      if (inTransaction || typeof code !== 'string' || !STALE_STATEMENT.has(code)) throw error
      return attempt()
    }
  }

  return {
    query: <T>(text: string, params: unknown[] = [], options?: QueryOptions) =>
      // PGlite's own path for what this does not handle (a COPY's blob).
      options?.blob !== undefined
        ? pg.query<T>(text, params, options as never)
        : query<T>(text, params, options, false),
    transaction: <T>(callback: (tx: PreparedClient & { rollback(): Promise<void> }) => Promise<T>) =>
      pg.transaction((tx: Transaction) =>
        callback({
          query: <R>(text: string, params: unknown[] = [], options?: QueryOptions) => {
            // A finished transaction refuses like PGlite's own does.
            if (tx.closed || options?.blob !== undefined) return tx.query<R>(text, params, options as never)
            return query<R>(text, params, options, true)
          },
          transaction: () => {
            throw new Error('nested transactions go through savepoints')
          },
          rollback: () => tx.rollback(),
        }),
      ),
  }
}
