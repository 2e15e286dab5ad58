import { z } from 'zod'
import { PERSONA_LIMITS } from './personas.ts'

// The schemas of personas' calls (ADR 049); the limits and checks the pages use are in personas.ts,
// which imports no zod.

export const personaSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  description: z.string(),
  /** `/api/public/images/:id`, or null: the default avatar. */
  avatarUrl: z.string().nullable(),
  isDefault: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
})

export const myPersonasSchema = z.object({
  items: z.array(personaSchema),
  page: z.number().int(),
  pageSize: z.number().int(),
  total: z.number().int(),
  totalPages: z.number().int(),
  /** PERSONA_LIMITS.perUser, so the page can say how many are left. */
  limit: z.number().int(),
})

/** The fields of a create or an edit. Loose bounds here; `checkPersonaFields` words the exact ones. */
export const personaBody = z.object({
  name: z.string().max(PERSONA_LIMITS.name * 8),
  description: z
    .string()
    .max(PERSONA_LIMITS.description * 8)
    .default(''),
})

export const personaIdParams = z.object({ id: z.uuid() })

/** The persona of a chat; null: the account name. */
export const chatPersonaSchema = z.object({ sessionId: z.uuid(), personaId: z.uuid().nullable() })

export const myPersonasQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(PERSONA_LIMITS.perUser).default(PERSONA_LIMITS.perUser),
})

export const createPersonaBody = personaBody.extend({ isDefault: z.boolean().default(false) }).strict()
export const defaultPersonaBody = z.object({ personaId: z.uuid().nullable() }).strict()
