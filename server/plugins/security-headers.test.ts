import { describe, expect, it } from 'vitest'
import { pagePolicy } from './security-headers.ts'

describe('page content security policy', () => {
  it('allows scripts only with this response’s nonce, and no foreign frames by default', () => {
    const policy = pagePolicy('abc123', false)
    expect(policy).toContain("script-src 'self' 'nonce-abc123' 'strict-dynamic'")
    expect(policy).toContain("frame-src 'self'")
    expect(policy).not.toContain('cloudflare')
    expect(policy).not.toContain('upgrade-insecure-requests')
    expect(policy).toContain("object-src 'none'")
  })

  it('adds the configured frame sources, and upgrades requests in production', () => {
    const policy = pagePolicy('n', true, ['https://challenges.cloudflare.com'])
    expect(policy).toContain("frame-src 'self' https://challenges.cloudflare.com")
    expect(policy).toContain('upgrade-insecure-requests')
  })
})
