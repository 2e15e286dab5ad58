import http from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * Cloudflare Turnstile's siteverify endpoint: POST form fields `secret`, `response`, `remoteip`;
 * answers `{ success, "error-codes" }`. Tokens listed in `valid` pass once (like real ones).
 */
export async function startTurnstile(options: { secret: string; valid: string[] }) {
  const unused = new Set(options.valid)
  const requests: Record<string, string>[] = []
  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (chunk) => {
      body += chunk
    })
    req.on('end', () => {
      const form = Object.fromEntries(new URLSearchParams(body))
      requests.push(form)
      const errors: string[] = []
      if (req.method !== 'POST' || req.url !== '/turnstile/v0/siteverify') errors.push('bad-request')
      else if (form.secret !== options.secret) errors.push('invalid-input-secret')
      else if (!form.response) errors.push('missing-input-response')
      else if (!unused.delete(form.response))
        errors.push(options.valid.includes(form.response) ? 'timeout-or-duplicate' : 'invalid-input-response')
      res.setHeader('content-type', 'application/json')
      res.end(JSON.stringify({ success: errors.length === 0, 'error-codes': errors }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    verifyUrl: `http://127.0.0.1:${port}/turnstile/v0/siteverify`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
