/**
 * What the request log may keep of a URL. Links carry one-time secrets in their query (the e-mail
 * verification token, OAuth `code` and `state`); the log keeps the parameter's name and drops its
 * value, so a log reader cannot take over an account from a log line.
 */
const SECRET_PARAMS = new Set([
  'token',
  'code',
  'state',
  'key',
  'secret',
  'password',
  'signature',
  'sig',
  'access_token',
  'refresh_token',
  'id_token',
  'refreshtoken',
])

const REDACTED = '[redacted]'

export function redactUrl(url: string): string {
  const question = url.indexOf('?')
  if (question === -1) return url
  const hash = url.indexOf('#', question)
  const query = url.slice(question + 1, hash === -1 ? undefined : hash)
  const parts = query.split('&').map((part) => {
    const equals = part.indexOf('=')
    const name = equals === -1 ? part : part.slice(0, equals)
    let decoded = name
    try {
      decoded = decodeURIComponent(name.replaceAll('+', ' '))
    } catch {
      // A malformed name is kept as it is; its value is judged by the raw name.
    }
    return equals !== -1 && SECRET_PARAMS.has(decoded.toLowerCase()) ? `${name}=${REDACTED}` : part
  })
  return `${url.slice(0, question)}?${parts.join('&')}`
}
