import { readFileSync } from 'node:fs'
import path from 'node:path'
import { directionOf, LOCALE_TAGS, type Locale } from '#contracts/locales.ts'

export type AccountMailKind = 'verify-email' | 'reset-password' | 'account-exists'

export type AccountMailValues = { username: string; link: string; expiresInMinutes: number }

export type RenderedMail = { subject: string; text: string; html: string }

// The server renders these without i18next: a mail needs a handful of strings, no plural key (its one
// count, a link's lifetime, is an Intl unit: formatMailDuration) and no React, and reading the JSON
// directly keeps the sender usable from any process (workers, CLIs).
const LOCALES_DIR = path.resolve(import.meta.dirname, '../../../locales')

/** The `email` namespace keys of each mail, spelled out so the locale check sees them used. */
const KEYS: Record<AccountMailKind, { subject: string; intro: string; hint?: string; action: string }> = {
  'verify-email': {
    subject: 'verifyEmail.subject',
    intro: 'verifyEmail.intro',
    action: 'verifyEmail.action',
  },
  'reset-password': {
    subject: 'resetPassword.subject',
    intro: 'resetPassword.intro',
    action: 'resetPassword.action',
  },
  'account-exists': {
    subject: 'accountExists.subject',
    intro: 'accountExists.intro',
    hint: 'accountExists.hint',
    action: 'accountExists.action',
  },
}

const cache = new Map<Locale, Map<string, string>>()

function stringsOf(locale: Locale): Map<string, string> {
  let strings = cache.get(locale)
  if (!strings) {
    strings = flatten(JSON.parse(readFileSync(path.join(LOCALES_DIR, locale, 'email.json'), 'utf8')))
    cache.set(locale, strings)
  }
  return strings
}

function flatten(value: unknown, prefix = '', out = new Map<string, string>()): Map<string, string> {
  if (typeof value === 'string') out.set(prefix, value)
  else if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) flatten(child, prefix ? `${prefix}.${key}` : key, out)
  }
  return out
}

function lookup(locale: Locale, key: string): string {
  const value = stringsOf(locale).get(key)
  if (value === undefined) throw new Error(`locales/${locale}/email.json has no "${key}"`)
  return value
}

/**
 * How long a link lasts, in the largest whole unit and the reader's words through Intl: 30 minutes,
 * 24 hours (not 1,440 minutes), 7 days. Days only from two on: "24 hours" says more than "1 day".
 */
export function formatMailDuration(locale: Locale, minutes: number): string {
  const [value, unit] =
    minutes % 1440 === 0 && minutes > 1440
      ? [minutes / 1440, 'day']
      : minutes % 60 === 0 && minutes >= 60
        ? [minutes / 60, 'hour']
        : [minutes, 'minute']
  return new Intl.NumberFormat(LOCALE_TAGS[locale], { style: 'unit', unit, unitDisplay: 'long' }).format(value)
}

/** Replaces `{{name}}` placeholders; an unknown name is left as it is, so the mistake shows. */
function interpolate(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{\s*(\w+)\s*\}\}/g, (whole, name: string) => values[name] ?? whole)
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c)
}

export function renderAccountMail(kind: AccountMailKind, locale: Locale, values: AccountMailValues): RenderedMail {
  const keys = KEYS[kind]
  const fill = (template: string) =>
    interpolate(template, {
      username: values.username,
      link: values.link,
      duration: formatMailDuration(locale, values.expiresInMinutes),
    })
  const t = (key: string) => fill(lookup(locale, key))
  return compose(locale, {
    subject: t(keys.subject),
    greeting: t('common.greeting'),
    paragraphs: [t(keys.intro), ...(keys.hint ? [t(keys.hint)] : [])],
    action: t(keys.action),
    link: values.link,
    after: [t('common.validFor'), t('common.ignore')],
    signature: t('common.signature'),
  })
}

/** Security notices: something changed in the account (ASVS 2.2.3; docs/decisions/019-login-lifetime-and-security-mails.md). */
export type SecurityMailEvent = 'password-changed' | 'warning'

export type SecurityMailValues = {
  username: string
  /** When it happened. */
  at: Date
  /** Where to act if it was not them: a page to start from, never a link that logs in or holds a token. */
  link: string
  /** An operator's words, quoted as written after the first paragraph (a warning, ADR 055). */
  quote?: string | undefined
}

const SECURITY_KEYS: Record<SecurityMailEvent, { subject: string; paragraphs: string[]; action: string }> = {
  'password-changed': {
    subject: 'passwordChanged.subject',
    paragraphs: ['passwordChanged.intro', 'passwordChanged.ifYou', 'passwordChanged.ifNotYou'],
    action: 'passwordChanged.action',
  },
  warning: {
    subject: 'warning.subject',
    paragraphs: ['warning.intro', 'warning.consequence'],
    action: 'warning.action',
  },
}

/**
 * The moment in the reader's language and calendar. We do not know their time zone, so it is
 * written in UTC and says so in their words (`common.inUtc`): the zone is left out of Intl's
 * pattern, which puts it oddly in some locales ("下午2:05 [UTC]", "2:05 pm UTC बजे").
 */
export function formatMailDate(locale: Locale, at: Date): string {
  const time = new Intl.DateTimeFormat(LOCALE_TAGS[locale], {
    year: 'numeric',
    month: 'long',
    day: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
    timeZone: 'UTC',
  }).format(at)
  return interpolate(lookup(locale, 'common.inUtc'), { time })
}

export function renderSecurityMail(event: SecurityMailEvent, locale: Locale, values: SecurityMailValues): RenderedMail {
  const keys = SECURITY_KEYS[event]
  const t = (key: string) =>
    interpolate(lookup(locale, key), { username: values.username, date: formatMailDate(locale, values.at) })
  const [first = '', ...rest] = keys.paragraphs.map(t)
  return compose(locale, {
    subject: t(keys.subject),
    greeting: t('common.greeting'),
    paragraphs: values.quote ? [first, `“${values.quote}”`, ...rest] : [first, ...rest],
    action: t(keys.action),
    link: values.link,
    after: [],
    signature: t('common.signature'),
  })
}

type MailParts = {
  subject: string
  greeting: string
  paragraphs: string[]
  action: string
  link: string
  /** Paragraphs after the button. */
  after: string[]
  signature: string
}

/** The text and HTML bodies every account mail shares: greeting, paragraphs, one button, signature. */
function compose(locale: Locale, parts: MailParts): RenderedMail {
  const { subject, greeting, paragraphs, action, link, after, signature } = parts
  const fallback = lookup(locale, 'common.buttonFallback')
  const text = [greeting, ...paragraphs, `${action}\n${link}`, ...after, `-- \n${signature}`].join('\n\n')

  // Every text is escaped whole, the values in it included: nothing can inject markup.
  const h = escapeHtml
  const href = escapeHtml(link)
  const dir = directionOf(locale)
  const paragraph = 'margin:0 0 16px'
  const html = `<!doctype html>
<html lang="${LOCALE_TAGS[locale]}" dir="${dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${h(subject)}</title>
</head>
<body style="margin:0;padding:0;background-color:#f4f2f7">
<div dir="${dir}" style="max-width:560px;margin:0 auto;padding:32px 16px;font-family:-apple-system,'Segoe UI',Roboto,'Noto Sans',Arial,sans-serif;font-size:16px;line-height:1.6;color:#1f1b2d;text-align:${dir === 'rtl' ? 'right' : 'left'}">
<p style="margin:0 0 24px;font-size:22px;font-weight:700;color:#5b21b6">Taleweave</p>
<div style="background-color:#ffffff;border-radius:12px;padding:32px 24px">
<p style="${paragraph}">${h(greeting)}</p>
${paragraphs.map((p) => `<p style="${paragraph}">${h(p)}</p>`).join('\n')}
<p style="margin:32px 0;text-align:center"><a href="${href}" style="display:inline-block;padding:14px 28px;border-radius:8px;background-color:#6d28d9;color:#ffffff;font-weight:600;text-decoration:none">${h(action)}</a></p>
<p style="margin:0 0 24px;font-size:14px;color:#4b4660">${h(fallback)}<br><a href="${href}" style="color:#6d28d9;word-break:break-all">${href}</a></p>
${after.map((p) => `<p style="${paragraph}">${h(p)}</p>\n`).join('')}<p style="margin:0">${h(signature)}</p>
</div>
</div>
</body>
</html>
`
  return { subject, text, html }
}
