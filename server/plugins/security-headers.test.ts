import { describe, expect, it } from 'vitest'
import { pagePolicy } from './security-headers.ts'

describe('page content security policy', () => {
  it('allows scripts only with this response’s nonce, and no foreign frames by default', () => {
    const policy = pagePolicy(["'nonce-abc123'"], false)
    expect(policy).toContain("script-src 'self' 'nonce-abc123' 'strict-dynamic'")
    expect(policy).toContain("frame-src 'self'")
    expect(policy).not.toContain('cloudflare')
    expect(policy).not.toContain('upgrade-insecure-requests')
    expect(policy).toContain("object-src 'none'")
  })

  it('adds the configured frame sources, and upgrades requests in production', () => {
    const policy = pagePolicy(["'nonce-n'"], true, ['https://challenges.cloudflare.com'])
    expect(policy).toContain("frame-src 'self' https://challenges.cloudflare.com")
    expect(policy).toContain('upgrade-insecure-requests')
  })

  it('trusts a cached page’s inline scripts by their hashes, with no nonce', () => {
    const policy = pagePolicy(["'sha256-AAAA'", "'sha256-BBBB'"], false)
    expect(policy).toContain("script-src 'self' 'sha256-AAAA' 'sha256-BBBB' 'strict-dynamic'")
    expect(policy).not.toContain('nonce')
  })
})
