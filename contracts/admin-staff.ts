import { z } from 'zod'

/** The console's staff and second-factor calls (ADR 054). */
export const staffRoleSchema = z.enum(['admin', 'moderator'])

export const adminMeSchema = z.object({
  role: staffRoleSchema.nullable(),
  secondFactor: z.enum(['none', 'enabled']),
  /** Whether the console token sent with the call is open. */
  unlocked: z.boolean(),
  /** Until when sensitive actions need no new code (ISO time), when unlocked. */
  confirmedUntil: z.string().nullable(),
  recoveryCodesLeft: z.number().int(),
})

export const codeBody = z.object({ code: z.string().trim().min(1).max(40) })

export const setupSchema = z.object({ secret: z.string(), uri: z.string() })
export const enableSchema = z.object({ recoveryCodes: z.array(z.string()), consoleToken: z.string() })
export const verifySchema = z.object({ consoleToken: z.string(), usedRecoveryCode: z.boolean() })

export const grantBody = z.object({
  email: z.string().trim().min(3).max(320),
  role: staffRoleSchema.default('moderator'),
  note: z.string().max(2000).default(''),
})
export const revokeBody = z.object({ email: z.string().trim().min(3).max(320), note: z.string().max(2000).default('') })

export const staffListSchema = z.array(
  z.object({
    userId: z.string(),
    email: z.string(),
    username: z.string(),
    role: staffRoleSchema,
    grantedBy: z.string(),
    grantedAt: z.string(),
    secondFactor: z.boolean(),
  }),
)

export const auditQuery = z.object({
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  pageSize: z.coerce.number().int().min(1).max(200).default(50),
  actorId: z.uuid().optional(),
  action: z.string().max(100).optional(),
  targetType: z.enum(['user', 'character', 'report', 'order', 'subscription', 'tag', 'job', 'staff']).optional(),
  targetId: z.string().max(200).optional(),
})

export const auditPageSchema = z.object({
  items: z.array(
    z.object({
      id: z.number(),
      at: z.string(),
      actorId: z.string().nullable(),
      actorLabel: z.string(),
      action: z.string(),
      targetType: z.string(),
      targetId: z.string(),
      note: z.string(),
      details: z.record(z.string(), z.unknown()).nullable(),
    }),
  ),
  page: z.number(),
  pageSize: z.number(),
  total: z.number(),
})
