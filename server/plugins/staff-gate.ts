import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import { AppError } from '#server/lib/errors.ts'
import { CONSOLE_TOKEN_HEADER, type ConsoleSessions } from '#server/modules/staff/console-sessions.ts'
import type { StaffRole } from '#server/modules/staff/staff.repo.ts'
import { roleAllows, type StaffService } from '#server/modules/staff/staff.service.ts'

type Hook = (request: FastifyRequest, reply: FastifyReply) => Promise<void>

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The console's gate (ADR 054), declared as a route's `onRequest` so it runs before the body
     * is read: 401 without a login, 403 STAFF_ONLY for a user who is not staff (FORBIDDEN for a
     * moderator on an admin route), 403 SECOND_FACTOR_REQUIRED without a console token from a
     * verified second factor (unless `secondFactor: false`, for enrolling). The role is read from
     * the database on every call.
     */
    requireStaff(role: StaffRole, options?: { secondFactor?: boolean }): Hook
    /** After requireStaff: 403 CONFIRMATION_REQUIRED unless a TOTP code was verified in the last 5 minutes. */
    requireFreshConfirmation: Hook
    /** Every route under /api/admin, as registered (tests call each one). */
    adminRoutes: { method: string; url: string }[]
  }
  interface FastifyRequest {
    staff: { role: StaffRole; consoleToken: string | undefined } | null
  }
}

const GATE = Symbol('staff gate')
const ADMIN_PREFIX = '/api/admin'

export default fp(
  async function staffGate(app: FastifyInstance, options: { staff: StaffService; sessions: ConsoleSessions }) {
    const { staff, sessions } = options
    app.decorateRequest('staff', null)
    const consoleToken = (request: FastifyRequest) => {
      const value = request.headers[CONSOLE_TOKEN_HEADER]
      return typeof value === 'string' && value.length > 0 && value.length <= 200 ? value : undefined
    }

    app.decorate('requireStaff', (needed: StaffRole, gateOptions: { secondFactor?: boolean } = {}) => {
      const hook: Hook = async (request) => {
        const userId = request.userId
        if (!userId) throw AppError.unauthorized()
        const role = await staff.roleOf(userId)
        if (role === null) throw new AppError(403, 'STAFF_ONLY', 'Only staff may do this.')
        if (!roleAllows(role, needed)) throw AppError.forbidden('Only an admin may do this.')
        const token = consoleToken(request)
        if (gateOptions.secondFactor !== false && !(await sessions.find(userId, token))) {
          throw new AppError(403, 'SECOND_FACTOR_REQUIRED', 'Verify your second factor to open the console.')
        }
        request.staff = { role, consoleToken: token }
      }
      return Object.assign(hook, { [GATE]: true })
    })

    app.decorate('requireFreshConfirmation', async (request: FastifyRequest) => {
      const userId = request.userId
      const session = userId ? await sessions.find(userId, request.staff?.consoleToken) : null
      if (!session || !sessions.isFresh(session)) {
        throw new AppError(403, 'CONFIRMATION_REQUIRED', 'Confirm with a current code from your authenticator app.')
      }
    })

    // Every console route must be gated: one without the gate stops the server from starting.
    const adminRoutes: { method: string; url: string }[] = []
    app.decorate('adminRoutes', adminRoutes)
    app.addHook('onRoute', (route: RouteOptions) => {
      if (!route.url.startsWith(ADMIN_PREFIX)) return
      const onRequest = Array.isArray(route.onRequest) ? route.onRequest : route.onRequest ? [route.onRequest] : []
      if (!onRequest.some((hook) => GATE in hook)) {
        throw new Error(`${route.url}: a console route needs app.requireStaff(...) in its onRequest`)
      }
      for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
        if (method !== 'HEAD') adminRoutes.push({ method, url: route.url })
      }
    })
  },
  { name: 'staff-gate', dependencies: ['authentication'] },
)
