import { randomBytes } from 'node:crypto'
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import type { Transporter } from 'nodemailer'

export type MailMessage = {
  to: string
  subject: string
  text: string
  html: string
  /** Where answers go when not to the sender (the contact form: the visitor who wrote). */
  replyTo?: string | { name: string; address: string }
}

/**
 * Sends e-mail. Over SMTP when a server is configured; otherwise into an outbox folder of `.eml`
 * files, so that development and tests need no mail server and the links still reach the developer.
 */
export type Mailer = {
  readonly kind: 'smtp' | 'outbox'
  send(message: MailMessage): Promise<void>
  close(): Promise<void>
}

export type MailerOptions = {
  smtpUrl: string | undefined
  /** The sender, `Taleweave <no-reply@example.com>` or a bare address. */
  from: string
  outboxDir: string
  /** Whether the outbox's log line lists the mail's links (development: yes; production: no). */
  logLinks?: boolean
  log: (info: Record<string, unknown>, msg: string) => void
}

// A mail server that stops answering must fail the request that sends, not hang it.
const SMTP_TIMEOUT_MS = 10_000

/**
 * A transport made on the first mail (ADR 067): nodemailer holds ~5 MB of heap that a server
 * sending no mail, or none yet, does without. Later mails reuse it.
 */
function lazyTransport(make: (mailer: typeof import('nodemailer')['default']) => Transporter) {
  let made: Promise<Transporter> | undefined
  return {
    get: () => {
      made ??= import('nodemailer')
        .then((loaded) => make(loaded.default))
        .catch((error: unknown) => {
          // A failed load is tried again by the next mail.
          made = undefined
          throw error
        })
      return made
    },
    close: async () => (made ? (await made).close() : undefined),
  }
}

export function createMailer(options: MailerOptions): Mailer {
  return options.smtpUrl ? smtpMailer(options.smtpUrl, options.from) : outboxMailer(options)
}

function smtpMailer(url: string, from: string): Mailer {
  const transport = lazyTransport((nodemailer) => {
    // Settings in the URL (`?pool=false`, `?connectionTimeout=...`) win over these defaults.
    const made = nodemailer.createTransport({
      url,
      pool: true,
      maxConnections: 3,
      connectionTimeout: SMTP_TIMEOUT_MS,
      greetingTimeout: SMTP_TIMEOUT_MS,
      socketTimeout: SMTP_TIMEOUT_MS,
    })
    // Failures reach the caller through `sendMail`; an unheard 'error' event would end the process.
    made.on('error', () => {})
    return made
  })
  return {
    kind: 'smtp',
    async send(message) {
      await (await transport.get()).sendMail({ from, ...message })
    },
    close: transport.close,
  }
}

function outboxMailer({ from, outboxDir, log, logLinks = true }: MailerOptions): Mailer {
  const transport = lazyTransport((nodemailer) => nodemailer.createTransport({ streamTransport: true, buffer: true }))
  return {
    kind: 'outbox',
    async send(message) {
      const info = await (await transport.get()).sendMail({ from, ...message })
      await mkdir(outboxDir, { recursive: true })
      // ISO time first so the folder sorts by time; without colons, which some systems refuse in names.
      const name = `${new Date().toISOString().replaceAll(':', '-')}-${randomBytes(4).toString('hex')}.eml`
      const file = path.join(outboxDir, name)
      await writeFile(file, info.message as Buffer)
      log({ file, to: message.to, ...(logLinks ? { links: linksIn(message.text) } : {}) }, 'mail written to outbox')
    },
    close: transport.close,
  }
}

/**
 * True when the mail server refused the message for good (a 5xx reply such as "550 no such
 * mailbox"): sending it again cannot help. Timeouts, refused connections and 4xx replies are
 * temporary, and the mail is retried.
 */
export function isPermanentMailError(error: unknown): boolean {
  const code = (error as { responseCode?: unknown } | null)?.responseCode
  return typeof code === 'number' && code >= 500 && code < 600
}

/** What a log or a failed job keeps of a mail error: its code and the server's reply, no content. */
export function describeMailError(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const { code, responseCode, response } = error as Error & { code?: string; responseCode?: number; response?: string }
  return [code, responseCode, response ?? error.message].filter((part) => part !== undefined).join(' ')
}

/** The http(s) URLs of a plain-text body, without trailing sentence punctuation. */
function linksIn(text: string): string[] {
  return [...text.matchAll(/https?:\/\/[^\s<>"]+/g)].map((m) => m[0].replace(/[.,;:!?)\]]+$/, ''))
}
