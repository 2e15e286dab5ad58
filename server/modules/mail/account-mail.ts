import { readFileSync } from 'node:fs'
import path from 'node:path'
import { directionOf, LOCALE_TAGS, type Locale } from '#contracts/locales.ts'

export type AccountMailKind = 'verify-email' | 'reset-password' | 'account-exists'

export type AccountMailValues = { username: string; link: string; expiresInMinutes: number }

export type RenderedMail = { subject: string; text: string; html: string }

// The server renders these without i18next: a mail needs a handful of strings, one plural and no
// React, and reading the JSON directly keeps the sender usable from any process (workers, CLIs).
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

/** The plural form of `key` for `count`, with i18next's suffixes (`_one`, `_few`, `_other`, ...). */
function lookupPlural(locale: Locale, key: string, count: number): string {
  const category = new Intl.PluralRules(LOCALE_TAGS[locale]).select(count)
  return stringsOf(locale).get(`${key}_${category}`) ?? lookup(locale, `${key}_other`)
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
  const placeholders = {
    username: values.username,
    link: values.link,
    minutes: new Intl.NumberFormat(LOCALE_TAGS[locale]).format(values.expiresInMinutes),
  }
  const subject = interpolate(lookup(locale, keys.subject), placeholders)
  const greeting = lookup(locale, 'common.greeting')
  const paragraphs = [lookup(locale, keys.intro), ...(keys.hint ? [lookup(locale, keys.hint)] : [])]
  const action = lookup(locale, keys.action)
  const fallback = lookup(locale, 'common.buttonFallback')
  const expiry = lookupPlural(locale, 'common.expiry', values.expiresInMinutes)
  const ignore = lookup(locale, 'common.ignore')
  const signature = lookup(locale, 'common.signature')

  const t = (template: string) => interpolate(template, placeholders)
  const text = [
    t(greeting),
    ...paragraphs.map(t),
    `${t(action)}\n${values.link}`,
    t(expiry),
    t(ignore),
    `-- \n${t(signature)}`,
  ].join('\n\n')

  // Escape the template first, then insert escaped values: neither can inject markup.
  const safe = Object.fromEntries(Object.entries(placeholders).map(([k, v]) => [k, escapeHtml(v)]))
  const h = (template: string) => interpolate(escapeHtml(template), safe)
  const href = escapeHtml(values.link)
  const dir = directionOf(locale)
  const paragraph = 'margin:0 0 16px'
  const html = `<!doctype html>
<html lang="${LOCALE_TAGS[locale]}" dir="${dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(subject)}</title>
</head>
<body style="margin:0;padding:0;background-color:#f4f2f7">
<div dir="${dir}" style="max-width:560px;margin:0 auto;padding:32px 16px;font-family:-apple-system,'Segoe UI',Roboto,'Noto Sans',Arial,sans-serif;font-size:16px;line-height:1.6;color:#1f1b2d;text-align:${dir === 'rtl' ? 'right' : 'left'}">
<p style="margin:0 0 24px;font-size:22px;font-weight:700;color:#5b21b6">Taleweave</p>
<div style="background-color:#ffffff;border-radius:12px;padding:32px 24px">
<p style="${paragraph}">${h(greeting)}</p>
${paragraphs.map((p) => `<p style="${paragraph}">${h(p)}</p>`).join('\n')}
<p style="margin:32px 0;text-align:center"><a href="${href}" style="display:inline-block;padding:14px 28px;border-radius:8px;background-color:#6d28d9;color:#ffffff;font-weight:600;text-decoration:none">${h(action)}</a></p>
<p style="margin:0 0 24px;font-size:14px;color:#4b4660">${h(fallback)}<br><a href="${href}" style="color:#6d28d9;word-break:break-all">${href}</a></p>
<p style="${paragraph}">${h(expiry)}</p>
<p style="${paragraph}">${h(ignore)}</p>
<p style="margin:0">${h(signature)}</p>
</div>
</div>
</body>
</html>
`
  return { subject, text, html }
}
