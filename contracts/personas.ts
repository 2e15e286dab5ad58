import { z } from 'zod'

// Personas (issue 22 item 2, ADR 049): who the user is in a story. A name that stands for `{{user}}`
// in the character's texts, greetings and the prompt, and a short description the character is told.

export const PERSONA_LIMITS = {
  /** Personas one user may keep. */
  perUser: 20,
  /** Characters (code points) of a name: 1 to 80, like a character's. */
  name: 80,
  /** Characters (code points) of the description. */
  description: 2_000,
} as const

/** A persona's fields as the form sends them. */
export type PersonaFields = { name: string; description: string }

/** Why a field is refused; the form words each (`personas.fieldErrors.<code>`). */
export const PERSONA_FIELD_PROBLEMS = ['required', 'too_long', 'too_many'] as const
export type PersonaFieldProblem = {
  path: 'name' | 'description' | 'personas'
  code: (typeof PERSONA_FIELD_PROBLEMS)[number]
  limit?: number
}

const codePoints = (text: string) => [...text].length

/** A name as stored: white space runs made one space, trimmed. */
export const cleanPersonaName = (name: string) => name.replace(/\s+/g, ' ').trim()
/** A description as stored: line ends made `\n`, trimmed. */
export const cleanPersonaDescription = (text: string) => text.replace(/\r\n?/g, '\n').trim()

/** Checks the fields against PERSONA_LIMITS, in the browser and on the server; empty: they may be saved. */
export function checkPersonaFields(fields: PersonaFields): PersonaFieldProblem[] {
  const problems: PersonaFieldProblem[] = []
  const name = cleanPersonaName(fields.name)
  if (name === '') problems.push({ path: 'name', code: 'required' })
  else if (codePoints(name) > PERSONA_LIMITS.name)
    problems.push({ path: 'name', code: 'too_long', limit: PERSONA_LIMITS.name })
  if (codePoints(cleanPersonaDescription(fields.description)) > PERSONA_LIMITS.description) {
    problems.push({ path: 'description', code: 'too_long', limit: PERSONA_LIMITS.description })
  }
  return problems
}

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
export type Persona = z.infer<typeof personaSchema>

export const myPersonasSchema = z.object({
  items: z.array(personaSchema),
  page: z.number().int(),
  pageSize: z.number().int(),
  total: z.number().int(),
  totalPages: z.number().int(),
  /** PERSONA_LIMITS.perUser, so the page can say how many are left. */
  limit: z.number().int(),
})
export type MyPersonas = z.infer<typeof myPersonasSchema>

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
export type ChatPersona = z.infer<typeof chatPersonaSchema>

export const myPersonasQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(PERSONA_LIMITS.perUser).default(PERSONA_LIMITS.perUser),
})

export const createPersonaBody = personaBody.extend({ isDefault: z.boolean().default(false) }).strict()
export const defaultPersonaBody = z.object({ personaId: z.uuid().nullable() }).strict()
