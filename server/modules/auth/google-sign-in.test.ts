import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { eq } from 'drizzle-orm'
import { OAuth2Server } from 'oauth2-mock-server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SIGNUP_GRANT_DIAMONDS } from '#contracts/plans.ts'
import { refreshTokens } from '#db/schema/auth.ts'
import { diamondLedger } from '#db/schema/diamonds.ts'
import { users } from '#db/schema/users.ts'
import { hashPassword } from '#server/modules/auth/passwords.ts'
import { createUser } from '#tests/factories/user.ts'
import { buildTestApp, type TestApp } from '#tests/helpers/test-app.ts'

type Claims = { sub: string; email?: string; email_verified?: boolean; name?: string }

describe('Google sign-in (OpenID Connect against a mock issuer)', () => {
  let issuer: OAuth2Server
  let t: TestApp

  beforeAll(async () => {
    issuer = new OAuth2Server()
    await issuer.issuer.keys.generate('RS256')
    await issuer.start(0, '127.0.0.1')
    t = await buildTestApp({
      env: {
        GOOGLE_CLIENT_ID: 'taleweave-test',
        GOOGLE_CLIENT_SECRET: 'test-secret',
        GOOGLE_ISSUER: issuer.issuer.url ?? '',
        PUBLIC_URL: 'http://localhost:3000',
      },
    })
  })
  afterAll(async () => {
    await t.close()
    await issuer.stop()
  })

  /** The browser's part: start, follow the issuer's redirect back, and hand over code and state. */
  async function signIn(claims: Claims, redirect = '/characters', locale?: string) {
    const start = await t.app.inject({
      method: 'GET',
      url: `/api/public/auth/google/start?redirect_url=${encodeURIComponent(redirect)}`,
    })
    expect(start.statusCode).toBe(200)
    const authorizeUrl = new URL(start.json().data.url)
    expect(authorizeUrl.searchParams.get('code_challenge_method')).toBe('S256')
    expect(authorizeUrl.searchParams.get('nonce')).toBeTruthy()
    // The issuer signs an access token and an ID token; both carry the claims of this person.
    const addClaims = (token: { payload: Record<string, unknown> }) => Object.assign(token.payload, claims)
    issuer.service.on('beforeTokenSigning', addClaims)
    const back = await fetch(authorizeUrl, { redirect: 'manual' })
    const callback = new URL(back.headers.get('location') ?? '')
    expect(callback.pathname).toBe('/auth/callback/google')
    const code = callback.searchParams.get('code') ?? ''
    const state = callback.searchParams.get('state') ?? ''
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/google',
      payload: { code, state, ...(locale ? { locale } : {}) },
    })
    issuer.service.off('beforeTokenSigning', addClaims)
    return { res, code, state }
  }

  const infoOf = async (token: string) =>
    (await t.app.inject({ method: 'POST', url: '/api/userInfo', headers: { authorization: `Bearer ${token}` } })).json()
      .data

  it('creates an account with a unique username on the first sign-in, and finds it again after', async () => {
    const sub = `google-${Date.now()}`
    const email = `ada-${Date.now()}@gmail.test`
    const first = await signIn({ sub, email, email_verified: true, name: 'Ada Lovelace' })
    expect(first.res.statusCode).toBe(200)
    const { token, refreshToken, redirect } = first.res.json().data
    expect(redirect).toBe('/characters')
    expect(refreshToken).toBeTruthy()
    const info = await infoOf(token)
    expect(info).toMatchObject({ username: 'Ada_Lovelace', email })

    const second = await signIn({ sub, email, email_verified: true, name: 'Ada Lovelace' })
    expect((await infoOf(second.res.json().data.token)).username).toBe('Ada_Lovelace')

    // Someone else with the same display name gets a different username.
    const other = await signIn({
      sub: `${sub}-2`,
      email: `ada2-${Date.now()}@gmail.test`,
      email_verified: true,
      name: 'Ada Lovelace',
    })
    expect((await infoOf(other.res.json().data.token)).username).toMatch(/^Ada_Lovelace_[0-9a-f]{4}$/)
  })

  it("writes the account's mails in the language of its latest Google sign-in", async () => {
    const sub = `polyglot-${Date.now()}`
    const email = `polyglot-${Date.now()}@gmail.test`
    const localeOf = async () =>
      (await t.database.db.select({ locale: users.locale }).from(users).where(eq(users.email, email)))[0]?.locale
    expect((await signIn({ sub, email, email_verified: true, name: 'Polyglot' }, '/', 'ja')).res.statusCode).toBe(200)
    expect(await localeOf()).toBe('ja')
    expect((await signIn({ sub, email, email_verified: true, name: 'Polyglot' }, '/', 'pt')).res.statusCode).toBe(200)
    expect(await localeOf()).toBe('pt')
    // A sign-in that names no language keeps the last one.
    expect((await signIn({ sub, email, email_verified: true, name: 'Polyglot' })).res.statusCode).toBe(200)
    expect(await localeOf()).toBe('pt')

    // An existing account linked to Google on this sign-in takes its language too.
    const linked = `linked-${Date.now()}@example.test`
    await createUser(t.database.db, { email: linked, passwordHash: await hashPassword('the original password') })
    const res = (await signIn({ sub: `l-${Date.now()}`, email: linked, email_verified: true }, '/', 'sv')).res
    expect(res.statusCode).toBe(200)
    const [row] = await t.database.db.select({ locale: users.locale }).from(users).where(eq(users.email, linked))
    expect(row?.locale).toBe('sv')
  })

  it('links to the existing account with the same verified e-mail', async () => {
    const email = `grace-${Date.now()}@example.test`
    const existing = await createUser(t.database.db, {
      email,
      passwordHash: await hashPassword('the original password'),
    })
    const { res } = await signIn({
      sub: `g-${Date.now()}`,
      email: email.toUpperCase(),
      email_verified: true,
      name: 'Grace',
    })
    expect(res.statusCode).toBe(200)
    expect((await infoOf(res.json().data.token)).username).toBe(existing.username)
    // The password still works too.
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/login',
      payload: { email, password: 'the original password' },
    })
    expect(login.statusCode).toBe(200)
  })

  it('takes an unverified account from whoever registered it: their password and logins end, the Google owner gets it', async () => {
    // Someone registers the victim's address with a password of their own and never verifies it.
    const email = `victim-${Date.now()}@example.test`
    const attackerPassword = 'the squatter knows this one'
    const squatted = await createUser(t.database.db, {
      email,
      passwordHash: await hashPassword(attackerPassword),
      emailVerifiedAt: null,
      locale: 'ru',
    })
    // Logins of that account, made here directly: a refresh token and an access token (ADR 022
    // ends them even though an unverified account cannot log in through the API).
    const oldRefresh = randomBytes(32).toString('base64url')
    await t.database.db.insert(refreshTokens).values({
      userId: squatted.id,
      familyId: randomUUID(),
      tokenHash: createHash('sha256').update(oldRefresh).digest('hex'),
      remember: true,
      familyStartedAt: new Date(),
      expiresAt: new Date(Date.now() + 86_400_000),
    })
    const oldAccess = await t.app.accessTokens.issue({ userId: squatted.id })
    expect((await infoOf(oldAccess)).username).toBe(squatted.username)

    // The address's real owner signs in with Google.
    const { res } = await signIn({ sub: `victim-${Date.now()}`, email, email_verified: true, name: 'Victim' })
    expect(res.statusCode).toBe(200)
    const { token, refreshToken } = res.json().data
    // The Google login works (it starts after the account's logins were ended)...
    expect((await infoOf(token)).username).toBe(squatted.username)
    expect((await t.app.inject({ method: 'POST', url: '/api/refresh', payload: { refreshToken } })).statusCode).toBe(
      200,
    )
    // ...and nothing the squatter had does: not the password, not the refresh token, not the access token.
    const login = await t.app.inject({
      method: 'POST',
      url: '/api/login',
      payload: { email, password: attackerPassword },
    })
    expect(login.statusCode).toBe(401)
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/refresh', payload: { refreshToken: oldRefresh } })).statusCode,
    ).toBe(401)
    expect(
      (await t.app.inject({ method: 'POST', url: '/api/userInfo', headers: { authorization: `Bearer ${oldAccess}` } }))
        .statusCode,
    ).toBe(401)
    const [account] = await t.database.db.select().from(users).where(eq(users.id, squatted.id))
    expect(account?.passwordHash).toBeNull()
    expect(account?.emailVerifiedAt).toBeInstanceOf(Date)
    // Mails now go out in the language of the owner's sign-in, not the squatter's choice.
    expect(account?.locale).toBe('en')
    // Its address is proven for the first time now: the welcome diamonds, once (ADR 022, item 4).
    expect((await infoOf(token)).balance).toBe(SIGNUP_GRANT_DIAMONDS)
    const again = await signIn({ sub: account?.googleSubject ?? '', email, email_verified: true })
    expect((await infoOf(again.res.json().data.token)).balance).toBe(SIGNUP_GRANT_DIAMONDS)
    const grants = await t.database.db.select().from(diamondLedger).where(eq(diamondLedger.userId, squatted.id))
    expect(grants.map((g) => g.reason)).toEqual(['signup'])
  })

  it('does not give a new Google account a username that looks like an existing one', async () => {
    await createUser(t.database.db, { username: 'Margaret_Hamilton' })
    // Cyrillic а in the display name: the username made from it would look exactly the same.
    const { res } = await signIn({
      sub: `mh-${Date.now()}`,
      email: `mh-${Date.now()}@gmail.test`,
      email_verified: true,
      name: 'Mаrgаret Hаmilton',
    })
    expect(res.statusCode).toBe(200)
    expect((await infoOf(res.json().data.token)).username).toMatch(/^Mаrgаret_Hаmilton_[0-9a-f]{4}$/)
  })

  it('refuses an identity whose e-mail Google has not verified', async () => {
    const { res } = await signIn({
      sub: `u-${Date.now()}`,
      email: `x-${Date.now()}@example.test`,
      email_verified: false,
    })
    expect(res.statusCode).toBe(400)
    expect(res.json().error).toBe('INVALID_TOKEN')
  })

  it('uses each state once and refuses made-up ones', async () => {
    const { res, code, state } = await signIn({
      sub: `s-${Date.now()}`,
      email: `s-${Date.now()}@example.test`,
      email_verified: true,
    })
    expect(res.statusCode).toBe(200)
    const replay = await t.app.inject({ method: 'POST', url: '/api/auth/google', payload: { code, state } })
    expect(replay.statusCode).toBe(400)
    const forged = await t.app.inject({
      method: 'POST',
      url: '/api/auth/google',
      payload: { code, state: 'made-up-state' },
    })
    expect(forged.statusCode).toBe(400)
  })

  it('keeps only same-site paths as the way back', async () => {
    const { res } = await signIn(
      { sub: `r-${Date.now()}`, email: `r-${Date.now()}@example.test`, email_verified: true },
      '//evil.example/x',
    )
    expect(res.json().data.redirect).toBe('/')
  })
})

describe('Google sign-in when not configured', () => {
  it('answers 404, and the pages do not offer it', async () => {
    const t = await buildTestApp()
    try {
      const res = await t.app.inject({ method: 'GET', url: '/api/public/auth/google/start' })
      expect(res.statusCode).toBe(404)
      expect(t.app.services.googleSignIn.enabled).toBe(false)
    } finally {
      await t.close()
    }
  })
})
