import { describe, expect, it } from 'vitest'
import { LOCALES } from '#contracts/locales.ts'
import { type AccountMailKind, renderAccountMail } from '#server/modules/mail/account-mail.ts'

const KINDS: AccountMailKind[] = ['verify-email', 'reset-password', 'account-exists']
const LINK = 'https://taleweave.test/reset-password?token=abc&lang=x'
const LINK_IN_HTML = 'https://taleweave.test/reset-password?token=abc&amp;lang=x'

describe('account mails', () => {
  describe.each(LOCALES)('in %s', (locale) => {
    it.each(KINDS)('%s has subject, username, link and expiry', (kind) => {
      const mail = renderAccountMail(kind, locale, { username: 'Ada', link: LINK, expiresInMinutes: 45 })
      expect(mail.subject.length).toBeGreaterThan(5)
      expect(mail.subject).toContain('Taleweave')
      for (const body of [mail.text, mail.html]) {
        expect(body).toContain('Ada')
        expect(body).toContain('45')
        expect(body).not.toMatch(/\{\{|\}\}/)
      }
      expect(mail.text).toContain(LINK)
      // Once as the button, once as the address to copy.
      expect(mail.html.split(`href="${LINK_IN_HTML}"`)).toHaveLength(3)
      expect(mail.html).toContain(`>${LINK_IN_HTML}</a>`)
    })
  })

  it('says different things for each kind', () => {
    const subjects = KINDS.map((kind) =>
      renderAccountMail(kind, 'en', { username: 'a', link: LINK, expiresInMinutes: 5 }),
    )
    expect(new Set(subjects.map((m) => m.subject)).size).toBe(3)
    expect(subjects[2]?.text).toMatch(/log in/)
  })

  it('escapes the username in HTML but not in the text', () => {
    const username = '<script>alert("x")</script>&'
    const mail = renderAccountMail('verify-email', 'en', { username, link: LINK, expiresInMinutes: 60 })
    expect(mail.html).not.toContain('<script>')
    expect(mail.html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;')
    expect(mail.text).toContain(username)
  })

  it('escapes a hostile link in HTML', () => {
    const link = 'https://taleweave.test/x?a="><img src=x onerror=alert(1)>'
    const mail = renderAccountMail('reset-password', 'en', { username: 'a', link, expiresInMinutes: 60 })
    expect(mail.html).not.toContain('<img')
    expect(mail.html).not.toContain('"><img')
    expect(mail.html).toContain('href="https://taleweave.test/x?a=&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"')
  })

  it('writes Arabic right to left with its language', () => {
    const mail = renderAccountMail('account-exists', 'ar', { username: 'ليلى', link: LINK, expiresInMinutes: 60 })
    expect(mail.html).toMatch(/<html lang="ar" dir="rtl">/)
    expect(mail.html).toContain('ليلى')
    const english = renderAccountMail('account-exists', 'en', { username: 'a', link: LINK, expiresInMinutes: 60 })
    expect(english.html).toMatch(/<html lang="en" dir="ltr">/)
    expect(
      renderAccountMail('verify-email', 'zh-tw', { username: 'a', link: LINK, expiresInMinutes: 1 }).html,
    ).toContain('lang="zh-TW"')
  })

  it('picks the plural form of the expiry', () => {
    const minutes = (n: number, locale: 'en' | 'ru' | 'ar') =>
      renderAccountMail('verify-email', locale, { username: 'a', link: LINK, expiresInMinutes: n }).text
    expect(minutes(1, 'en')).toContain('1 minute.')
    expect(minutes(30, 'en')).toContain('30 minutes.')
    expect(minutes(1, 'ru')).toContain('1 минуту')
    expect(minutes(3, 'ru')).toContain('3 минуты')
    expect(minutes(30, 'ru')).toContain('30 минут')
    expect(minutes(5, 'ar')).toContain('5 دقائق')
  })
})
