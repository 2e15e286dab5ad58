import type { TFunction } from 'i18next'

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c)

/**
 * Every text the ALTCHA widget shows, in the page's language (its own store has English only for
 * some of our locales, and none for Malay). The footer is HTML in the widget: our words around its
 * link. Strings for the audio and image code challenges are not listed: our challenges are
 * proof-of-work only.
 */
export function altchaStrings(t: TFunction<'auth'>): Record<string, string> {
  const linkLabel = t('captcha.linkLabel', { name: 'ALTCHA' })
  const link = `<a href="https://altcha.org/" tabindex="-1" target="_blank" rel="noopener noreferrer" aria-label="${escapeHtml(linkLabel)}">ALTCHA</a>`
  return {
    label: t('captcha.label'),
    loading: t('captcha.loading'),
    verifying: t('captcha.verifying'),
    verified: t('captcha.verified'),
    error: t('captcha.error'),
    expired: t('captcha.expired'),
    waitAlert: t('captcha.waitAlert'),
    verificationRequired: t('captcha.verificationRequired'),
    ariaLinkLabel: linkLabel,
    footer: escapeHtml(t('captcha.footer', { name: '\u0000' })).replace('\u0000', link),
  }
}
