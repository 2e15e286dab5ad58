import { DEFAULT_LOCALE, isLocale } from '#contracts/locales.ts'
import { AppError } from '#server/lib/errors.ts'
import type { KeyValueStore } from '#server/lib/key-value-store.ts'
import { enforceLimit } from '#server/lib/rate-limit.ts'
import type { HumanVerification } from '#server/modules/auth/human-verification.ts'
import type { JobQueue } from '#server/modules/jobs/job-queue.ts'

const MINUTE = 60_000

/** A visitor may write five times an hour; everyone together a hundred, so a flood cannot fill the inbox. */
export const CONTACT_LIMITS = {
  perIp: { max: 5, windowMs: 60 * MINUTE },
  everyone: { max: 100, windowMs: 60 * MINUTE },
}

export type ContactMessage = {
  name: string
  email: string
  message: string
  turnstileToken: string
  locale: string | undefined
  ip: string
}

export type ContactServiceDeps = {
  kv: KeyValueStore
  jobs: Pick<JobQueue, 'enqueue'>
  humanVerification: Pick<HumanVerification, 'verify'>
  /** The operator's address (CONTACT_EMAIL, by default MAIL_FROM). */
  to: string
  publicUrl: string
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] ?? c)

/**
 * The contact form of the links page: checked for a human, limited per address and overall, and
 * mailed to the operator with the visitor's address as Reply-To. Nothing is kept once it is sent.
 */
export function createContactService(deps: ContactServiceDeps) {
  return {
    async send(input: ContactMessage): Promise<void> {
      await enforceLimit(deps.kv, `contact:ip:${input.ip}`, CONTACT_LIMITS.perIp)
      const human = await deps.humanVerification.verify(input.turnstileToken, input.ip)
      if (!human.ok) {
        throw new AppError(400, 'VERIFICATION_FAILED', `Verification failed: ${human.reason}`, { reason: human.reason })
      }
      // Only messages that passed the human check spend the shared budget: failed tries from many
      // addresses must not shut the form for everyone.
      await enforceLimit(deps.kv, 'contact:everyone', CONTACT_LIMITS.everyone)
      const locale = isLocale(input.locale) ? input.locale : DEFAULT_LOCALE
      const sentAt = new Date().toISOString()
      const facts = [
        ['Name', input.name],
        ['E-mail', input.email],
        ['Language', locale],
        ['Sent', sentAt],
      ] as const
      const text = [
        `A visitor wrote through the contact form of ${deps.publicUrl}/links.`,
        '',
        ...facts.map(([label, value]) => `${label}: ${value}`),
        '',
        input.message,
        '',
        'Reply to this e-mail to answer them.',
      ].join('\n')
      const html = [
        `<p>A visitor wrote through the contact form of ${escapeHtml(deps.publicUrl)}/links.</p>`,
        `<table>${facts.map(([label, value]) => `<tr><th align="left">${label}</th><td>${escapeHtml(value)}</td></tr>`).join('')}</table>`,
        `<p style="white-space:pre-wrap">${escapeHtml(input.message)}</p>`,
        '<p>Reply to this e-mail to answer them.</p>',
      ].join('\n')
      // Queued (ADR 017): the visitor is answered at once, and a mail server that is down only
      // delays the message, which is kept until it is sent and then deleted.
      await deps.jobs.enqueue('mail', {
        to: deps.to,
        replyTo: { name: input.name, address: input.email },
        subject: `Contact form: ${input.name}`,
        text,
        html,
      })
    },
  }
}

export type ContactService = ReturnType<typeof createContactService>
