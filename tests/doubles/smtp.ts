import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'

export type ReceivedMail = { to: string[]; raw: string; subject: string; text: string; html: string }

/**
 * An SMTP server that accepts every message (or refuses every recipient with `rejectRecipients`)
 * and keeps it, decoded, for the test to read.
 */
export async function startSmtpServer(options: { rejectRecipients?: boolean } = {}) {
  const messages: ReceivedMail[] = []
  // Mails already handed out by waitForMail, so that each call returns the next one.
  const taken = new Set<ReceivedMail>()
  const waiters = new Set<() => void>()

  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    // Pooled clients keep their connection open; closing should not wait the default 30 s for them.
    closeTimeout: 100,
    onRcptTo(_address, _session, callback) {
      if (options.rejectRecipients) {
        callback(Object.assign(new Error('Mailbox unavailable'), { responseCode: 550 }))
        return
      }
      callback()
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8')
        messages.push({ ...parseMail(raw), to: session.envelope.rcptTo.map((r) => r.address.toLowerCase()), raw })
        for (const wake of waiters) wake()
        callback()
      })
    },
  })
  server.on('error', () => {})
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.server.address() as AddressInfo

  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    /** The next mail to `to` not yet returned by an earlier call, as soon as it arrives. */
    waitForMail(to: string, timeoutMs = 5_000): Promise<ReceivedMail> {
      const address = to.toLowerCase()
      const next = () => messages.find((m) => !taken.has(m) && m.to.includes(address))
      return new Promise((resolve, reject) => {
        const check = () => {
          const mail = next()
          if (!mail) return
          taken.add(mail)
          clearTimeout(timer)
          waiters.delete(check)
          resolve(mail)
        }
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(new Error(`no mail to ${to} within ${timeoutMs} ms (received ${messages.length})`))
        }, timeoutMs)
        waiters.add(check)
        check()
      })
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

export type SmtpDouble = Awaited<ReturnType<typeof startSmtpServer>>

/** The http(s) URLs of a text, in order, without trailing sentence punctuation. */
export function linksIn(text: string): string[] {
  return [...text.matchAll(/https?:\/\/[^\s<>"']+/g)].map((m) => m[0].replace(/[.,;:!?)\]]+$/, ''))
}

// A small MIME reader, enough for what nodemailer writes: headers, nested multipart bodies,
// quoted-printable and base64 parts, and RFC 2047 encoded words in headers.

type Part = { headers: Map<string, string>; body: string }

/** Subject, plain text and HTML of a raw message (CRLF or LF line ends). */
export function parseMail(raw: string): { subject: string; text: string; html: string } {
  const root = splitPart(raw.replace(/\r\n/g, '\n'))
  const found = { text: '', html: '' }
  walk(root, found)
  return { subject: decodeWords(root.headers.get('subject') ?? ''), ...found }
}

function splitPart(source: string): Part {
  const end = source.indexOf('\n\n')
  const head = end === -1 ? source : source.slice(0, end)
  const body = end === -1 ? '' : source.slice(end + 2)
  const headers = new Map<string, string>()
  // A line that starts with white space continues the header above it (folding).
  for (const line of head.replace(/\n[ \t]+/g, ' ').split('\n')) {
    const colon = line.indexOf(':')
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim())
  }
  return { headers, body }
}

function headerParam(value: string, name: string): string | undefined {
  const match = new RegExp(`;\\s*${name}\\s*=\\s*(?:"([^"]*)"|([^;\\s]+))`, 'i').exec(value)
  return match ? (match[1] ?? match[2]) : undefined
}

function walk(part: Part, found: { text: string; html: string }) {
  const type = part.headers.get('content-type') ?? 'text/plain'
  const mime = (type.split(';')[0] ?? '').trim().toLowerCase()
  if (mime.startsWith('multipart/')) {
    const boundary = headerParam(type, 'boundary')
    if (!boundary) return
    const sections = part.body.split(`--${boundary}`)
    // Drop the preamble before the first boundary and the epilogue after the closing `--`.
    for (const section of sections.slice(1)) {
      if (section.startsWith('--')) break
      walk(splitPart(section.replace(/^[ \t]*\n/, '').replace(/\n$/, '')), found)
    }
    return
  }
  const charset = headerParam(type, 'charset') ?? 'utf-8'
  const content = decodeBody(part.body, part.headers.get('content-transfer-encoding') ?? '7bit', charset)
  if (mime === 'text/plain' && !found.text) found.text = content
  else if (mime === 'text/html' && !found.html) found.html = content
}

function decodeBody(body: string, encoding: string, charset: string): string {
  switch (encoding.trim().toLowerCase()) {
    case 'base64':
      return new TextDecoder(charset).decode(Buffer.from(body.replace(/\s+/g, ''), 'base64'))
    case 'quoted-printable':
      return new TextDecoder(charset).decode(quotedPrintableBytes(body.replace(/[ \t]+$/gm, '').replace(/=\n/g, '')))
    default:
      return body
  }
}

/** `=XX` escapes to bytes; everything else is taken as UTF-8 text (it is ASCII in valid input). */
function quotedPrintableBytes(text: string): Buffer {
  const bytes: number[] = []
  for (let i = 0; i < text.length; i++) {
    const hex = text[i] === '=' ? text.slice(i + 1, i + 3) : ''
    if (/^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(Number.parseInt(hex, 16))
      i += 2
    } else bytes.push(...Buffer.from(text[i] ?? '', 'utf8'))
  }
  return Buffer.from(bytes)
}

/**
 * Decodes RFC 2047 words (`=?UTF-8?B?...?=`, `=?UTF-8?Q?...?=`). White space between two words is
 * dropped, and their bytes are joined before decoding, since a character may be split across them.
 */
function decodeWords(value: string): string {
  const word = /=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g
  let out = ''
  let last = 0
  let pending: { charset: string; bytes: Buffer[] } | null = null
  const flush = () => {
    if (pending) out += new TextDecoder(pending.charset).decode(Buffer.concat(pending.bytes))
    pending = null
  }
  for (const match of value.matchAll(word)) {
    const between = value.slice(last, match.index)
    if (!(pending && /^\s*$/.test(between))) {
      flush()
      out += between
    }
    const [, charset = 'utf-8', encoding = 'B', data = ''] = match
    const bytes =
      encoding.toUpperCase() === 'B' ? Buffer.from(data, 'base64') : quotedPrintableBytes(data.replace(/_/g, ' '))
    const current: { charset: string; bytes: Buffer[] } | null = pending
    if (current && current.charset.toLowerCase() === charset.toLowerCase()) current.bytes.push(bytes)
    else {
      flush()
      pending = { charset, bytes: [bytes] }
    }
    last = match.index + match[0].length
  }
  flush()
  return out + value.slice(last)
}
