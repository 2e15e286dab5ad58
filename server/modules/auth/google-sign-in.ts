import { randomBytes } from 'node:crypto'
import * as oidc from 'openid-client'
import type { Config } from '#server/config.ts'
import { AppError } from '#server/lib/errors.ts'
import type { KeyValueStore } from '#server/lib/key-value-store.ts'

const FLOW_TTL_MS = 10 * 60_000
/** The path registered with Google as the redirect URI (unprefixed; the page keeps the language). */
export const GOOGLE_CALLBACK_PATH = '/auth/callback/google'

type PendingFlow = { verifier: string; nonce: string; redirect: string }
export type GoogleIdentity = { subject: string; email: string | null; emailVerified: boolean; name: string | null }

/**
 * Google sign-in as an OpenID Connect authorization code flow with PKCE, state and nonce. The state
 * names a pending flow kept server-side (key-value store, so any instance can finish it) and used once.
 */
export function createGoogleSignIn(config: Config, kv: KeyValueStore) {
  const { clientId, clientSecret, issuer } = config.google
  const enabled = Boolean(clientId && clientSecret)
  const redirectUri = `${config.publicUrl}${GOOGLE_CALLBACK_PATH}`
  let discovered: Promise<oidc.Configuration> | null = null

  function configuration(): Promise<oidc.Configuration> {
    if (!enabled) throw AppError.notFound('Google sign-in is not configured')
    discovered ??= oidc
      .discovery(new URL(issuer), clientId ?? '', clientSecret, undefined, {
        // A local test issuer speaks plain HTTP; production always talks HTTPS.
        execute: config.isProduction ? [] : [oidc.allowInsecureRequests],
        timeout: 10,
      })
      .catch((error: unknown) => {
        discovered = null
        throw error
      })
    return discovered
  }

  return {
    enabled,

    /** The URL to send the browser to, remembering where to return afterwards. */
    async start(redirect: string): Promise<string> {
      const settings = await configuration()
      const verifier = oidc.randomPKCECodeVerifier()
      const state = randomBytes(24).toString('base64url')
      const nonce = randomBytes(24).toString('base64url')
      const flow: PendingFlow = { verifier, nonce, redirect }
      await kv.set(`google:flow:${state}`, JSON.stringify(flow), FLOW_TTL_MS)
      return oidc
        .buildAuthorizationUrl(settings, {
          redirect_uri: redirectUri,
          scope: 'openid email profile',
          code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
          state,
          nonce,
        })
        .toString()
    },

    /** Exchanges the code from the callback for the verified identity (and where to return). */
    async finish(code: string, state: string): Promise<{ identity: GoogleIdentity; redirect: string }> {
      const settings = await configuration()
      const key = `google:flow:${state}`
      const stored = await kv.get(key)
      if (!stored) throw new AppError(400, 'INVALID_TOKEN', 'This sign-in link is invalid or has expired.')
      await kv.delete(key)
      const flow = JSON.parse(stored) as PendingFlow
      const callback = new URL(redirectUri)
      callback.searchParams.set('code', code)
      callback.searchParams.set('state', state)
      let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>
      try {
        tokens = await oidc.authorizationCodeGrant(settings, callback, {
          pkceCodeVerifier: flow.verifier,
          expectedState: state,
          expectedNonce: flow.nonce,
          idTokenExpected: true,
        })
      } catch {
        throw new AppError(400, 'INVALID_TOKEN', 'Google sign-in could not be completed.')
      }
      const claims = tokens.claims()
      if (!claims?.sub) throw new AppError(400, 'INVALID_TOKEN', 'Google sign-in returned no identity.')
      return {
        identity: {
          subject: claims.sub,
          email: typeof claims.email === 'string' ? claims.email : null,
          emailVerified: claims.email_verified === true,
          name: typeof claims.name === 'string' ? claims.name : null,
        },
        redirect: flow.redirect,
      }
    },
  }
}

export type GoogleSignIn = ReturnType<typeof createGoogleSignIn>
