import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { LOCALES, type Locale } from '#contracts/locales.ts'
import {
  type AccountMailKind,
  formatMailDate,
  formatMailDuration,
  renderAccountMail,
  renderSecurityMail,
} from '#server/modules/mail/account-mail.ts'

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

  it('says how long the link lasts in the largest whole unit, in the reader’s words', () => {
    const expiry = (n: number, locale: Locale) =>
      renderAccountMail('verify-email', locale, { username: 'a', link: LINK, expiresInMinutes: n }).text
    expect(expiry(1, 'en')).toContain('valid for 1 minute.')
    expect(expiry(30, 'en')).toContain('valid for 30 minutes.')
    expect(expiry(1440, 'en')).toContain('valid for 24 hours.')
    expect(expiry(1440, 'en')).not.toContain('1,440')
    expect(expiry(90, 'en')).toContain('valid for 90 minutes.')
    expect(expiry(7 * 1440, 'en')).toContain('valid for 7 days.')
    expect(expiry(1440, 'de')).toContain('24 Stunden lang gültig')
    // Intl names the unit in the nominative: the sentences are built for it ("Срок действия — 1 минута").
    expect(expiry(1, 'ru')).toContain('Срок действия ссылки — 1 минута.')
    expect(expiry(1440, 'ru')).toContain('24 часа')
    expect(expiry(1, 'pl')).toContain('Czas ważności linku: 1 minuta.')
    expect(expiry(1440, 'ja')).toContain('24 時間')
    expect(expiry(1440, 'zh-cn')).toContain('在24小时内有效')
    expect(formatMailDuration('ar', 60)).toBe(
      new Intl.NumberFormat('ar', { style: 'unit', unit: 'hour', unitDisplay: 'long' }).format(1),
    )
  })

  describe('the "password changed" notice', () => {
    const AT = new Date('2026-11-22T13:05:00Z')
    const FORGOT = 'https://taleweave.test/fr/forgot-password'
    const strings = (locale: Locale) =>
      JSON.parse(readFileSync(new URL(`../../../locales/${locale}/email.json`, import.meta.url), 'utf8')) as {
        common: Record<string, string>
        passwordChanged: Record<string, string>
      }

    it.each(LOCALES)('in %s: subject, username, when, what to do, and one place to go', (locale) => {
      const mail = renderSecurityMail('password-changed', locale, { username: 'Ada', at: AT, link: FORGOT })
      const own = strings(locale)
      expect(mail.subject).toBe(own.passwordChanged.subject)
      expect(mail.subject).toContain('Taleweave')
      const when = formatMailDate(locale, AT)
      for (const body of [mail.text, mail.html]) {
        expect(body).toContain('Ada')
        expect(body).toContain(when)
        expect(body).not.toMatch(/\{\{|\}\}/)
      }
      for (const key of ['ifYou', 'ifNotYou', 'action']) expect(mail.text).toContain(own.passwordChanged[key])
      // Not a link mail: no expiry, and no "ignore this if you did not ask" (they should act).
      expect(mail.text).not.toContain(own.common.ignore)
      expect(mail.text).not.toContain(own.common.validFor?.split('{{')[0] ?? '@@')
      // The only address is the forgot-password page, once as the button and once to copy.
      expect(mail.text.match(/https?:\/\/\S+/g)).toEqual([FORGOT])
      expect(mail.html.split(`href="${FORGOT}"`)).toHaveLength(3)
      expect(`${mail.text}${mail.html}`).not.toMatch(/token/i)
    })

    it.each(LOCALES)("in %s: an operator's warning, in the reader's language, quoting the note (ADR 055)", (locale) => {
      const note = 'Your character <Kaz> breaks rule 3'
      const mine = 'https://taleweave.test/characters/mine'
      const mail = renderSecurityMail('warning', locale, { username: 'Ada', at: AT, link: mine, quote: note })
      const own = JSON.parse(readFileSync(`locales/${locale}/email.json`, 'utf8')) as {
        warning: Record<string, string>
      }
      expect(mail.subject).toBe(own.warning.subject)
      expect(mail.text).toContain(note)
      expect(mail.text).toContain(formatMailDate(locale, AT))
      expect(mail.text).toContain(own.warning.consequence)
      expect(mail.text).not.toMatch(/\{\{|\}\}/)
      expect(mail.html).toContain('Your character &lt;Kaz&gt; breaks rule 3')
      expect(mail.text.match(/https?:\/\/\S+/g)).toEqual([mine])
    })

    it('writes the moment in the reader’s language and calendar, in UTC, and says so', () => {
      const when = (locale: Locale) => formatMailDate(locale, AT)
      expect(when('en')).toBe('November 22, 2026 at 1:05 PM (UTC)')
      expect(when('de')).toBe('22. November 2026 um 13:05 Uhr (UTC)')
      expect(when('ja')).toBe('2026年11月22日 13:05（UTC）')
      // Intl's own zone placement read oddly here: "下午1:05 [UTC]", "1:05 pm UTC बजे".
      expect(when('zh-tw')).toBe('2026年11月22日 下午1:05（UTC）')
      expect(when('hi')).toBe('UTC समय के अनुसार 22 नवंबर 2026 को 1:05 pm बजे')
      expect(when('ar')).toContain('نوفمبر')
      // Thai dates count Buddhist Era years.
      expect(when('th')).toContain('2569')
      const text = renderSecurityMail('password-changed', 'ru', { username: 'a', at: AT, link: FORGOT }).text
      expect(text).toContain('22 ноября 2026 г. в 13:05 по UTC')
    })

    it('escapes the username in HTML and writes Arabic right to left', () => {
      const username = '<img src=x onerror=alert(1)>'
      const mail = renderSecurityMail('password-changed', 'ar', { username, at: AT, link: FORGOT })
      expect(mail.html).not.toContain('<img')
      expect(mail.html).toContain('&lt;img src=x onerror=alert(1)&gt;')
      expect(mail.html).toMatch(/<html lang="ar" dir="rtl">/)
      expect(mail.text).toContain(username)
    })
  })
})
