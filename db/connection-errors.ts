/**
 * Whether an error means the database connection was lost or could not be made (a restart, a
 * failover, a network cut, a statement given up on a silent connection), as opposed to a bug or a
 * refused statement. The one rule for both uses: the pool destroys a client that failed this way
 * instead of lending it again (db/client.ts), and a request that failed this way may succeed when
 * retried, so it is answered 503, not 500 (server/plugins/error-handler.ts).
 *
 * Drizzle wraps the driver's error in `cause` (DrizzleQueryError), so the whole chain is looked at.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (
    let e = error, depth = 0;
    e && typeof e === 'object' && depth < 5;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    const { code, message } = e as { code?: unknown; message?: unknown }
    if (typeof code === 'string') {
      // SQLSTATE class 08 (connection exception), 57P01-57P03 (admin/crash shutdown, cannot
      // connect now: a restarting server), 53300 (too many connections).
      if (code.startsWith('08') || /^57P0[123]$/.test(code) || code === '53300') return true
      if (NETWORK_CODES.has(code)) return true
    }
    if (typeof message === 'string' && DRIVER_MESSAGES.some((m) => message.includes(m))) return true
  }
  return false
}

/** Node's socket and name-lookup failures (a named list: any other E-code is not a lost connection). */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
])

// node-postgres reports a lost, refused or silent connection with these messages and no code.
// "Query read timeout" is its `query_timeout`: the statement may still run on that connection,
// which must not be lent to anyone else.
const DRIVER_MESSAGES = [
  'Connection terminated',
  'Query read timeout',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Cannot use a pool after calling end on the pool',
]
