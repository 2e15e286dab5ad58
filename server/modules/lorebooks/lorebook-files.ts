import {
  LOREBOOK_LIMITS,
  type LorebookFormat,
  type LorebookImportError,
  type StoredLorebook,
} from '#contracts/lorebooks.ts'
import { addOtherFields, fieldsOutside, putField } from '#server/lib/other-fields.ts'

/**
 * Lorebook files in and out (ADR 043): SillyTavern World Info (`{ entries: { "0": { uid, key, ... } } }`),
 * V3 lorebooks (`{ spec: 'lorebook_v3', data }`) and bare V2/V3 `character_book` objects, read into
 * the card lorebook shape the chat uses (our field names), and written back as V3 or World Info.
 *
 * Nothing a file brings is lost. Card fields map to ours; SillyTavern's World Info fields that a
 * card has no place for go into the entry's `extensions` under the names SillyTavern itself uses
 * when it embeds World Info into a card (`exclude_recursion`, `selectiveLogic`, `probability`...),
 * so a V3 export reads in SillyTavern as its own card lorebook does; every other field (of the
 * file, of the book or of an entry) stays on the object under its own name and goes out again
 * (taken aside and written back by lib/other-fields.ts, as a card's are).
 */

type Json = Record<string, unknown>
type Entry = StoredLorebook['entries'][number]

export class LorebookFileError extends Error {
  readonly code: LorebookImportError
  readonly details: { field?: string; limit?: number } | undefined

  constructor(code: LorebookImportError, message: string, details?: { field?: string; limit?: number }) {
    super(message)
    this.name = 'LorebookFileError'
    this.code = code
    this.details = details
  }
}

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

const tooLarge = (field: string, limit: number) =>
  new LorebookFileError('too_large', `The lorebook's ${field} is over the limit`, { field, limit })

/** Deepest nesting, walked without recursion: PostgreSQL and JSON.stringify both stop somewhere. */
const MAX_DEPTH = 100
function checkDepth(value: unknown) {
  const stack: [unknown, number][] = [[value, 1]]
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number]
    if (typeof current !== 'object' || current === null) continue
    if (depth > MAX_DEPTH) throw tooLarge('nesting', MAX_DEPTH)
    for (const child of Object.values(current)) stack.push([child, depth + 1])
  }
}

function text(value: unknown, field: string): string | undefined {
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  if (typeof value !== 'string') return undefined
  if (value.length > LOREBOOK_LIMITS.fieldChars) throw tooLarge(field, LOREBOOK_LIMITS.fieldChars)
  return value
}

function textList(value: unknown, field: string): string[] | undefined {
  let items: unknown[]
  if (Array.isArray(value)) items = value
  else if (typeof value === 'string') {
    items = value
      .split(',')
      .map((key) => key.trim())
      .filter((key) => key !== '')
  } else return undefined
  if (items.length > LOREBOOK_LIMITS.keys) throw tooLarge(field, LOREBOOK_LIMITS.keys)
  return items.map((item) => text(item, field)).filter((item): item is string => item !== undefined)
}

function number(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value)
  return undefined
}

function boolean(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value
  if (value === 'true' || value === 'false') return value === 'true'
  return undefined
}

function set<T extends object, K extends keyof T>(target: T, key: K, value: T[K] | undefined) {
  if (value !== undefined) target[key] = value
}

/**
 * The card spec's fields (V2 `character_book`, V3 `lorebook_v3`) under our names -> their card names,
 * in the order a card writes them. A book's `extensions` and `entries` are written apart.
 */
const CARD_BOOK_NAMES = {
  name: 'name',
  description: 'description',
  scanDepth: 'scan_depth',
  tokenBudget: 'token_budget',
  recursiveScanning: 'recursive_scanning',
} as const
const CARD_ENTRY_NAMES = {
  keys: 'keys',
  secondaryKeys: 'secondary_keys',
  content: 'content',
  enabled: 'enabled',
  insertionOrder: 'insertion_order',
  useRegex: 'use_regex',
  caseSensitive: 'case_sensitive',
  constant: 'constant',
  selective: 'selective',
  name: 'name',
  comment: 'comment',
  priority: 'priority',
  id: 'id',
  position: 'position',
  extensions: 'extensions',
} as const

/** Our own names on a book and an entry: a field of a file under one of these names cannot be kept aside. */
const BOOK_KEYS = new Set([...Object.keys(CARD_BOOK_NAMES), 'extensions', 'entries'])
const ENTRY_KEYS = new Set(Object.keys(CARD_ENTRY_NAMES))

// --- Character Card lorebooks (V2 `character_book`, V3 `lorebook_v3`) ---------------------------

const CARD_BOOK_FIELDS = new Set([...Object.values(CARD_BOOK_NAMES), 'extensions', 'entries'])
const CARD_ENTRY_FIELDS = new Set(Object.values(CARD_ENTRY_NAMES))

function positionOf(value: unknown): Entry['position'] {
  if (value === 'before_char' || value === 'after_char') return value
  // SillyTavern's World Info numbers in a card field: 0 is before the character, the rest after.
  if (typeof value === 'number') return value === 0 ? 'before_char' : 'after_char'
  return undefined
}

/** The optional entry fields both kinds of file name alike (`caseSensitive` comes under `caseSensitiveField`). */
function readOptionalEntryFields(raw: Json, entry: Entry, caseSensitiveField: string) {
  set(entry, 'caseSensitive', boolean(raw[caseSensitiveField]))
  set(entry, 'constant', boolean(raw.constant))
  set(entry, 'selective', boolean(raw.selective))
  set(entry, 'name', text(raw.name, 'entries.name'))
  set(entry, 'comment', text(raw.comment, 'entries.comment'))
  set(entry, 'priority', number(raw.priority))
}

function readCardEntry(raw: Json): Entry {
  const entry: Entry = {
    keys: textList(raw.keys, 'entries.keys') ?? [],
    secondaryKeys: textList(raw.secondary_keys, 'entries.secondary_keys') ?? [],
    content: text(raw.content, 'entries.content') ?? '',
    enabled: boolean(raw.enabled) ?? true,
    insertionOrder: number(raw.insertion_order) ?? 100,
    useRegex: boolean(raw.use_regex) ?? false,
    extensions: isObject(raw.extensions) ? raw.extensions : {},
  }
  readOptionalEntryFields(raw, entry, 'case_sensitive')
  if (typeof raw.id === 'number' || typeof raw.id === 'string') entry.id = raw.id
  set(entry, 'position', positionOf(raw.position))
  addOtherFields(entry, fieldsOutside(raw, CARD_ENTRY_FIELDS, ENTRY_KEYS))
  return entry
}

function entriesOf(value: unknown): unknown[] {
  const list = Array.isArray(value) ? value : isObject(value) ? Object.values(value) : []
  if (list.length > LOREBOOK_LIMITS.entries) throw tooLarge('entries', LOREBOOK_LIMITS.entries)
  return list
}

/** A book's fields (card names in both kinds of file) with its entries read by `readEntry`; `mapped` are the file's fields read here. */
function readBook(raw: Json, readEntry: (raw: Json) => Entry, mapped: ReadonlySet<string>): StoredLorebook {
  const book: StoredLorebook = {
    extensions: isObject(raw.extensions) ? raw.extensions : {},
    entries: entriesOf(raw.entries).filter(isObject).map(readEntry),
  }
  set(book, 'name', text(raw.name, 'name'))
  set(book, 'description', text(raw.description, 'description'))
  set(book, 'scanDepth', number(raw.scan_depth))
  set(book, 'tokenBudget', number(raw.token_budget))
  set(book, 'recursiveScanning', boolean(raw.recursive_scanning))
  addOtherFields(book, fieldsOutside(raw, mapped, BOOK_KEYS))
  return book
}

const readCardBook = (raw: Json) => readBook(raw, readCardEntry, CARD_BOOK_FIELDS)

/** `source`'s fields named in `names` (ours -> theirs) onto `out` under their names, the undefined ones left out. */
function writeNamed(source: object, names: Readonly<Record<string, string>>, out: Json) {
  for (const [ours, theirs] of Object.entries(names)) {
    const value = (source as Json)[ours]
    if (value !== undefined) out[theirs] = value
  }
}

function writeCardEntry(entry: Entry): Json {
  const out: Json = {}
  writeNamed(entry, CARD_ENTRY_NAMES, out)
  addOtherFields(out, fieldsOutside(entry, ENTRY_KEYS, CARD_ENTRY_FIELDS))
  return out
}

/** The book as a card's `character_book` (V2 and V3 share the shape). */
export function toCharacterBook(book: StoredLorebook): Json {
  const out: Json = {}
  writeNamed(book, CARD_BOOK_NAMES, out)
  out.extensions = book.extensions
  out.entries = book.entries.map(writeCardEntry)
  addOtherFields(out, fieldsOutside(book, BOOK_KEYS, CARD_BOOK_FIELDS))
  return out
}

/** The V3 spec's standalone lorebook file. */
export function toLorebookV3(book: StoredLorebook): Json {
  return { spec: 'lorebook_v3', data: toCharacterBook(book) }
}

// --- SillyTavern World Info ----------------------------------------------------------------------

/**
 * World Info entry fields that SillyTavern keeps in a card entry's `extensions` when it embeds a
 * World Info file into a card (`convertWorldInfoToCharacterBook`), and reads back from there
 * (`convertCharacterBook`): World Info name -> extensions name.
 */
const WORLD_INFO_EXTENSIONS: Record<string, string> = {
  excludeRecursion: 'exclude_recursion',
  displayIndex: 'display_index',
  probability: 'probability',
  useProbability: 'useProbability',
  depth: 'depth',
  selectiveLogic: 'selectiveLogic',
  group: 'group',
  groupOverride: 'group_override',
  groupWeight: 'group_weight',
  preventRecursion: 'prevent_recursion',
  delayUntilRecursion: 'delay_until_recursion',
  scanDepth: 'scan_depth',
  matchWholeWords: 'match_whole_words',
  useGroupScoring: 'use_group_scoring',
  automationId: 'automation_id',
  role: 'role',
  vectorized: 'vectorized',
  sticky: 'sticky',
  cooldown: 'cooldown',
  delay: 'delay',
}
const EXTENSION_OF_WORLD_INFO = new Map(Object.entries(WORLD_INFO_EXTENSIONS).map(([wi, ext]) => [ext, wi]))

/**
 * World Info entry fields with a card field of their own. `position` and `caseSensitive` also stay
 * in `extensions` as SillyTavern puts them (`position` has more values than a card's two); `name`,
 * `priority`, `use_regex`, `id` and `extensions` are the card fields World Info has no place for,
 * written by our World Info export (read back here, ignored by SillyTavern).
 */
const WORLD_INFO_MAPPED = new Set([
  'uid',
  'key',
  'keysecondary',
  'comment',
  'content',
  'constant',
  'selective',
  'order',
  'disable',
  'position',
  'caseSensitive',
  'name',
  'priority',
  'use_regex',
  'id',
  'extensions',
  ...Object.keys(WORLD_INFO_EXTENSIONS),
])
/** Book-level fields of our World Info export beside `entries`: a card book's (SillyTavern keeps what it does not know). */
const WORLD_INFO_BOOK_MAPPED = CARD_BOOK_FIELDS

/** A key written as a regular expression the SillyTavern way, `/pattern/flags`. */
const SLASH_REGEX = /^\/.+\/[a-z]*$/s
const regexKeys = (keys: readonly string[]) => keys.some((key) => SLASH_REGEX.test(key))

function readWorldInfoEntry(raw: Json): Entry {
  const keys = textList(raw.key, 'entries.key') ?? []
  const extensions: Json = isObject(raw.extensions) ? { ...raw.extensions } : {}
  for (const [field, name] of Object.entries(WORLD_INFO_EXTENSIONS)) {
    if (raw[field] !== undefined) putField(extensions, name, raw[field])
  }
  if (raw.position !== undefined) extensions.position = raw.position
  if (raw.caseSensitive !== undefined) extensions.case_sensitive = raw.caseSensitive
  const entry: Entry = {
    keys,
    secondaryKeys: textList(raw.keysecondary, 'entries.keysecondary') ?? [],
    content: text(raw.content, 'entries.content') ?? '',
    enabled: boolean(raw.disable) !== true,
    insertionOrder: number(raw.order) ?? 100,
    useRegex: boolean(raw.use_regex) ?? regexKeys(keys),
    extensions,
  }
  readOptionalEntryFields(raw, entry, 'caseSensitive')
  const id = raw.id ?? raw.uid
  if (typeof id === 'number' || typeof id === 'string') entry.id = id
  set(entry, 'position', positionOf(raw.position))
  addOtherFields(entry, fieldsOutside(raw, WORLD_INFO_MAPPED, ENTRY_KEYS))
  return entry
}

const readWorldInfo = (raw: Json) => readBook(raw, readWorldInfoEntry, WORLD_INFO_BOOK_MAPPED)

function writeWorldInfoEntry(entry: Entry, uid: number): Json {
  const ext = entry.extensions
  const out: Json = {
    uid,
    key: entry.keys,
    keysecondary: entry.secondaryKeys,
    comment: entry.comment ?? '',
    content: entry.content,
    constant: entry.constant ?? false,
    selective: entry.selective ?? false,
    order: entry.insertionOrder,
    disable: !entry.enabled,
  }
  if (typeof ext.position === 'number') out.position = ext.position
  else if (entry.position !== undefined) out.position = entry.position === 'before_char' ? 0 : 1
  if ('case_sensitive' in ext) out.caseSensitive = ext.case_sensitive
  else if (entry.caseSensitive !== undefined) out.caseSensitive = entry.caseSensitive
  const others: Json = {}
  for (const [name, value] of Object.entries(ext)) {
    const field = EXTENSION_OF_WORLD_INFO.get(name)
    if (field !== undefined) out[field] = value
    else if (name !== 'case_sensitive' && !(name === 'position' && typeof value === 'number'))
      putField(others, name, value)
  }
  // The card fields World Info has no place for, under their card names.
  if (entry.name !== undefined) out.name = entry.name
  if (entry.priority !== undefined) out.priority = entry.priority
  if (entry.useRegex !== regexKeys(entry.keys)) out.use_regex = entry.useRegex
  if (entry.id !== undefined && entry.id !== uid) out.id = entry.id
  if (Object.keys(others).length > 0) out.extensions = others
  // The entry's other fields as they are; one named like a World Info field (`probability` beside
  // a card's spec fields, as some sites write) gives way to that field when it was written above.
  return addOtherFields(out, fieldsOutside(entry, ENTRY_KEYS))
}

/**
 * The book as a SillyTavern World Info file. Entries are keyed by `uid`: the entry's own numeric id
 * when it has one (and no other entry took it), else the first free number.
 */
export function toWorldInfo(book: StoredLorebook): Json {
  const taken = new Set<number>()
  const uids = book.entries.map((entry) => {
    const id = typeof entry.id === 'string' && /^\d+$/.test(entry.id) ? Number(entry.id) : entry.id
    if (typeof id === 'number' && Number.isSafeInteger(id) && id >= 0 && !taken.has(id)) {
      taken.add(id)
      return id
    }
    return null
  })
  let next = 0
  const entries: Json = {}
  book.entries.forEach((entry, index) => {
    let uid = uids[index]
    if (uid === null || uid === undefined) {
      while (taken.has(next)) next++
      uid = next
      taken.add(uid)
    }
    entries[String(uid)] = writeWorldInfoEntry(entry, uid)
  })
  const out: Json = { entries }
  writeNamed(book, CARD_BOOK_NAMES, out)
  if (Object.keys(book.extensions).length > 0) out.extensions = book.extensions
  addOtherFields(out, fieldsOutside(book, BOOK_KEYS, WORLD_INFO_BOOK_MAPPED))
  return out
}

// --- Reading a file ------------------------------------------------------------------------------

const WORLD_INFO_ENTRY_HINTS = ['key', 'keysecondary', 'uid', 'order', 'disable']
const CARD_ENTRY_HINTS = ['keys', 'secondary_keys', 'insertion_order', 'use_regex']

/** Which kind of book `entries` holds, from its entries' field names (an empty one: World Info if keyed, else a card's). */
function bookKind(entries: unknown): 'world_info' | 'character_book' | null {
  const list = Array.isArray(entries) ? entries : isObject(entries) ? Object.values(entries) : null
  if (list === null) return null
  const sample = list.filter(isObject)
  if (sample.some((e) => WORLD_INFO_ENTRY_HINTS.some((k) => k in e))) return 'world_info'
  if (sample.some((e) => CARD_ENTRY_HINTS.some((k) => k in e))) return 'character_book'
  if (list.length === 0) return Array.isArray(entries) ? 'character_book' : 'world_info'
  return null
}

export type ReadLorebook = { book: StoredLorebook; format: LorebookFormat }

/** NUL characters (which PostgreSQL cannot store in text) taken out of every string and key. */
function withoutNul(value: unknown): unknown {
  if (typeof value === 'string') return value.includes('\u0000') ? value.replaceAll('\u0000', '') : value
  if (Array.isArray(value)) return value.map(withoutNul)
  if (!isObject(value)) return value
  const out: Json = {}
  for (const [key, child] of Object.entries(value)) putField(out, key.replaceAll('\u0000', ''), withoutNul(child))
  return out
}

/** A parsed JSON value -> a book, or LorebookFileError. */
export function readLorebookValue(parsed: unknown): ReadLorebook {
  if (!isObject(parsed)) throw new LorebookFileError('not_a_lorebook', 'The JSON is not an object')
  checkDepth(parsed)
  const value = withoutNul(parsed) as Json
  if (typeof value.spec === 'string' && /^chara_card_v\d+$/.test(value.spec)) {
    throw new LorebookFileError('character_card', 'This is a character card, not a lorebook')
  }
  if (typeof value.spec === 'string' && /^lorebook_v\d+$/.test(value.spec)) {
    if (!isObject(value.data) || bookKind(value.data.entries) === null) {
      throw new LorebookFileError('not_a_lorebook', 'The lorebook file holds no entries')
    }
    const book = readCardBook(value.data)
    // The file's own fields beside `spec` and `data` (a newer spec_version, an app's marks) stay too.
    addOtherFields(book, fieldsOutside(value, new Set(['spec', 'data']), BOOK_KEYS))
    return { book, format: 'lorebook_v3' }
  }
  const kind = bookKind(value.entries)
  if (kind === 'world_info') return { book: readWorldInfo(value), format: 'world_info' }
  if (kind === 'character_book') return { book: readCardBook(value), format: 'character_book' }
  if (isObject(value.data) || ['first_mes', 'char_name', 'char_greeting'].some((k) => typeof value[k] === 'string')) {
    throw new LorebookFileError('character_card', 'This is a character card, not a lorebook')
  }
  throw new LorebookFileError('not_a_lorebook', 'The JSON is no lorebook')
}

/** The bytes of an uploaded file -> a book (the file name is not looked at: the bytes say what it is). */
export function readLorebookFile(bytes: Buffer): ReadLorebook {
  if (bytes.length === 0) throw new LorebookFileError('empty_file', 'The file is empty')
  if (bytes.length > LOREBOOK_LIMITS.fileBytes) throw tooLarge('file', LOREBOOK_LIMITS.fileBytes)
  let value: unknown
  try {
    // A byte order mark is allowed (Windows editors write one).
    value = JSON.parse(bytes.toString('utf8').replace(/^\uFEFF/, ''))
  } catch {
    throw new LorebookFileError('bad_json', 'The file is not JSON')
  }
  return readLorebookValue(value)
}
