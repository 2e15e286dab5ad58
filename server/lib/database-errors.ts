/**
 * Whether an error means the database could not be reached or dropped the connection (a restart,
 * a failover, a network cut), as opposed to a bug or a refused statement. Such a request may
 * succeed when retried, so it is answered 503, not 500. Drizzle wraps the driver's error in
 * `cause`; the whole chain is looked at.
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

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH'])

// node-postgres reports a lost or refused connection with these messages and no code.
const DRIVER_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Cannot use a pool after calling end on the pool',
]
