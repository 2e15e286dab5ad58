import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { solveChallenge } from 'altcha-lib'
import { deriveKey } from 'altcha-lib/algorithms/sha'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '#server/config.ts'
import { type SmtpDouble, startSmtpServer } from '#tests/doubles/smtp.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'
import { CONTACT_LIMITS } from './contact.service.ts'
import { LINKS_FILE, loadFriendshipLinks } from './friendship-links.ts'

const OPERATOR = 'operator@example.test'

describe('contact form', () => {
  let t: TestApp
  let smtp: SmtpDouble
  beforeAll(async () => {
    smtp = await startSmtpServer()
    t = await buildTestApp({
      env: { SMTP_URL: `${smtp.url}?pool=false`, CONTACT_EMAIL: `Taleweave team <${OPERATOR}>` },
    })
  })
  afterAll(async () => {
    await t?.close()
    await smtp?.close()
  })

  /** Solves a real challenge from the server, as the browser widget does. */
  async function humanToken(): Promise<string> {
    const challenge = (await t.app.inject({ method: 'GET', url: '/api/public/altcha/challenge' })).json()
    const solution = await solveChallenge({ challenge, deriveKey })
    return Buffer.from(JSON.stringify({ challenge, solution })).toString('base64')
  }

  const message = {
    name: 'Ada Reader',
    email: 'ada@example.test',
    message: 'Hello! Could you add my site to your friendship links? <script>alert(1)</script>',
  }
  const send = (payload: object, ip: string) =>
    t.app.inject({ method: 'POST', url: '/api/public/contact', payload, remoteAddress: ip })

  it('mails the message to the operator, with the visitor as Reply-To and nothing interpreted as HTML', async () => {
    const res = await send({ ...message, turnstileToken: await humanToken(), locale: 'fr' }, '198.51.100.1')
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ success: true, data: { message: 'sent' } })
    const mail = await smtp.waitForMail(OPERATOR)
    expect(mail.subject).toBe('Contact form: Ada Reader')
    expect(mail.raw).toMatch(/^Reply-To: "?Ada Reader"? <ada@example\.test>/m)
    expect(mail.text).toContain('E-mail: ada@example.test')
    expect(mail.text).toContain('Language: fr')
    expect(mail.text).toContain(message.message)
    expect(mail.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;')
    expect(mail.html).not.toContain('<script>')
  })

  it('requires a solved, unused human verification', async () => {
    for (const turnstileToken of ['garbage', Buffer.from('{"challenge":1}').toString('base64')]) {
      const res = await send({ ...message, turnstileToken }, '198.51.100.2')
      expect(res.statusCode).toBe(400)
      expect(res.json()).toMatchObject({ error: 'VERIFICATION_FAILED' })
    }
    const token = await humanToken()
    expect((await send({ ...message, turnstileToken: token }, '198.51.100.2')).statusCode).toBe(200)
    const again = await send({ ...message, turnstileToken: token }, '198.51.100.2')
    expect(again.json()).toMatchObject({ error: 'VERIFICATION_FAILED', details: { reason: 'already used' } })
    expect((await send({ ...message }, '198.51.100.2')).statusCode).toBe(400)
  })

  it('checks the fields and refuses unknown ones', async () => {
    const token = await humanToken()
    const cases = [
      { ...message, email: 'not-an-address' },
      { ...message, name: '' },
      { ...message, name: 'Evil\r\nBcc: everyone@example.test' },
      { ...message, message: 'short' },
      { ...message, message: 'x'.repeat(5001) },
      { ...message, extra: 'field' },
    ]
    for (const payload of cases) {
      const res = await send({ ...payload, turnstileToken: token }, '198.51.100.3')
      expect(res.statusCode, JSON.stringify(payload).slice(0, 80)).toBe(400)
      expect(res.json().error).toBe('VALIDATION_ERROR')
    }
  })

  it('limits each address to five messages an hour', async () => {
    const ip = '198.51.100.4'
    for (let i = 0; i < CONTACT_LIMITS.perIp.max; i++) {
      expect((await send({ ...message, turnstileToken: await humanToken() }, ip)).statusCode).toBe(200)
    }
    const refused = await send({ ...message, turnstileToken: await humanToken() }, ip)
    expect(refused.statusCode).toBe(429)
    expect(refused.json()).toMatchObject({ error: 'RATE_LIMITED' })
    expect(refused.json().details.retryAfterSeconds).toBeGreaterThan(0)
    // Someone else may still write.
    expect((await send({ ...message, turnstileToken: await humanToken() }, '198.51.100.5')).statusCode).toBe(200)
  })

  it('spends the shared budget only on messages that passed the human check', async () => {
    // More failed checks than the whole budget, from many addresses (five each, their own limit).
    const addresses = Math.ceil((CONTACT_LIMITS.everyone.max + 5) / CONTACT_LIMITS.perIp.max)
    for (let a = 0; a < addresses; a++) {
      for (let i = 0; i < CONTACT_LIMITS.perIp.max; i++) {
        const res = await send({ ...message, turnstileToken: 'garbage' }, `10.1.${a}.1`)
        expect(res.json().error).toBe('VERIFICATION_FAILED')
      }
    }
    // A visitor who passes the check is still heard.
    expect((await send({ ...message, turnstileToken: await humanToken() }, '198.51.100.6')).statusCode).toBe(200)
  })
})

// A mail server that is down or hangs: server/modules/mail/mail-faults.test.ts.

describe('CONTACT_EMAIL', () => {
  const dataDir = () => mkdtempSync(path.join(tmpdir(), 'rp-config-'))
  it('defaults to MAIL_FROM and must be an address', () => {
    expect(loadConfig({ DATA_DIR: dataDir() }).mail.contactTo).toBe('Role Play <no-reply@localhost>')
    expect(loadConfig({ DATA_DIR: dataDir(), MAIL_FROM: 'Us <us@example.test>' }).mail.contactTo).toBe(
      'Us <us@example.test>',
    )
    expect(loadConfig({ DATA_DIR: dataDir(), CONTACT_EMAIL: 'team@example.test' }).mail.contactTo).toBe(
      'team@example.test',
    )
    expect(() => loadConfig({ DATA_DIR: dataDir(), CONTACT_EMAIL: 'nobody' })).toThrow(ConfigError)
  })
})

describe('friendship links', () => {
  const file = (content: unknown) => {
    const target = path.join(mkdtempSync(path.join(tmpdir(), 'rp-links-')), 'links.json')
    writeFileSync(target, typeof content === 'string' ? content : JSON.stringify(content))
    return target
  }

  it('reads config/links.json', () => {
    const links = loadFriendshipLinks(LINKS_FILE).list('en')
    expect(links.length).toBeGreaterThan(0)
    for (const link of links) expect(link.url).toMatch(/^https:\/\//)
  })

  it('describes each link in the page language when it can, else in English', () => {
    const links = loadFriendshipLinks(
      file([
        { name: 'One', url: 'https://one.example/', description: { en: 'In English', fr: 'En français' } },
        { name: 'Two', url: 'https://two.example/', description: 'Only English' },
      ]),
    )
    expect(links.list('fr')).toEqual([
      { name: 'One', url: 'https://one.example/', description: 'En français', descriptionLocale: 'fr' },
      { name: 'Two', url: 'https://two.example/', description: 'Only English', descriptionLocale: 'en' },
    ])
    expect(links.list('de')[0]).toMatchObject({ description: 'In English', descriptionLocale: 'en' })
  })

  it('refuses a file it cannot use, naming each problem, and takes a missing one as no links', () => {
    expect(() => loadFriendshipLinks(file('{ not json'))).toThrow(ConfigError)
    let problems: string[] = []
    try {
      loadFriendshipLinks(
        file([
          { name: 'Bad', url: 'javascript:alert(1)', description: 'x' },
          { name: 'No English', url: 'https://x.example/', description: { fr: 'seulement' } },
          { name: 'Extra', url: 'https://x.example/', description: 'x', rel: 'nofollow' },
        ]),
      )
    } catch (error) {
      problems = (error as ConfigError).problems
    }
    expect(problems.join('\n')).toMatch(/0\.url: must be an http/)
    expect(problems.join('\n')).toMatch(/1\.description/)
    expect(problems.join('\n')).toMatch(/2: Unrecognized key/)
    expect(loadFriendshipLinks(path.join(tmpdir(), 'no-such-links.json')).list('en')).toEqual([])
  })
})
