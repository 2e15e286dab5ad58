import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig, parseTrustProxy } from '#server/config.ts'
import { buildTestApp } from '#tests/helpers/test-app.ts'

const tempDir = () => mkdtempSync(path.join(tmpdir(), 'rp-config-'))

const productionEnv = {
  NODE_ENV: 'production',
  PUBLIC_URL: 'https://taleweave.example',
  JWT_SECRET: 'p'.repeat(48),
  CRON_SECRET: 'c'.repeat(24),
  STRIPE_SECRET_KEY: 'sk_live_x',
  STRIPE_WEBHOOK_SECRET: 'whsec_x',
}

describe('TRUST_PROXY', () => {
  it('believes no proxy unless told, then hops, every hop, or listed addresses', () => {
    expect(parseTrustProxy(undefined)).toBe(false)
    expect(parseTrustProxy(' false ')).toBe(false)
    expect(parseTrustProxy('1')).toBe(1)
    expect(parseTrustProxy('true')).toBe(true)
    expect(parseTrustProxy('10.0.0.0/8, 127.0.0.1')).toEqual(['10.0.0.0/8', '127.0.0.1'])
  })

  it('makes the forwarded client address the one rate limits see, only from a trusted proxy', async () => {
    const ipOf = async (trustProxy: string | undefined) => {
      const t = await buildTestApp({
        env: trustProxy ? { TRUST_PROXY: trustProxy } : {},
        configure: (app) => {
          app.get('/test/ip', async (request) => ({ ip: request.ip }))
        },
      })
      try {
        const res = await t.app.inject({
          method: 'GET',
          url: '/test/ip',
          remoteAddress: '127.0.0.1',
          headers: { 'x-forwarded-for': '203.0.113.7' },
        })
        return res.json().ip as string
      } finally {
        await t.close()
      }
    }
    expect(await ipOf(undefined)).toBe('127.0.0.1')
    expect(await ipOf('1')).toBe('203.0.113.7')
    expect(await ipOf('127.0.0.1')).toBe('203.0.113.7')
    expect(await ipOf('10.0.0.1')).toBe('127.0.0.1')
  })
})

describe('loadConfig', () => {
  it('works in development with no variables at all', () => {
    const dataDir = tempDir()
    const config = loadConfig({ DATA_DIR: dataDir })
    expect(config.env).toBe('development')
    expect(config.port).toBe(3000)
    expect(config.host).toBe('127.0.0.1')
    expect(config.publicUrl).toBe('http://localhost:3000')
    expect(config.databaseUrl).toBeUndefined()
    // No model server configured: the embedded model (ADR 036).
    expect(config.llm.baseUrl).toBe('embedded://local/v1')
    expect(config.llm.embedded).toMatchObject({ contextTokens: 4096, parallel: 2, gpu: 'auto' })
    expect(config.captcha.provider).toBe('altcha')
    expect(config.paymentsSandbox).toBe(true)
  })

  it('runs chat on the embedded model only when neither LLM_BASE_URL nor MODELS_FILE is set (ADR 036)', () => {
    const dataDir = tempDir()
    const embedded = loadConfig({ DATA_DIR: dataDir, EMBEDDED_MODEL: '/models/m.gguf', EMBEDDED_PARALLEL: '3' })
    expect(embedded.llm.embedded).toMatchObject({ source: '/models/m.gguf', parallel: 3, contextTokens: 4096 })
    expect(embedded.llm.embedded?.threads).toBeGreaterThanOrEqual(1)
    // An explicit model server keeps working exactly as before; the EMBEDDED_* variables are ignored.
    const server = loadConfig({ DATA_DIR: dataDir, LLM_BASE_URL: 'http://127.0.0.1:11434/v1' })
    expect(server.llm.baseUrl).toBe('http://127.0.0.1:11434/v1')
    expect(server.llm.embedded).toBeUndefined()
    expect(loadConfig({ DATA_DIR: dataDir, MODELS_FILE: 'config/models.example.json' }).llm.embedded).toBeUndefined()
    // Bad values name the variable; a missing template file stops the start.
    expect(() => loadConfig({ DATA_DIR: dataDir, EMBEDDED_PARALLEL: '0' })).toThrow(/EMBEDDED_PARALLEL/)
    expect(() => loadConfig({ DATA_DIR: dataDir, EMBEDDED_GPU: 'cuda' })).toThrow(/EMBEDDED_GPU/)
    expect(() => loadConfig({ DATA_DIR: dataDir, EMBEDDED_CHAT_TEMPLATE: '/nowhere/t.jinja' })).toThrow(
      /EMBEDDED_CHAT_TEMPLATE: file not found/,
    )
    // EMBEDDED_MODEL must name a .gguf file: node-llama-cpp's hf:<owner>/<repo>:<quant> form names none.
    expect(() => loadConfig({ DATA_DIR: dataDir, EMBEDDED_MODEL: 'hf:someone/Some-GGUF:Q4_K_M' })).toThrow(ConfigError)
    expect(() => loadConfig({ DATA_DIR: dataDir, EMBEDDED_MODEL: 'ftp://x/y.gguf' })).toThrow(/EMBEDDED_MODEL/)
  })

  it('generates a JWT secret once outside production and keeps it in DATA_DIR', () => {
    const dataDir = tempDir()
    const first = loadConfig({ DATA_DIR: dataDir }).jwtSecret
    expect(first.length).toBeGreaterThanOrEqual(32)
    expect(readFileSync(path.join(dataDir, 'jwt-secret'), 'utf8').trim()).toBe(first)
    expect(loadConfig({ DATA_DIR: dataDir }).jwtSecret).toBe(first)
  })

  it('keeps the staff TOTP key: generated into DATA_DIR outside production, from JWT_SECRET in production unless set (ADR 054)', () => {
    const dataDir = tempDir()
    const first = loadConfig({ DATA_DIR: dataDir }).staffTotpKey
    expect(first.length).toBeGreaterThanOrEqual(32)
    expect(readFileSync(path.join(dataDir, 'staff-totp-key'), 'utf8').trim()).toBe(first)
    expect(loadConfig({ DATA_DIR: dataDir }).staffTotpKey).toBe(first)
    const production = loadConfig({ ...productionEnv, DATA_DIR: tempDir() }).staffTotpKey
    expect(production).toContain(productionEnv.JWT_SECRET)
    expect(production).not.toBe(productionEnv.JWT_SECRET)
    const set = 'k'.repeat(40)
    expect(loadConfig({ ...productionEnv, STAFF_TOTP_KEY: set, DATA_DIR: tempDir() }).staffTotpKey).toBe(set)
    expect(() => loadConfig({ STAFF_TOTP_KEY: 'short', DATA_DIR: tempDir() })).toThrow(/STAFF_TOTP_KEY/)
  })

  it('accepts a complete production configuration', () => {
    const config = loadConfig({ ...productionEnv, DATA_DIR: tempDir() })
    expect(config.isProduction).toBe(true)
    expect(config.host).toBe('0.0.0.0')
    expect(config.paymentsSandbox).toBe(false)
    expect(config.jwtSecret).toBe(productionEnv.JWT_SECRET)
  })

  it('refuses to start in production with a missing secret, naming every problem', () => {
    const { JWT_SECRET: _j, CRON_SECRET: _c, ...rest } = productionEnv
    try {
      loadConfig({ ...rest, DATA_DIR: tempDir() })
      expect.unreachable()
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError)
      const problems = (error as ConfigError).problems.join('\n')
      expect(problems).toContain('JWT_SECRET')
      expect(problems).toContain('CRON_SECRET')
    }
  })

  it('refuses the payment sandbox in production', () => {
    expect(() => loadConfig({ ...productionEnv, PAYMENTS_SANDBOX: 'true', DATA_DIR: tempDir() })).toThrow(
      /PAYMENTS_SANDBOX/,
    )
    const { STRIPE_SECRET_KEY: _s, STRIPE_WEBHOOK_SECRET: _w, ...noKeys } = productionEnv
    // Production never falls back to the sandbox, even without payment keys.
    expect(loadConfig({ ...noKeys, DATA_DIR: tempDir() }).paymentsSandbox).toBe(false)
  })

  it('refuses plain http to outside services in production, and allows it to this machine or a private network', () => {
    const problems = (extra: Record<string, string>) => {
      try {
        loadConfig({ ...productionEnv, ...extra, DATA_DIR: tempDir() })
        return ''
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError)
        return (error as Error).message
      }
    }
    const message = problems({
      LLM_BASE_URL: 'http://api.provider.example/v1',
      STRIPE_API_URL: 'http://stripe.example',
      GOOGLE_ISSUER: 'http://8.8.8.8',
      PUBLIC_URL: 'http://taleweave.example',
    })
    for (const name of ['LLM_BASE_URL', 'STRIPE_API_URL', 'GOOGLE_ISSUER', 'PUBLIC_URL']) {
      expect(message).toMatch(new RegExp(`${name}: must be an https:// URL in production`))
    }
    for (const url of [
      'http://127.0.0.1:11434/v1',
      'http://localhost:11434/v1',
      'http://[::1]:8080/v1',
      'http://10.0.3.7:8000/v1',
      'http://192.168.1.20/v1',
      'http://172.20.0.5/v1',
      'http://ollama:11434/v1',
      'https://api.provider.example/v1',
    ]) {
      expect(problems({ LLM_BASE_URL: url }), url).toBe('')
    }
    // Outside production (development, the test doubles) plain http is fine.
    expect(loadConfig({ LLM_BASE_URL: 'http://api.provider.example/v1', DATA_DIR: tempDir() }).llm.requireTls).toBe(
      false,
    )
  })

  it('rejects malformed values with the variable named', () => {
    expect(() => loadConfig({ PORT: 'eighty', DATA_DIR: tempDir() })).toThrow(/PORT/)
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x', DATA_DIR: tempDir() })).toThrow(/DATABASE_URL/)
    expect(() => loadConfig({ JWT_SECRET: 'short', DATA_DIR: tempDir() })).toThrow(/JWT_SECRET/)
    expect(() => loadConfig({ CAPTCHA_PROVIDER: 'recaptcha', DATA_DIR: tempDir() })).toThrow(/CAPTCHA_PROVIDER/)
  })

  it('keeps /metrics and /api/docs to operators in production unless configured (ADR 026)', () => {
    const production = loadConfig({ ...productionEnv, DATA_DIR: tempDir() })
    expect(production.metrics).toEqual({ token: undefined, open: false })
    expect(production.apiDocs).toBe(false)
    const development = loadConfig({ DATA_DIR: tempDir() })
    expect(development.metrics).toEqual({ token: undefined, open: true })
    expect(development.apiDocs).toBe(true)
    const configured = loadConfig({
      ...productionEnv,
      METRICS_TOKEN: 'm'.repeat(40),
      API_DOCS: 'true',
      DATA_DIR: tempDir(),
    })
    expect(configured.metrics).toEqual({ token: 'm'.repeat(40), open: false })
    expect(configured.apiDocs).toBe(true)
    // A token set outside production closes the door there too.
    expect(loadConfig({ METRICS_TOKEN: 'm'.repeat(40), DATA_DIR: tempDir() }).metrics.open).toBe(false)
    expect(loadConfig({ API_DOCS: 'false', DATA_DIR: tempDir() }).apiDocs).toBe(false)
    expect(() => loadConfig({ METRICS_TOKEN: 'short', DATA_DIR: tempDir() })).toThrow(/METRICS_TOKEN/)
  })

  it('requires the variables that only work together', () => {
    expect(() => loadConfig({ STRIPE_SECRET_KEY: 'sk_test_x', DATA_DIR: tempDir() })).toThrow(/STRIPE_WEBHOOK_SECRET/)
    expect(() => loadConfig({ BTCPAY_URL: 'https://pay.example', DATA_DIR: tempDir() })).toThrow(/BTCPAY_API_KEY/)
    expect(() => loadConfig({ GOOGLE_CLIENT_ID: 'id', DATA_DIR: tempDir() })).toThrow(/GOOGLE_CLIENT_SECRET/)
    expect(() => loadConfig({ CAPTCHA_PROVIDER: 'turnstile', DATA_DIR: tempDir() })).toThrow(/TURNSTILE_SECRET_KEY/)
  })

  it('treats empty variables as unset, as a copied .env.example leaves them', () => {
    const config = loadConfig({
      DATABASE_URL: '',
      REDIS_URL: '',
      SMTP_URL: '',
      PORT: '',
      NODE_ENV: '',
      LLM_MODEL: ' ',
      CAPTCHA_PROVIDER: '',
      DATA_DIR: tempDir(),
    })
    expect(config.port).toBe(3000)
    expect(config.env).toBe('development')
    expect(config.llm.model).toBe('llama3.2')
    expect(config.captcha.provider).toBe('altcha')
    expect(config.databaseUrl).toBeUndefined()
    expect(config.redisUrl).toBeUndefined()
    expect(config.mail.smtpUrl).toBeUndefined()
  })
})
