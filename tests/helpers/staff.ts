import type { InjectOptions } from 'fastify'
import { expect } from 'vitest'
import { CONSOLE_TOKEN_HEADER } from '#server/modules/staff/console-sessions.ts'
import { totpCode } from '#server/modules/staff/totp.ts'
import type { TestApp } from '#tests/helpers/test-app.ts'

/** A signed-in account made staff, its second factor enrolled and its console open (ADR 054). */
export type StaffMember = {
  id: string
  email: string
  token: string
  /** The console token the enrollment opened (`X-Console-Token`); freshly confirmed when made. */
  console: string
  /** The TOTP secret, for codes later (`totpCode(secret, Date.now())`). */
  secret: string
  recoveryCodes: string[]
}

/** A new account granted `role` (as `npm run admin -- grant` does) and enrolled through the API. */
export async function staffMember(t: TestApp, role: 'admin' | 'moderator'): Promise<StaffMember> {
  const { user, token } = await t.login()
  await t.app.services.staff.grant(user.email, role, { actorId: 'cli' })
  const headers = { authorization: `Bearer ${token}` }
  const setup = await t.app.inject({ method: 'POST', url: '/api/admin/2fa/setup', headers })
  expect(setup.statusCode).toBe(200)
  const secret = setup.json().data.secret as string
  const enable = await t.app.inject({
    method: 'POST',
    url: '/api/admin/2fa/enable',
    headers,
    payload: { code: totpCode(secret, Date.now()) },
  })
  expect(enable.statusCode).toBe(200)
  const { consoleToken, recoveryCodes } = enable.json().data as { consoleToken: string; recoveryCodes: string[] }
  return { id: user.id, email: user.email, token, console: consoleToken, secret, recoveryCodes }
}

/** `request` sent as `who`, with their access token and console token. */
export function asStaff(t: TestApp, who: Pick<StaffMember, 'token' | 'console'>, request: InjectOptions) {
  return t.app.inject({
    ...request,
    headers: {
      ...(request.headers as Record<string, string> | undefined),
      authorization: `Bearer ${who.token}`,
      [CONSOLE_TOKEN_HEADER]: who.console,
    },
  })
}
