import {
  type AttachedLorebooks,
  LOREBOOK_LIMITS,
  type LorebookDetail,
  type LorebookExportFormat,
  type LorebookImportResult,
  type LorebookSummary,
  type MyLorebooks,
} from '#contracts/lorebooks.ts'
import { AppError } from '#server/lib/errors.ts'
import type { CharactersService } from '#server/modules/characters/characters.service.ts'
import {
  LorebookFileError,
  type ReadLorebook,
  readLorebookFile,
  readLorebookValue,
  toLorebookV3,
  toWorldInfo,
} from './lorebook-files.ts'
import type { LorebookRow, LorebooksRepo } from './lorebooks.repo.ts'

export type LorebooksDeps = {
  repo: LorebooksRepo
  /** Whose character it is (404 someone else's private one, 403 a public one). */
  characters: Pick<CharactersService, 'ownRoleId'>
}

/** A file that is not a lorebook: 400 `INVALID_LOREBOOK` (413 for sizes); `details.reason` is its code. */
function fileErrorToAppError(error: LorebookFileError): AppError {
  const details = { reason: error.code, ...error.details }
  if (error.code === 'too_large') return new AppError(413, 'PAYLOAD_TOO_LARGE', error.message, details)
  return new AppError(400, 'INVALID_LOREBOOK', error.message, details)
}

const notFound = () => AppError.notFound('No such lorebook')

/** A name as the list shows it: no control characters, one space between words, at most LOREBOOK_LIMITS.name characters. */
function cleanName(name: string): string {
  const clean = name
    .replace(/[\p{Cc}\u200B-\u200F\u202A-\u202E\u2066-\u2069\uFEFF]/gu, '')
    .replace(/\s+/gu, ' ')
    .trim()
  return [...clean].slice(0, LOREBOOK_LIMITS.name).join('')
}

/** The file name without folders and its last extension (`Eldoria.json` -> `Eldoria`). */
function stem(fileName: string | undefined): string {
  return (
    (fileName ?? '')
      .split(/[/\\]/)
      .pop()
      ?.replace(/\.[^.]*$/, '') ?? ''
  )
}

function summaryOf(row: LorebookRow): LorebookSummary {
  return {
    id: row.id,
    name: row.name,
    entryCount: row.entryCount,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  }
}

export function createLorebooksService({ repo, characters }: LorebooksDeps) {
  async function store(ownerId: string, read: ReadLorebook, fallbackName: string): Promise<LorebookImportResult> {
    if ((await repo.countOwnedBy(ownerId)) >= LOREBOOK_LIMITS.perUser) {
      throw new AppError(400, 'INVALID_LOREBOOK', 'You keep as many lorebooks as you may: delete one first.', {
        reason: 'limit_reached',
        limit: LOREBOOK_LIMITS.perUser,
      })
    }
    // The book's own name, else the file's (SillyTavern names a World Info file after it), else a plain one.
    const name = cleanName(read.book.name ?? '') || cleanName(fallbackName) || 'Lorebook'
    const row = await repo.insert(ownerId, name, { ...read.book, name })
    return { lorebook: summaryOf(row), format: read.format }
  }

  function reading(read: () => ReadLorebook): ReadLorebook {
    try {
      return read()
    } catch (error) {
      throw error instanceof LorebookFileError ? fileErrorToAppError(error) : error
    }
  }

  return {
    /** An uploaded World Info, V3 lorebook or `character_book` file, stored as the user's. */
    async importFile(ownerId: string, bytes: Buffer, fileName: string | undefined): Promise<LorebookImportResult> {
      return store(
        ownerId,
        reading(() => readLorebookFile(bytes)),
        stem(fileName),
      )
    },

    /** The same, sent as a JSON body; `name` names a book that has none. */
    async importJson(ownerId: string, value: unknown, name: string | undefined): Promise<LorebookImportResult> {
      return store(
        ownerId,
        reading(() => readLorebookValue(value)),
        name ?? '',
      )
    },

    async listMine(ownerId: string, page: number, pageSize: number): Promise<MyLorebooks> {
      const { rows, total } = await repo.listOwnedBy(ownerId, page, pageSize)
      return {
        items: rows.map(summaryOf),
        page,
        pageSize,
        total,
        totalPages: Math.max(1, Math.ceil(total / pageSize)),
      }
    },

    async get(ownerId: string, id: string): Promise<LorebookDetail> {
      const row = await repo.findOwned(ownerId, id)
      if (!row) throw notFound()
      return { ...summaryOf(row), book: row.book }
    },

    async rename(ownerId: string, id: string, name: string): Promise<LorebookSummary> {
      const clean = cleanName(name)
      if (!clean) throw AppError.badRequest('A lorebook needs a name', [{ path: 'name', code: 'required' }])
      const row = await repo.rename(ownerId, id, clean)
      if (!row) throw notFound()
      return summaryOf(row)
    },

    async delete(ownerId: string, id: string): Promise<void> {
      if (!(await repo.delete(ownerId, id))) throw notFound()
    },

    /** The book as a V3 lorebook or a SillyTavern World Info file, and the file's name. */
    async export(ownerId: string, id: string, format: LorebookExportFormat) {
      const row = await repo.findOwned(ownerId, id)
      if (!row) throw notFound()
      const file = format === 'v3' ? toLorebookV3(row.book) : toWorldInfo(row.book)
      // SillyTavern names an imported World Info after its file: the plain name is the world's name.
      return { file, fileName: format === 'v3' ? `${row.name}.lorebook.json` : `${row.name}.json` }
    },

    /** The books attached to one of the user's characters, in order. */
    async attachedTo(ownerId: string, rolePublicId: string): Promise<AttachedLorebooks> {
      const roleId = await characters.ownRoleId(ownerId, rolePublicId)
      return { lorebooks: (await repo.attachedTo(roleId)).map(summaryOf) }
    },

    /** Attaches exactly `ids` (the user's own books, in that order) to one of the user's characters. */
    async setAttached(ownerId: string, rolePublicId: string, ids: string[]): Promise<AttachedLorebooks> {
      const roleId = await characters.ownRoleId(ownerId, rolePublicId)
      const unique = [...new Set(ids)]
      const owned = await repo.ownedAmong(ownerId, unique)
      // Someone else's book does not exist for this user, like a missing one.
      if (unique.some((id) => !owned.has(id))) throw notFound()
      await repo.setAttached(roleId, unique)
      return { lorebooks: (await repo.attachedTo(roleId)).map(summaryOf) }
    },
  }
}

export type LorebooksService = ReturnType<typeof createLorebooksService>
