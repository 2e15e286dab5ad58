import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import path from 'node:path'
import { z } from 'zod'
import { CHAT_STREAM_KEEPALIVE_MS } from '#contracts/api.ts'
import { isLocale, type Locale } from '#contracts/locales.ts'
import { isPlainHttpToPublicHost } from '#server/lib/outside-urls.ts'
import {
  DEFAULT_EMBEDDED_MODEL,
  ModelSourceError,
  parseModelSource,
} from '#server/modules/models/embedded/model-source.ts'

/** The embedded model's in-process endpoint (ADR 036, server/modules/models/model-fetch.ts). */
export const EMBEDDED_BASE_URL = 'embedded://local/v1'

/**
 * The configuration contract of DESIGN.md, parsed once at boot. Every variable is documented
 * in `.env.example` and `docs/configuration.md`; keep the three in step.
 */
const optionalString = z
  .string()
  .trim()
  .transform((v) => (v === '' ? undefined : v))
  .optional()
const optionalUrl = optionalString.pipe(z.url().optional())
const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .optional()
  .transform((v) => (v === undefined || v === '' ? undefined : ['true', '1', 'yes'].includes(v)))

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).optional(),
  PORT: z.coerce.number().int().min(0).max(65_535).default(3000),
  HOST: optionalString,
  PUBLIC_URL: optionalUrl,
  DATA_DIR: z.string().trim().min(1).default('./data'),
  BLOG_DIR: z.string().trim().min(1).default('./content/blog'),
  DATABASE_URL: optionalString.pipe(
    z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
      .optional(),
  ),
  // Behind a reverse proxy: which proxy's X-Forwarded-For to believe (see parseTrustProxy).
  TRUST_PROXY: optionalString,
  REDIS_URL: optionalString.pipe(
    z
      .string()
      .regex(/^rediss?:\/\//, 'must be a redis:// URL')
      .optional(),
  ),
  JWT_SECRET: optionalString.pipe(z.string().min(32, 'must be at least 32 characters').optional()),
  // Encrypts staff members' TOTP secrets at rest (ADR 054).
  STAFF_TOTP_KEY: optionalString.pipe(z.string().min(32, 'must be at least 32 characters').optional()),
  // Unset together with MODELS_FILE: chat runs on the embedded model (EMBEDDED_*, ADR 036).
  LLM_BASE_URL: optionalString.pipe(z.url().optional()),
  LLM_API_KEY: optionalString,
  LLM_MODEL: z.string().trim().min(1).default('llama3.2'),
  MODELS_FILE: optionalString,
  // The embedded model (ADR 036): a local .gguf path or an hf: URI; its context per chat, the
  // chats it writes at once, a Jinja chat template replacing the file's own, and the GPU's use.
  EMBEDDED_MODEL: optionalString,
  EMBEDDED_CONTEXT: z.coerce.number().int().min(256).max(1_048_576).default(4096),
  EMBEDDED_PARALLEL: z.coerce.number().int().min(1).max(16).default(2),
  EMBEDDED_CHAT_TEMPLATE: optionalString,
  EMBEDDED_GPU: z.enum(['auto', 'off']).default('auto'),
  // CPU threads generating; default: all cores but one, which stays for the web server.
  EMBEDDED_THREADS: z.coerce.number().int().min(1).max(256).optional(),
  // The model memory summaries run on: an id of MODELS_FILE (or LLM_MODEL) (ADR 034).
  SUMMARY_MODEL: optionalString,
  // Machine translation of character texts (ADR 040): the model (an id, like SUMMARY_MODEL), the
  // source characters translated per UTC day (0: off), translations at once per instance, and the
  // locales translated ahead of any visit.
  TRANSLATE_MODEL: optionalString,
  TRANSLATE_DAILY_CHARACTERS: z.coerce.number().int().min(0).max(1_000_000_000).default(2_000_000),
  TRANSLATE_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(1),
  TRANSLATE_AHEAD_LOCALES: optionalString,
  // Streaming limits (ADR 031): the first token (queueing included), the pause between tokens,
  // and a generous cap on the whole call as a safety net.
  LLM_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(300_000),
  LLM_FIRST_TOKEN_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(120_000),
  LLM_IDLE_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  // How often an open reply stream gets a keep-alive comment; at most the browser's wait (ADR 032).
  CHAT_STREAM_KEEPALIVE_MS: z.coerce
    .number()
    .int()
    .min(50)
    .max(CHAT_STREAM_KEEPALIVE_MS)
    .default(CHAT_STREAM_KEEPALIVE_MS),
  // How often every model endpoint is checked (GET /models); 0: never (ADR 031).
  LLM_HEALTH_INTERVAL_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
  SMTP_URL: optionalString.pipe(
    z
      .string()
      .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
      .optional(),
  ),
  MAIL_FROM: z.string().trim().min(3).default('Role Play <no-reply@localhost>'),
  CONTACT_EMAIL: optionalString.pipe(z.string().includes('@', { message: 'must be an e-mail address' }).optional()),
  CAPTCHA_PROVIDER: z.enum(['altcha', 'turnstile']).default('altcha'),
  TURNSTILE_SITE_KEY: optionalString,
  TURNSTILE_SECRET_KEY: optionalString,
  TURNSTILE_VERIFY_URL: z.url().default('https://challenges.cloudflare.com/turnstile/v0/siteverify'),
  GOOGLE_CLIENT_ID: optionalString,
  GOOGLE_CLIENT_SECRET: optionalString,
  GOOGLE_ISSUER: z.url().default('https://accounts.google.com'),
  STRIPE_SECRET_KEY: optionalString,
  STRIPE_WEBHOOK_SECRET: optionalString,
  STRIPE_API_URL: optionalUrl,
  BTCPAY_URL: optionalUrl,
  BTCPAY_API_KEY: optionalString,
  BTCPAY_STORE_ID: optionalString,
  BTCPAY_WEBHOOK_SECRET: optionalString,
  PAYMENTS_SANDBOX: booleanFlag,
  CRON_SECRET: optionalString.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
  METRICS_TOKEN: optionalString.pipe(z.string().min(32, 'must be at least 32 characters').optional()),
  API_DOCS: booleanFlag,
})

type Env = z.infer<typeof envSchema>

export type Config = Readonly<{
  env: Env['NODE_ENV']
  isProduction: boolean
  logLevel: NonNullable<Env['LOG_LEVEL']>
  port: number
  host: string
  publicUrl: string
  dataDir: string
  /** The blog's articles: one folder per article with `<locale>.md` files and images. */
  blogDir: string
  databaseUrl: string | undefined
  redisUrl: string | undefined
  /** Fastify's `trustProxy`: which reverse proxies' X-Forwarded-For headers to believe. */
  trustProxy: boolean | number | string[]
  jwtSecret: string
  /** The key staff TOTP secrets are encrypted under (ADR 054). */
  staffTotpKey: string
  llm: {
    /** LLM_BASE_URL; with the embedded model, its in-process endpoint (`embedded://local/v1`). */
    baseUrl: string
    /**
     * The embedded model (ADR 036), when neither LLM_BASE_URL nor MODELS_FILE is set: its source
     * (EMBEDDED_MODEL, a .gguf path or an `hf:` URI), context per sequence, sequences, template, GPU.
     */
    embedded:
      | {
          source: string
          contextTokens: number
          parallel: number
          chatTemplateFile: string | undefined
          gpu: 'auto' | 'off'
          threads: number
        }
      | undefined
    apiKey: string | undefined
    model: string
    modelsFile: string | undefined
    /** The model id memory summaries run on (SUMMARY_MODEL); absent: the first free model. */
    summaryModel: string | undefined
    /** Cap on one model call, first byte to last chunk: a safety net (ADR 031). */
    timeoutMs: number
    /** Streaming: the longest wait for the first token, a queued request's wait included. */
    firstTokenTimeoutMs: number
    /** Streaming: the longest pause between two tokens. */
    idleTimeoutMs: number
    /** How often the model endpoints are checked; 0: never. */
    healthIntervalMs: number
    /** How often an open reply stream gets a keep-alive comment (CHAT_STREAM_KEEPALIVE_MS, ADR 032). */
    streamKeepAliveMs: number
    /** Production: MODELS_FILE endpoints on the internet must be https:// (ASVS 9.2.1). */
    requireTls: boolean
  }
  /** Machine translation of character texts (ADR 040). */
  translate: {
    /** TRANSLATE_MODEL: a model id; absent: the model summaries run on. */
    model: string | undefined
    /** Source characters translated per UTC day, all instances together; 0: machine translation off. */
    dailyCharacters: number
    /** Translations one instance runs at the same time. */
    concurrency: number
    /** Locales every public character is translated into ahead of any visit. */
    aheadLocales: Locale[]
  }
  mail: {
    smtpUrl: string | undefined
    from: string
    /** Where the contact form of the links page is mailed: CONTACT_EMAIL, else MAIL_FROM. */
    contactTo: string
  }
  captcha: {
    provider: 'altcha' | 'turnstile'
    turnstileSiteKey: string | undefined
    turnstileSecretKey: string | undefined
    turnstileVerifyUrl: string
  }
  google: { clientId: string | undefined; clientSecret: string | undefined; issuer: string }
  stripe: { secretKey: string | undefined; webhookSecret: string | undefined; apiUrl: string | undefined }
  btcpay: {
    url: string | undefined
    apiKey: string | undefined
    storeId: string | undefined
    webhookSecret: string | undefined
  }
  paymentsSandbox: boolean
  cronSecret: string | undefined
  /**
   * `/metrics` (ADR 026): with a token, only for `Authorization: Bearer <token>`; without one,
   * open outside production and not served in production.
   */
  metrics: { token: string | undefined; open: boolean }
  /** Serve the Swagger UI and the OpenAPI document at `/api/docs` (API_DOCS; off in production). */
  apiDocs: boolean
}>

export class ConfigError extends Error {
  readonly problems: string[]
  constructor(problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`)
    this.name = 'ConfigError'
    this.problems = problems
  }
}

/** Parses and checks the environment. Throws `ConfigError` listing every problem at once. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable (as a copied .env.example leaves it) means "not set": the default applies.
  const present = Object.fromEntries(Object.entries(source).filter(([, value]) => value?.trim()))
  const parsed = envSchema.safeParse(present)
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`))
  }
  const env = parsed.data
  const isProduction = env.NODE_ENV === 'production'
  const problems: string[] = []
  const together = (names: (keyof Env)[], why: string) => {
    const set = names.filter((n) => env[n] !== undefined)
    if (set.length > 0 && set.length < names.length) {
      problems.push(
        `${names.filter((n) => env[n] === undefined).join(', ')}: required when ${set.join(', ')} is set (${why})`,
      )
    }
  }
  together(['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET'], 'card payments')
  together(['BTCPAY_URL', 'BTCPAY_API_KEY', 'BTCPAY_STORE_ID', 'BTCPAY_WEBHOOK_SECRET'], 'crypto payments')
  together(['GOOGLE_CLIENT_ID', 'GOOGLE_CLIENT_SECRET'], 'Google sign-in')
  if (env.CAPTCHA_PROVIDER === 'turnstile' && (!env.TURNSTILE_SITE_KEY || !env.TURNSTILE_SECRET_KEY)) {
    problems.push('TURNSTILE_SITE_KEY, TURNSTILE_SECRET_KEY: required when CAPTCHA_PROVIDER=turnstile')
  }

  const paymentKeysSet = env.STRIPE_SECRET_KEY !== undefined || env.BTCPAY_API_KEY !== undefined
  const paymentsSandbox = env.PAYMENTS_SANDBOX ?? (!isProduction && !paymentKeysSet)

  if (isProduction) {
    if (!env.JWT_SECRET) problems.push('JWT_SECRET: required in production')
    if (!env.CRON_SECRET) problems.push('CRON_SECRET: required in production')
    if (!env.PUBLIC_URL) problems.push('PUBLIC_URL: required in production')
    if (paymentsSandbox) problems.push('PAYMENTS_SANDBOX: must be off in production')
    // Keys and tokens travel to these: never in clear text across the internet (ASVS 9.2.1).
    for (const name of [
      'PUBLIC_URL',
      'LLM_BASE_URL',
      'STRIPE_API_URL',
      'BTCPAY_URL',
      'GOOGLE_ISSUER',
      'TURNSTILE_VERIFY_URL',
    ] as const) {
      const value = env[name]
      if (value && isPlainHttpToPublicHost(value)) {
        problems.push(
          `${name}: must be an https:// URL in production (plain http only to this machine or a private network)`,
        )
      }
    }
  }
  const embedded = env.LLM_BASE_URL === undefined && env.MODELS_FILE === undefined
  const chatTemplateFile = env.EMBEDDED_CHAT_TEMPLATE ? path.resolve(env.EMBEDDED_CHAT_TEMPLATE) : undefined
  if (chatTemplateFile && !existsSync(chatTemplateFile)) {
    problems.push(`EMBEDDED_CHAT_TEMPLATE: file not found (${chatTemplateFile})`)
  }
  if (embedded && env.EMBEDDED_MODEL) {
    // A source that names no .gguf file (or no known scheme) stops the start, with the reason.
    try {
      parseModelSource(env.EMBEDDED_MODEL)
    } catch (error) {
      if (!(error instanceof ModelSourceError)) throw error
      problems.push(error.message)
    }
  }
  const aheadLocales = localeList(env.TRANSLATE_AHEAD_LOCALES, 'TRANSLATE_AHEAD_LOCALES', problems)
  if (problems.length > 0) throw new ConfigError(problems)

  const dataDir = path.resolve(env.DATA_DIR)
  const host = env.HOST ?? (isProduction ? '0.0.0.0' : '127.0.0.1')
  return Object.freeze({
    env: env.NODE_ENV,
    isProduction,
    logLevel: env.LOG_LEVEL ?? (env.NODE_ENV === 'test' ? 'silent' : 'info'),
    port: env.PORT,
    host,
    publicUrl: (env.PUBLIC_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, ''),
    dataDir,
    blogDir: path.resolve(env.BLOG_DIR),
    databaseUrl: env.DATABASE_URL,
    redisUrl: env.REDIS_URL,
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    jwtSecret: env.JWT_SECRET ?? localSecret(dataDir, 'jwt-secret'),
    // Unset: DATA_DIR/staff-totp-key outside production; in production, derived from JWT_SECRET
    // (a distinct key through HKDF), so a deployment that sets only the required secrets starts.
    staffTotpKey:
      env.STAFF_TOTP_KEY ??
      (isProduction ? `derived-from-jwt-secret:${env.JWT_SECRET ?? ''}` : localSecret(dataDir, 'staff-totp-key')),
    llm: {
      baseUrl: env.LLM_BASE_URL ?? EMBEDDED_BASE_URL,
      embedded: embedded
        ? {
            source: env.EMBEDDED_MODEL ?? DEFAULT_EMBEDDED_MODEL,
            contextTokens: env.EMBEDDED_CONTEXT,
            parallel: env.EMBEDDED_PARALLEL,
            chatTemplateFile,
            gpu: env.EMBEDDED_GPU,
            threads: env.EMBEDDED_THREADS ?? Math.max(1, availableParallelism() - 1),
          }
        : undefined,
      apiKey: env.LLM_API_KEY,
      model: env.LLM_MODEL,
      modelsFile: env.MODELS_FILE,
      summaryModel: env.SUMMARY_MODEL,
      timeoutMs: env.LLM_TIMEOUT_MS,
      firstTokenTimeoutMs: env.LLM_FIRST_TOKEN_TIMEOUT_MS,
      idleTimeoutMs: env.LLM_IDLE_TIMEOUT_MS,
      healthIntervalMs: env.LLM_HEALTH_INTERVAL_MS,
      streamKeepAliveMs: env.CHAT_STREAM_KEEPALIVE_MS,
      requireTls: isProduction,
    },
    translate: {
      model: env.TRANSLATE_MODEL,
      dailyCharacters: env.TRANSLATE_DAILY_CHARACTERS,
      concurrency: env.TRANSLATE_CONCURRENCY,
      aheadLocales,
    },
    mail: { smtpUrl: env.SMTP_URL, from: env.MAIL_FROM, contactTo: env.CONTACT_EMAIL ?? env.MAIL_FROM },
    captcha: {
      provider: env.CAPTCHA_PROVIDER,
      turnstileSiteKey: env.TURNSTILE_SITE_KEY,
      turnstileSecretKey: env.TURNSTILE_SECRET_KEY,
      turnstileVerifyUrl: env.TURNSTILE_VERIFY_URL,
    },
    google: { clientId: env.GOOGLE_CLIENT_ID, clientSecret: env.GOOGLE_CLIENT_SECRET, issuer: env.GOOGLE_ISSUER },
    stripe: { secretKey: env.STRIPE_SECRET_KEY, webhookSecret: env.STRIPE_WEBHOOK_SECRET, apiUrl: env.STRIPE_API_URL },
    btcpay: {
      url: env.BTCPAY_URL,
      apiKey: env.BTCPAY_API_KEY,
      storeId: env.BTCPAY_STORE_ID,
      webhookSecret: env.BTCPAY_WEBHOOK_SECRET,
    },
    paymentsSandbox,
    cronSecret: env.CRON_SECRET,
    metrics: { token: env.METRICS_TOKEN, open: !isProduction && env.METRICS_TOKEN === undefined },
    apiDocs: env.API_DOCS ?? !isProduction,
  })
}

/**
 * Outside production a missing secret is generated once and kept in DATA_DIR, so tokens survive
 * restarts without any setup. Production never reaches this (it refuses to start instead).
 */
function localSecret(dataDir: string, name: string): string {
  const file = path.join(dataDir, name)
  try {
    const existing = readFileSync(file, 'utf8').trim()
    if (existing.length >= 32) return existing
  } catch {
    // not created yet
  }
  mkdirSync(dataDir, { recursive: true })
  const secret = randomBytes(48).toString('base64url')
  writeFileSync(file, `${secret}\n`, { mode: 0o600 })
  return secret
}

/** A comma-separated list of locales (`ja, zh-cn`): each must be one of LOCALES; repeats dropped. */
function localeList(value: string | undefined, name: string, problems: string[]): Locale[] {
  const listed = (value ?? '')
    .split(',')
    .map((part) => part.trim().toLowerCase())
    .filter(Boolean)
  const unknown = listed.filter((code) => !isLocale(code))
  if (unknown.length > 0) problems.push(`${name}: not a locale of the site: ${unknown.join(', ')}`)
  return [...new Set(listed.filter(isLocale))]
}

/**
 * `TRUST_PROXY`: unset or `false` (the default) believes no proxy, so clients cannot fake their
 * address; `true` believes every hop (only when nothing reaches the app but the proxy); a number believes that many proxy hops; anything else is a comma-separated list of
 * proxy addresses or CIDR ranges (`10.0.0.0/8,127.0.0.1`). Per-address rate limits use the result.
 */
export function parseTrustProxy(value: string | undefined): boolean | number | string[] {
  const text = value?.trim()
  if (!text || text === 'false') return false
  if (text === 'true') return true
  if (/^\d+$/.test(text)) return Number(text)
  return text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
}
