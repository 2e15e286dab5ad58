import type { FastifyRequest } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import {
  emailBody,
  loginBody,
  logoutAllResult,
  messageResult,
  refreshBody,
  registerBody,
  resetPasswordBody,
  tokenPair,
  tokenQuery,
  userInfo,
} from '#contracts/accounts-schemas.ts'
import { DEFAULT_LOCALE, isLocale, LOCALE_COOKIE, LOCALES } from '#contracts/locales.ts'
import { safeRedirectPath } from '#contracts/redirects.ts'
import { AppError } from '#server/lib/errors.ts'
import { ok, okSchema } from '#server/lib/reply.ts'
import type { AuthService } from './auth.service.ts'
import type { GoogleSignIn } from './google-sign-in.ts'
import type { HumanVerification } from './human-verification.ts'

/**
 * The language a person is using, for their mails: the one the page says it is in (`locale` in the
 * body), else the language selector's cookie; undefined when neither names a locale.
 */
function currentLocale(request: FastifyRequest<{ Body: { locale?: string } }>): string | undefined {
  const cookie = request.cookies[LOCALE_COOKIE]
  if (isLocale(request.body.locale)) return request.body.locale
  return isLocale(cookie) ? cookie : undefined
}

export function authRoutes(
  auth: AuthService,
  humanVerification: HumanVerification,
  google: GoogleSignIn,
): FastifyPluginAsyncZod {
  return async (app) => {
    const tags = ['accounts']

    app.get(
      '/public/auth/google/start',
      {
        schema: {
          tags,
          summary: 'Begin Google sign-in: the URL to send the browser to (code flow with PKCE, state, nonce)',
          querystring: z.object({ redirect_url: z.string().max(2000).optional() }),
          response: { 200: okSchema(z.object({ url: z.string() })) },
        },
      },
      async (request, reply) => {
        reply.header('cache-control', 'no-store')
        // Only a path of this site is kept as the way back.
        return ok({ url: await google.start(safeRedirectPath(request.query.redirect_url, '/')) })
      },
    )

    app.post(
      '/auth/google',
      {
        schema: {
          tags,
          summary: 'Finish Google sign-in with the code and state from the callback',
          body: z
            .object({
              code: z.string().min(1).max(2000),
              state: z.string().min(1).max(200),
              locale: z.string().max(10).optional(),
            })
            .strict(),
          response: { 200: okSchema(tokenPair.extend({ redirect: z.string() })) },
        },
      },
      async (request) => {
        const { identity, redirect } = await google.finish(request.body.code, request.body.state)
        return ok({ ...(await auth.signInWithGoogle(identity, currentLocale(request))), redirect })
      },
    )

    app.get(
      '/public/altcha/challenge',
      {
        schema: {
          tags,
          summary: 'A proof-of-work challenge for the register form (raw ALTCHA JSON, read by the widget)',
        },
      },
      async (_request, reply) => {
        if (humanVerification.provider !== 'altcha') throw AppError.notFound('ALTCHA is not in use')
        reply.header('cache-control', 'no-store')
        return humanVerification.challenge()
      },
    )

    app.post(
      '/register',
      {
        schema: {
          tags,
          summary: 'Create an account; a verification link is mailed',
          body: registerBody,
          response: { 200: okSchema(messageResult) },
        },
      },
      async (request) => {
        await auth.register({ ...request.body, locale: currentLocale(request) ?? DEFAULT_LOCALE, ip: request.ip })
        return ok({ message: 'Registration successful, please check your email to verify your account.' })
      },
    )

    app.post(
      '/verify',
      {
        schema: {
          tags,
          summary: 'Confirm an e-mail address with the token from the link',
          querystring: tokenQuery,
          response: { 200: okSchema(messageResult) },
        },
      },
      async (request) => {
        await auth.verifyEmail(request.query.token, request.ip)
        return ok({ message: 'verified' })
      },
    )

    app.post(
      '/resend-email',
      {
        schema: {
          tags,
          summary: 'Send the verification link again',
          body: emailBody,
          response: { 200: okSchema(messageResult) },
        },
      },
      async (request) => {
        await auth.resendVerification(request.body.email, request.ip)
        return ok({ message: 'Verification email resent, please check your email.' })
      },
    )

    app.post(
      '/login',
      {
        schema: {
          tags,
          summary: 'Log in with e-mail and password',
          body: loginBody,
          response: { 200: okSchema(tokenPair) },
        },
      },
      async (request) => ok(await auth.login({ ...request.body, locale: currentLocale(request), ip: request.ip })),
    )

    app.post(
      '/refresh',
      {
        schema: {
          tags,
          summary: 'Trade a refresh token for a new token pair (rotation, reuse detection)',
          body: refreshBody,
          response: { 200: okSchema(tokenPair) },
        },
      },
      async (request) => ok(await auth.refresh(request.body.refreshToken, request.ip)),
    )

    app.post(
      '/logout',
      { schema: { tags, summary: 'End this login', body: refreshBody, response: { 200: okSchema(z.object({})) } } },
      async (request) => {
        await auth.logout(request.body.refreshToken)
        return ok({})
      },
    )

    app.post(
      '/logout-all',
      {
        preHandler: app.requireUser,
        schema: {
          tags,
          summary:
            'Log out everywhere: end every login of the signed-in user, this one included; its access tokens stop working at once',
          security: [{ bearer: [] }],
          response: { 200: okSchema(logoutAllResult) },
        },
      },
      async (request, reply) => {
        reply.header('cache-control', 'no-store')
        return ok(await auth.logoutAll(request.userId ?? '', request.ip))
      },
    )

    app.post(
      '/forgot-password',
      {
        schema: {
          tags,
          summary: 'Mail a password reset link (same answer for unknown addresses)',
          body: emailBody,
          response: { 200: okSchema(messageResult) },
        },
      },
      async (request) => {
        await auth.requestPasswordReset(request.body.email, request.ip)
        return ok({ message: 'sent' })
      },
    )

    app.post(
      '/reset-password',
      {
        schema: {
          tags,
          summary: 'Set a new password from a reset link; ends every login of the account',
          body: resetPasswordBody,
          response: { 200: okSchema(messageResult) },
        },
      },
      async (request) => {
        await auth.resetPassword(request.body.token, request.body.password, request.ip)
        return ok({ message: 'reset' })
      },
    )

    app.post(
      '/userInfo',
      {
        preHandler: app.requireUser,
        schema: {
          tags,
          summary: 'The signed-in user: name, e-mail, avatar, balance',
          security: [{ bearer: [] }],
          response: { 200: okSchema(userInfo) },
        },
      },
      async (request) => {
        const userId = request.userId ?? ''
        // Asked once per page load of a signed-in person: their current language is their mails' one.
        await auth.rememberLocale(userId, request.cookies[LOCALE_COOKIE])
        return ok(await auth.userInfo(userId))
      },
    )

    app.post(
      '/locale',
      {
        preHandler: app.requireUser,
        schema: {
          tags,
          summary:
            "The signed-in user chose a language in the language selector: the account's mails are written in it from now on",
          security: [{ bearer: [] }],
          body: z.object({ locale: z.enum(LOCALES) }).strict(),
          response: { 200: okSchema(z.object({ locale: z.enum(LOCALES) })) },
        },
      },
      async (request) => {
        await auth.rememberLocale(request.userId ?? '', request.body.locale)
        return ok({ locale: request.body.locale })
      },
    )
  }
}
