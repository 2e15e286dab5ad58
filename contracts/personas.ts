import type { z } from 'zod'
import type { chatPersonaSchema, myPersonasSchema, personaSchema } from './personas-schemas.ts'

// Personas (issue 22 item 2, ADR 049): who the user is in a story. A name that stands for `{{user}}`
// in the character's texts, greetings and the prompt, and a short description the character is told.
// No zod here: the pages import these limits and checks (the schemas are in personas-schemas.ts).

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

export type Persona = z.infer<typeof personaSchema>
export type MyPersonas = z.infer<typeof myPersonasSchema>
export type ChatPersona = z.infer<typeof chatPersonaSchema>
