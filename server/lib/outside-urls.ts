import { isIP } from 'node:net'

/**
 * Whether `url` would send requests in clear text over the internet (ASVS 9.2.1): `http:` to a host
 * that is neither on this machine nor on a private network. Plain HTTP stays allowed to loopback
 * (a model server such as Ollama beside the app), private and link-local addresses, and single-label
 * names (a container or service name inside a private network), where TLS is the operator's choice.
 */
export function isPlainHttpToPublicHost(url: string): boolean {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return false
  }
  if (parsed.protocol !== 'http:') return false
  const host = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase()
  if (host === 'localhost' || host.endsWith('.localhost') || !host.includes('.')) {
    return isIP(host) === 6 ? !isPrivateIpv6(host) : false
  }
  if (isIP(host) === 4) return !isPrivateIpv4(host)
  return true
}

function isPrivateIpv4(host: string): boolean {
  const [a = 0, b = 0] = host.split('.').map(Number)
  return (
    a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254)
  )
}

function isPrivateIpv6(host: string): boolean {
  return host === '::1' || /^f[cd]/.test(host) || /^fe[89ab]/.test(host)
}
