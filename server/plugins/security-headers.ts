import { randomBytes } from 'node:crypto'
import helmet from '@fastify/helmet'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'

declare module 'fastify' {
  interface FastifyRequest {
    /** Per-request CSP nonce; SSR stamps it on every inline and module script it emits. */
    cspNonce: string
  }
  interface FastifyInstance {
    /** The page policy for a page from the render cache: its inline scripts by hash, no nonce (ADR 062). */
    hashedPagePolicy(scriptHashes: string[]): string
  }
}

/**
 * Security headers for every response. Helmet sets the static ones; the Content-Security-Policy
 * is written here because it differs by response: pages get a nonce-based script policy, the API
 * docs UI its own, and everything else (JSON, files) a policy that allows nothing.
 */
export default fp(
  async function securityHeaders(
    app: FastifyInstance,
    options: { production: boolean; devServer?: boolean; frameSources?: string[] },
  ) {
    await app.register(helmet, {
      global: true,
      contentSecurityPolicy: false,
      // HSTS only where HTTPS is certain; a developer's http://localhost must keep working.
      strictTransportSecurity: options.production ? { maxAge: 63_072_000, includeSubDomains: true } : false,
      referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
      crossOriginEmbedderPolicy: false,
      crossOriginResourcePolicy: { policy: 'same-origin' },
      frameguard: { action: 'deny' },
    })

    app.decorateRequest('cspNonce', '')
    app.decorate('hashedPagePolicy', (scriptHashes: string[]) =>
      pagePolicy(scriptHashes, options.production, options.frameSources),
    )
    app.addHook('onRequest', async (request) => {
      request.cspNonce = randomBytes(16).toString('base64')
    })
    app.addHook('onSend', async (request, reply, payload) => {
      reply.header('permissions-policy', PERMISSIONS_POLICY)
      if (reply.hasHeader('content-security-policy')) return payload
      const type = String(reply.getHeader('content-type') ?? '')
      let policy: string
      if (request.url.startsWith('/api/docs')) policy = docsPolicy()
      else if (type.startsWith('text/html')) {
        policy = options.devServer
          ? devServerPagePolicy()
          : pagePolicy([`'nonce-${request.cspNonce}'`], options.production, options.frameSources)
      } else policy = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
      reply.header('content-security-policy', policy)
      return payload
    })
  },
  { name: 'security-headers' },
)

/**
 * Browser features no page of the site uses, turned off for it and every frame it embeds, so an
 * injected script or a third-party frame (Turnstile) cannot ask for them. Only features every
 * current browser knows: an unknown name is reported as an error in the console.
 */
const PERMISSIONS_POLICY = [
  'accelerometer',
  'camera',
  'display-capture',
  'geolocation',
  'gyroscope',
  'hid',
  'magnetometer',
  'microphone',
  'midi',
  'payment',
  'serial',
  'usb',
]
  .map((feature) => `${feature}=()`)
  .join(', ')

/**
 * A page's policy. `scriptSources` trust its inline scripts: the request's `'nonce-…'`, or for a
 * page from the render cache the `'sha256-…'` of each of them (a nonce stored with a cached page
 * would be known to everyone who fetched it; ADR 062).
 */
export function pagePolicy(scriptSources: string[], production: boolean, frameSources: string[] = []): string {
  const directives = [
    "default-src 'self'",
    // 'strict-dynamic' lets the trusted inline scripts load the route chunks they import.
    `script-src 'self' ${scriptSources.join(' ')} 'strict-dynamic'`,
    // Inline style attributes and the toast library's injected stylesheet; styles cannot run code.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "media-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    // Third-party frames only for what is configured (Turnstile's widget).
    `frame-src 'self'${frameSources.map((source) => ` ${source}`).join('')}`,
    "manifest-src 'self'",
    "worker-src 'self' blob:",
  ]
  if (production) directives.push('upgrade-insecure-requests')
  return directives.join('; ')
}

/**
 * `npm run dev` only: Vite injects unsigned scripts and talks to its hot-reload websocket, so the
 * script policy is relaxed there. Never used for a build.
 */
function devServerPagePolicy(): string {
  return [
    "default-src 'self'",
    "script-src 'self' 'unsafe-inline'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "connect-src 'self' ws: wss:",
    "object-src 'none'",
    "frame-ancestors 'none'",
  ].join('; ')
}

function docsPolicy(): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "object-src 'none'",
    "base-uri 'self'",
    "frame-ancestors 'none'",
  ].join('; ')
}
