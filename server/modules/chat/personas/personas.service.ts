import {
  type ChatPersona,
  checkPersonaFields,
  cleanPersonaDescription,
  cleanPersonaName,
  type MyPersonas,
  PERSONA_LIMITS,
  type Persona,
  type PersonaFieldProblem,
  type PersonaFields,
} from '#contracts/personas.ts'
import { AppError } from '#server/lib/errors.ts'
import { AVATAR, type ImagesService, imageUrl } from '#server/modules/images/images.service.ts'
import { invalidSession } from '../chat-views.ts'
import type { PersonaRow, PersonasRepo } from './personas.repo.ts'

const noSuchPersona = () => AppError.notFound('No such persona')

/** Refused fields, worded by the form from their codes (`personas.fieldErrors.*`). */
const refused = (problems: PersonaFieldProblem[]) =>
  new AppError(400, 'VALIDATION_ERROR', 'The persona is not valid.', problems)

export function toPersona(row: PersonaRow): Persona {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    avatarUrl: imageUrl(row.avatarImageId),
    isDefault: row.isDefault,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  }
}

function cleaned(fields: PersonaFields): PersonaFields {
  const problems = checkPersonaFields(fields)
  if (problems.length > 0) throw refused(problems)
  return { name: cleanPersonaName(fields.name), description: cleanPersonaDescription(fields.description) }
}

/**
 * A user's personas (ADR 049): keep up to PERSONA_LIMITS.perUser, one of them the default a new
 * chat takes, and the persona of each chat. Every call is the owner's: another user's persona or
 * chat answers as if it did not exist.
 */
export function createPersonasService(deps: {
  repo: PersonasRepo
  images: Pick<ImagesService, 'store' | 'removeUnused'>
}) {
  const { repo, images } = deps

  return {
    async list(ownerId: string, page: number, pageSize: number): Promise<MyPersonas> {
      const [rows, total] = await Promise.all([
        repo.list(ownerId, (page - 1) * pageSize, pageSize),
        repo.count(ownerId),
      ])
      return {
        items: rows.map(toPersona),
        page,
        pageSize,
        total,
        totalPages: Math.ceil(total / pageSize),
        limit: PERSONA_LIMITS.perUser,
      }
    },

    async create(ownerId: string, fields: PersonaFields, makeDefault = false): Promise<Persona> {
      const row = await repo.create(ownerId, cleaned(fields), PERSONA_LIMITS.perUser, makeDefault)
      if (!row) throw refused([{ path: 'personas', code: 'too_many', limit: PERSONA_LIMITS.perUser }])
      return toPersona(row)
    },

    async update(ownerId: string, id: string, fields: PersonaFields): Promise<Persona> {
      const row = await repo.update(ownerId, id, cleaned(fields))
      if (!row) throw noSuchPersona()
      return toPersona(row)
    },

    async remove(ownerId: string, id: string) {
      const removed = await repo.remove(ownerId, id)
      if (!removed) throw noSuchPersona()
      await images.removeUnused([removed.avatarImageId])
      return { deleted: true as const }
    },

    /** The avatar, stored by the images service like a character's (its original and its variants). */
    async setAvatar(ownerId: string, id: string, bytes: Buffer | null): Promise<Persona> {
      if (!(await repo.find(ownerId, id))) throw noSuchPersona()
      const stored = bytes ? (await images.store(bytes, AVATAR)).id : null
      const result = await repo.setAvatar(ownerId, id, stored)
      if (!result) {
        await images.removeUnused([stored])
        throw noSuchPersona()
      }
      await images.removeUnused([result.replaced])
      return toPersona(result.row)
    },

    /** Makes one the default a new chat takes (null: none, the account name). */
    async setDefault(ownerId: string, id: string | null) {
      if (!(await repo.setDefault(ownerId, id))) throw noSuchPersona()
      return { personaId: id }
    },

    /** The default persona a new chat starts with, or null. */
    defaultOf: (ownerId: string) => repo.defaultOf(ownerId),

    async chatPersona(userId: string, sessionId: string): Promise<ChatPersona> {
      const personaId = await repo.chatPersona(userId, sessionId)
      if (personaId === undefined) throw invalidSession()
      return { sessionId, personaId }
    },

    /** The chat's persona from its next reply on (null: the account name). */
    async setChatPersona(userId: string, sessionId: string, personaId: string | null): Promise<ChatPersona> {
      if (await repo.setChatPersona(userId, sessionId, personaId)) return { sessionId, personaId }
      if ((await repo.chatPersona(userId, sessionId)) === undefined) throw invalidSession()
      throw noSuchPersona()
    },
  }
}

export type PersonasService = ReturnType<typeof createPersonasService>
