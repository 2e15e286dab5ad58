import { describe, expect, it } from 'vitest'
import { auditCsv, csvField } from './audit.ts'
import { createSecretBox, newRecoveryCodes, recoveryCodeHash, totpCode, totpStep, totpUri } from './totp.ts'

// RFC 6238 appendix B: the seeds are ASCII digits, as base32 here.
const base32 = (ascii: string) => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'
  let bits = ''
  for (const byte of Buffer.from(ascii)) bits += byte.toString(2).padStart(8, '0')
  let out = ''
  for (let i = 0; i < bits.length; i += 5) out += alphabet[Number.parseInt(bits.slice(i, i + 5).padEnd(5, '0'), 2)]
  return out
}
const SEEDS = {
  SHA1: base32('12345678901234567890'),
  SHA256: base32('12345678901234567890123456789012'),
  SHA512: base32('1234567890123456789012345678901234567890123456789012345678901234'),
}
const VECTORS: [number, string, string, string][] = [
  [59, '94287082', '46119246', '90693936'],
  [1111111109, '07081804', '68084774', '25091201'],
  [1111111111, '14050471', '67062674', '99943326'],
  [1234567890, '89005924', '91819424', '93441116'],
  [2000000000, '69279037', '90698825', '38618901'],
  [20000000000, '65353130', '77737706', '47863826'],
]

describe('TOTP (RFC 6238)', () => {
  it.each(VECTORS)('matches the test vectors at T=%i', (seconds, sha1, sha256, sha512) => {
    const at = seconds * 1000
    expect(totpCode(SEEDS.SHA1, at, { digits: 8, algorithm: 'SHA1' })).toBe(sha1)
    expect(totpCode(SEEDS.SHA256, at, { digits: 8, algorithm: 'SHA256' })).toBe(sha256)
    expect(totpCode(SEEDS.SHA512, at, { digits: 8, algorithm: 'SHA512' })).toBe(sha512)
  })

  it('uses SHA-1, 6 digits and 30-second steps by default, and says which step a code is of', () => {
    const at = 59_000
    expect(totpCode(SEEDS.SHA1, at)).toBe('287082')
    expect(totpStep(SEEDS.SHA1, '287082', at)).toBe(1)
  })

  it('accepts one step of drift either way, no more', () => {
    const at = 1_111_111_111_000
    const step = Math.floor(at / 30_000)
    const code = totpCode(SEEDS.SHA1, at)
    expect(totpStep(SEEDS.SHA1, code, at + 30_000)).toBe(step)
    expect(totpStep(SEEDS.SHA1, code, at - 30_000)).toBe(step)
    expect(totpStep(SEEDS.SHA1, code, at + 60_000)).toBeNull()
    expect(totpStep(SEEDS.SHA1, code, at - 60_000)).toBeNull()
    expect(totpStep(SEEDS.SHA1, '12345', at)).toBeNull()
    expect(totpStep(SEEDS.SHA1, 'abcdef', at)).toBeNull()
  })

  it('gives an otpauth:// address with the defaults an app expects', () => {
    const uri = new URL(totpUri(SEEDS.SHA1, 'ada'))
    expect(uri.protocol).toBe('otpauth:')
    expect(uri.searchParams.get('secret')).toBe(SEEDS.SHA1)
    expect(uri.searchParams.get('algorithm')).toBe('SHA1')
    expect(uri.searchParams.get('digits')).toBe('6')
    expect(uri.searchParams.get('period')).toBe('30')
  })
})

describe('the secret box', () => {
  it('opens what it sealed, and refuses another key or a changed box', () => {
    const box = createSecretBox('k'.repeat(40))
    const sealed = box.seal('JBSWY3DPEHPK3PXP')
    expect(sealed).not.toContain('JBSWY3DPEHPK3PXP')
    expect(box.open(sealed)).toBe('JBSWY3DPEHPK3PXP')
    expect(() => createSecretBox('x'.repeat(40)).open(sealed)).toThrow()
    const parts = sealed.split('.')
    const flipped = `${parts[3]?.[0] === 'A' ? 'B' : 'A'}${parts[3]?.slice(1)}`
    expect(() => box.open([parts[0], parts[1], parts[2], flipped].join('.'))).toThrow()
  })
})

describe('recovery codes', () => {
  it('are ten different codes, and hash alike in any case and spacing', () => {
    const codes = newRecoveryCodes()
    expect(new Set(codes).size).toBe(10)
    for (const code of codes) expect(code).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/)
    const [code = ''] = codes
    expect(recoveryCodeHash(code.toUpperCase().replace('-', ' '))).toBe(recoveryCodeHash(code))
  })
})

describe('the audit CSV', () => {
  it('quotes every field, doubles quotes, and disarms spreadsheet formulas', () => {
    expect(csvField('plain')).toBe('"plain"')
    expect(csvField('say "hi", then\nleave')).toBe('"say ""hi"", then\nleave"')
    for (const start of ['=', '+', '-', '@', '\t', '\r']) expect(csvField(`${start}1+1`)).toBe(`"'${start}1+1"`)
    const csv = auditCsv([
      {
        id: 1,
        at: new Date('2026-11-26T00:00:00Z'),
        actorId: null,
        actorLabel: 'cli',
        action: 'staff.grant',
        targetType: 'staff',
        targetId: 'u1',
        note: '=HYPERLINK("http://evil")',
        details: { email: 'a@b.test' },
      },
    ])
    expect(csv).toBe(
      '"at","actor_id","actor","action","target_type","target_id","note","details"\r\n'.replaceAll('"', '') +
        `"2026-11-26T00:00:00.000Z","","cli","staff.grant","staff","u1","'=HYPERLINK(""http://evil"")","{""email"":""a@b.test""}"\r\n`,
    )
  })
})
