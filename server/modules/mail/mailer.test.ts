import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { renderAccountMail } from '#server/modules/mail/account-mail.ts'
import { createMailer, type Mailer } from '#server/modules/mail/mailer.ts'
import { linksIn, parseMail, type SmtpDouble, startSmtpServer } from '#tests/doubles/smtp.ts'

const FROM = 'Taleweave <no-reply@taleweave.test>'
const noLog = () => {}

describe('mailer over SMTP', () => {
  let smtp: SmtpDouble
  let mailer: Mailer

  beforeAll(async () => {
    smtp = await startSmtpServer()
    mailer = createMailer({ smtpUrl: smtp.url, from: FROM, outboxDir: '/nonexistent', log: noLog })
  })
  afterAll(async () => {
    await mailer.close()
    await smtp.close()
  })

  it('delivers subject, text, HTML and recipient intact', async () => {
    expect(mailer.kind).toBe('smtp')
    const html = '<p>Hello <b>Ada</b> &amp; friends</p>'
    const text = `Line one\nA long line ${'x'.repeat(200)} = end\nhttps://taleweave.test/verify?token=abc`
    await mailer.send({ to: 'ada@example.test', subject: 'Plain subject', text, html })
    const mail = await smtp.waitForMail('ada@example.test')
    expect(mail.to).toEqual(['ada@example.test'])
    expect(mail.subject).toBe('Plain subject')
    expect(mail.text.trimEnd()).toBe(text)
    expect(mail.html.trimEnd()).toBe(html)
    expect(mail.raw).toContain('From: Taleweave <no-reply@taleweave.test>')
    expect(linksIn(mail.text)).toEqual(['https://taleweave.test/verify?token=abc'])
  })

  it('keeps a Japanese subject and body intact', async () => {
    const rendered = renderAccountMail('verify-email', 'ja', {
      username: '花子',
      link: 'https://taleweave.test/ja/verify-email?token=%E3%81%82',
      expiresInMinutes: 60,
    })
    const subject = `${rendered.subject}：とても長い件名でも折り返されて正しく復元されること、絵文字 🎭 も含めて`
    await mailer.send({ to: 'hanako@example.test', ...rendered, subject })
    const mail = await smtp.waitForMail('hanako@example.test')
    expect(mail.subject).toBe(subject)
    expect(mail.text.trimEnd()).toBe(rendered.text)
    expect(mail.html.trimEnd()).toBe(rendered.html.trimEnd())
    expect(linksIn(mail.text)).toEqual(['https://taleweave.test/ja/verify-email?token=%E3%81%82'])
  })

  it('keeps an Arabic mail intact, right to left', async () => {
    const rendered = renderAccountMail('reset-password', 'ar', {
      username: 'ليلى',
      link: 'https://taleweave.test/ar/reset-password?token=xyz',
      expiresInMinutes: 30,
    })
    await mailer.send({ to: 'Layla@Example.test', ...rendered })
    const mail = await smtp.waitForMail('layla@example.test')
    expect(mail.subject).toBe(rendered.subject)
    expect(mail.text).toContain('ليلى')
    expect(mail.html).toContain('dir="rtl"')
    expect(mail.html.trimEnd()).toBe(rendered.html.trimEnd())
  })

  it('keeps a mostly Latin subject with accents intact', async () => {
    const rendered = renderAccountMail('reset-password', 'fr', {
      username: 'Zoé',
      link: 'https://taleweave.test/fr/reset-password?token=q',
      expiresInMinutes: 30,
    })
    await mailer.send({ to: 'zoe@example.test', ...rendered })
    const mail = await smtp.waitForMail('zoe@example.test')
    expect(mail.raw).toMatch(/=\?UTF-8\?Q\?/i)
    expect(mail.subject).toBe('Réinitialisez votre mot de passe Taleweave')
    expect(mail.text.trimEnd()).toBe(rendered.text)
  })

  it('returns each mail to an address once, in order', async () => {
    for (const n of [1, 2]) {
      await mailer.send({ to: 'twice@example.test', subject: `Mail ${n}`, text: `${n}`, html: `<p>${n}</p>` })
    }
    expect((await smtp.waitForMail('twice@example.test')).subject).toBe('Mail 1')
    expect((await smtp.waitForMail('twice@example.test')).subject).toBe('Mail 2')
    await expect(smtp.waitForMail('twice@example.test', 50)).rejects.toThrow(/no mail/)
  })
})

describe('mailer against a server that refuses the recipient', () => {
  it('rejects the send', async () => {
    const smtp = await startSmtpServer({ rejectRecipients: true })
    const mailer = createMailer({ smtpUrl: smtp.url, from: FROM, outboxDir: '/nonexistent', log: noLog })
    try {
      await expect(
        mailer.send({ to: 'nobody@example.test', subject: 'Hi', text: 'Hi', html: '<p>Hi</p>' }),
      ).rejects.toThrow()
      expect(smtp.messages).toHaveLength(0)
    } finally {
      await mailer.close()
      await smtp.close()
    }
  })
})

describe('mailer without SMTP (outbox)', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'taleweave-outbox-'))
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('writes a parseable .eml file and logs the link', async () => {
    const outboxDir = path.join(dir, 'mail', 'outbox')
    const logged: { info: Record<string, unknown>; msg: string }[] = []
    const mailer = createMailer({
      smtpUrl: undefined,
      from: FROM,
      outboxDir,
      log: (info, msg) => logged.push({ info, msg }),
    })
    expect(mailer.kind).toBe('outbox')
    const link = 'https://taleweave.test/fr/verify-email?token=t0k3n'
    const rendered = renderAccountMail('verify-email', 'fr', { username: 'Zoé', link, expiresInMinutes: 60 })
    await mailer.send({ to: 'zoe@example.test', ...rendered })
    await mailer.close()

    const files = await readdir(outboxDir)
    expect(files).toHaveLength(1)
    const [name = ''] = files
    expect(name).toMatch(/^\d{4}-\d\d-\d\dT[\d-]+\.\d{3}Z-[0-9a-f]+\.eml$/)
    const raw = await readFile(path.join(outboxDir, name), 'utf8')
    expect(raw).toContain('To: zoe@example.test')
    const mail = parseMail(raw)
    expect(mail.subject).toBe(rendered.subject)
    expect(mail.text.trimEnd()).toBe(rendered.text)
    expect(mail.html.trimEnd()).toBe(rendered.html.trimEnd())

    expect(logged).toEqual([
      {
        msg: 'mail written to outbox',
        info: { file: path.join(outboxDir, name), to: 'zoe@example.test', links: [link] },
      },
    ])
  })
})
