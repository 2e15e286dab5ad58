import { parseArgs } from 'node:util'
import { AppError } from '#server/lib/errors.ts'
import { CLI_ACTOR } from './audit.ts'
import { STAFF_ROLES, type StaffService } from './staff.service.ts'

const USAGE = `usage:
  npm run admin -- grant <email> [--role admin|moderator] [--note <text>]   (default role: admin)
  npm run admin -- revoke <email> [--note <text>]
  npm run admin -- reset-2fa <email> [--note <text>]
  npm run admin -- list`

type Output = { log(line: string): void; error(line: string): void }

/**
 * `npm run admin`: the operator's command line for staff (ADR 054). Returns the exit code: 0 done,
 * 1 refused (an unknown e-mail, not staff), 2 a usage mistake. Every change is audited as `cli`.
 */
export async function runAdminCli(argv: string[], staff: StaffService, out: Output = console): Promise<number> {
  let parsed: ReturnType<typeof parse>
  try {
    parsed = parse(argv)
  } catch (error) {
    out.error(`${(error as Error).message}\n${USAGE}`)
    return 2
  }
  const { positionals, values } = parsed
  const [command, email, ...rest] = positionals
  const actor = { actorId: CLI_ACTOR }
  const note = values.note ?? ''
  const needsEmail = command === 'grant' || command === 'revoke' || command === 'reset-2fa'
  if (!command || rest.length > 0 || (needsEmail && !email) || (command === 'list' && email)) {
    out.error(USAGE)
    return 2
  }
  const role = values.role ?? 'admin'
  if (!(STAFF_ROLES as readonly string[]).includes(role)) {
    out.error(`--role must be admin or moderator, not "${role}"`)
    return 2
  }
  try {
    switch (command) {
      case 'grant': {
        const { before } = await staff.grant(email ?? '', role as 'admin' | 'moderator', actor, note)
        out.log(
          `${email} is now ${role}${before ? ` (was ${before})` : ''}. They enroll a second factor before the console opens.`,
        )
        return 0
      }
      case 'revoke': {
        const { before } = await staff.revoke(email ?? '', actor, note)
        out.log(`${email} is no longer ${before}; their second factor was removed.`)
        return 0
      }
      case 'reset-2fa': {
        const { had } = await staff.resetSecondFactor(email ?? '', actor, note)
        out.log(had ? `${email}'s second factor was removed: they enroll again.` : `${email} had no second factor.`)
        return 0
      }
      case 'list': {
        const list = await staff.list()
        if (list.length === 0) out.log('No staff yet. Make the first admin: npm run admin -- grant <email>')
        for (const s of list) {
          out.log(
            `${s.role.padEnd(9)} ${s.email}  (${s.username}; 2FA ${s.secondFactor ? 'on' : 'not set up'}; granted by ${s.grantedBy} ${s.grantedAt.toISOString()})`,
          )
        }
        return 0
      }
      default:
        out.error(`unknown command "${command}"\n${USAGE}`)
        return 2
    }
  } catch (error) {
    if (error instanceof AppError && error.status < 500) {
      out.error(error.message)
      return 1
    }
    throw error
  }
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: { role: { type: 'string' }, note: { type: 'string' } },
  })
}
