// Over 400 lines for a reason: one reader per Character Card field family (V1, V2, V3 data, the
// lorebook, assets, multilingual texts; the languages in card-languages.ts) sharing one report of what was repaired or ignored; split
// apart they would pass that report and the limits through every file. Readers only, no rules of
// the product: what a draft becomes is decided in characters/card-mapping.ts.
import { DEFAULT_LOCALE, type Locale } from '#contracts/locales.ts'
import { fieldsOutside } from '#server/lib/other-fields.ts'
import { readCardLanguages } from './card-languages.ts'
import {
  CARD_LIMITS,
  type CardAsset,
  CardError,
  type CardVersion,
  type CharacterBook,
  type CharacterDraft,
  type IgnoredReason,
  type ImportReport,
  type LorebookEntry,
  type RepairReason,
} from './card-types.ts'

/**
 * Turns a parsed card JSON (any version) into a CharacterDraft, repairing what real cards get
 * wrong and writing each repair into the report. Limits throw CardError `too_large`.
 */

type Json = Record<string, unknown>

export class Report {
  readonly repaired = new Set<string>()
  readonly ignored = new Set<string>()

  repair(reason: RepairReason, path?: string) {
    this.repaired.add(path === undefined ? reason : `${reason}:${path}`)
  }
  ignore(reason: IgnoredReason, path?: string) {
    this.ignored.add(path === undefined ? reason : `${reason}:${path}`)
  }
  toJSON(): ImportReport {
    return { repaired: [...this.repaired], ignored: [...this.ignored] }
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function tooLarge(path: string, limit: number): CardError {
  return new CardError('too_large', `The card field ${path} is over the limit`, { field: path, limit })
}

function checkLength(text: string, path: string): string {
  if (text.length > CARD_LIMITS.maxFieldChars) throw tooLarge(path, CARD_LIMITS.maxFieldChars)
  return text
}

/**
 * Every text of the card passes here: NUL characters are removed (PostgreSQL refuses them in text
 * and JSON, and no writer means them), reported with the field's path, then the length is checked.
 */
function cleanText(text: string, path: string, report: Report): string {
  if (!text.includes('\0')) return checkLength(text, path)
  report.repair('nul_removed', path)
  return checkLength(text.replaceAll('\0', ''), path)
}

type Presence = 'required' | 'optional'

/** Text, or undefined when absent/unusable and optional. */
function readText(src: Json, key: string, path: string, report: Report, presence: 'optional'): string | undefined
function readText(src: Json, key: string, path: string, report: Report, presence: 'required'): string
function readText(src: Json, key: string, path: string, report: Report, presence: Presence): string | undefined {
  const value = src[key]
  if (typeof value === 'string') return cleanText(value, path, report)
  if (typeof value === 'number' || typeof value === 'boolean') {
    report.repair('number_as_string', path)
    return checkLength(String(value), path)
  }
  if (value === undefined) {
    if (presence === 'required') report.repair('missing_field', path)
  } else if (value === null) {
    if (presence === 'required') report.repair('null_field', path)
  } else {
    report.ignore('wrong_type', path)
  }
  return presence === 'required' ? '' : undefined
}

function readTextList(
  src: Json,
  key: string,
  path: string,
  report: Report,
  options: { presence: Presence; splitCommas: boolean },
): string[] | undefined {
  const value = src[key]
  let items: unknown[]
  if (Array.isArray(value)) {
    items = value
  } else if (typeof value === 'string') {
    report.repair('string_as_list', path)
    items = options.splitCommas ? value.split(',').map((s) => s.trim()) : [value]
    items = items.filter((s) => s !== '')
  } else {
    if (value === undefined) {
      if (options.presence === 'required') report.repair('missing_field', path)
    } else if (value === null) {
      if (options.presence === 'required') report.repair('null_field', path)
    } else {
      report.ignore('wrong_type', path)
    }
    return options.presence === 'required' ? [] : undefined
  }
  if (items.length > CARD_LIMITS.maxListItems) throw tooLarge(path, CARD_LIMITS.maxListItems)
  const out: string[] = []
  for (const item of items) {
    if (typeof item === 'string') out.push(cleanText(item, `${path}[]`, report))
    else if (typeof item === 'number' || typeof item === 'boolean') {
      report.repair('number_as_string', `${path}[]`)
      out.push(String(item))
    } else report.ignore('wrong_type', `${path}[]`)
  }
  return out
}

function readNumber(src: Json, key: string, path: string, report: Report): number | undefined {
  const value = src[key]
  if (typeof value === 'number' && Number.isFinite(value)) return value
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) {
    report.repair('string_as_number', path)
    return Number(value)
  }
  if (value !== undefined && value !== null) report.ignore('wrong_type', path)
  return undefined
}

function readBoolean(src: Json, key: string, path: string, report: Report): boolean | undefined {
  const value = src[key]
  if (typeof value === 'boolean') return value
  if (value === 'true' || value === 'false') {
    report.repair('string_as_boolean', path)
    return value === 'true'
  }
  if (value !== undefined && value !== null) report.ignore('wrong_type', path)
  return undefined
}

/**
 * A copy of a JSON value with every branch nested deeper than maxExtensionsDepth left out (each
 * reported with its path: only that branch goes, not its siblings) and NUL characters removed
 * from texts and keys. Recursion stops at the limit, so even a hostile nesting costs no stack.
 * `depth` is the value's own level: an `extensions` object is level 1.
 */
function pruneJson(value: unknown, path: string, report: Report, depth = 1): unknown {
  if (typeof value === 'string') return value.includes('\0') ? cleanText(value, path, report) : value
  if (typeof value !== 'object' || value === null) return value
  if (depth > CARD_LIMITS.maxExtensionsDepth) {
    report.ignore('extensions_too_deep', path)
    return TOO_DEEP
  }
  if (Array.isArray(value)) {
    const items: unknown[] = []
    for (const item of value) {
      const kept = pruneJson(item, `${path}[]`, report, depth + 1)
      if (kept !== TOO_DEEP) items.push(kept)
    }
    return items
  }
  const entries: [string, unknown][] = []
  for (const [rawKey, item] of Object.entries(value)) {
    let key = rawKey
    if (key.includes('\0')) {
      report.repair('nul_removed', `${path}.${key.replaceAll('\0', '')}`)
      key = key.replaceAll('\0', '')
    }
    const kept = pruneJson(item, `${path}.${key}`, report, depth + 1)
    if (kept !== TOO_DEEP) entries.push([key, kept])
  }
  // fromEntries defines own properties, so a `__proto__` key stays a plain key.
  return Object.fromEntries(entries)
}
const TOO_DEEP = Symbol('too deep')

function readExtensions(src: Json, key: string, path: string, report: Report, presence: Presence): Json {
  const value = src[key]
  if (isObject(value)) return pruneJson(value, path, report) as Json
  if (value === undefined) {
    if (presence === 'required') report.repair('missing_field', path)
  } else if (value === null) {
    if (presence === 'required') report.repair('null_field', path)
  } else report.ignore('wrong_type', path)
  return {}
}

/** How much room is left for fields outside the spec (CARD_LIMITS.maxOtherFieldsBytes), shared by a card's parts. */
type OtherFieldsBudget = { bytesLeft: number }
const otherFieldsBudget = (): OtherFieldsBudget => ({ bytesLeft: CARD_LIMITS.maxOtherFieldsBytes })

/**
 * The fields of `src` outside `known` (`fieldsOutside`, lib/other-fields.ts), kept as they are (pruned like extensions) while they fit
 * the budget; one that does not fit is left out and reported `unknown_field`. Undefined when none.
 */
function otherFieldsOf(
  src: Json,
  known: readonly string[],
  prefix: string,
  report: Report,
  budget: OtherFieldsBudget,
): Json | undefined {
  const entries: [string, unknown][] = []
  for (const [key, value] of Object.entries(fieldsOutside(src, new Set(known)))) {
    const cleanKey = key.replaceAll('\0', '')
    if (cleanKey !== key) report.repair('nul_removed', `${prefix}${cleanKey}`)
    const kept = pruneJson(value, `${prefix}${cleanKey}`, report)
    if (kept === TOO_DEEP || kept === undefined) continue
    const bytes = Buffer.byteLength(JSON.stringify(kept)) + Buffer.byteLength(cleanKey) + 4
    if (bytes > budget.bytesLeft) {
      report.ignore('unknown_field', `${prefix}${cleanKey}`)
      continue
    }
    budget.bytesLeft -= bytes
    entries.push([cleanKey, kept])
  }
  return entries.length > 0 ? Object.fromEntries(entries) : undefined
}

/** Lists of records may come as objects keyed by id (SillyTavern world info); anything else is unusable. */
function readRecordList(value: unknown, path: string, report: Report, limit: number): unknown[] | undefined {
  let items: unknown[] | undefined
  if (Array.isArray(value)) items = value
  else if (isObject(value)) {
    report.repair('object_as_list', path)
    items = Object.values(value)
  } else return undefined
  if (items.length > limit) throw tooLarge(path, limit)
  return items
}

function assign<T extends object, K extends keyof T>(target: T, key: K, value: T[K] | undefined) {
  if (value !== undefined) target[key] = value
}

const ENTRY_FIELDS = [
  'keys',
  'secondary_keys',
  'content',
  'enabled',
  'insertion_order',
  'use_regex',
  'case_sensitive',
  'constant',
  'selective',
  'name',
  'comment',
  'priority',
  'id',
  'position',
  'extensions',
]
const BOOK_FIELDS = ['name', 'description', 'scan_depth', 'token_budget', 'recursive_scanning', 'extensions', 'entries']

function readEntry(raw: Json, at: string, report: Report, budget: OtherFieldsBudget): LorebookEntry {
  const p = (key: string) => `${at}.${key}`
  const keys = readTextList(raw, 'keys', p('keys'), report, { presence: 'required', splitCommas: true }) ?? []
  const secondaryKeys =
    readTextList(raw, 'secondary_keys', p('secondary_keys'), report, { presence: 'optional', splitCommas: true }) ?? []
  let enabled = readBoolean(raw, 'enabled', p('enabled'), report)
  if (enabled === undefined) {
    report.repair(raw.enabled === null ? 'null_field' : 'missing_field', p('enabled'))
    enabled = true
  }
  let insertionOrder = readNumber(raw, 'insertion_order', p('insertion_order'), report)
  if (insertionOrder === undefined) {
    report.repair(raw.insertion_order === null ? 'null_field' : 'missing_field', p('insertion_order'))
    insertionOrder = 100
  }
  const entry: LorebookEntry = {
    keys,
    secondaryKeys,
    content: readText(raw, 'content', p('content'), report, 'required'),
    enabled,
    insertionOrder,
    useRegex: readBoolean(raw, 'use_regex', p('use_regex'), report) ?? false,
    extensions: readExtensions(raw, 'extensions', p('extensions'), report, 'required'),
  }
  assign(entry, 'caseSensitive', readBoolean(raw, 'case_sensitive', p('case_sensitive'), report))
  assign(entry, 'constant', readBoolean(raw, 'constant', p('constant'), report))
  assign(entry, 'selective', readBoolean(raw, 'selective', p('selective'), report))
  assign(entry, 'name', readText(raw, 'name', p('name'), report, 'optional'))
  assign(entry, 'comment', readText(raw, 'comment', p('comment'), report, 'optional'))
  assign(entry, 'priority', readNumber(raw, 'priority', p('priority'), report))
  if (typeof raw.id === 'number') entry.id = raw.id
  else if (typeof raw.id === 'string') entry.id = cleanText(raw.id, p('id'), report)
  else if (raw.id !== undefined && raw.id !== null) report.ignore('wrong_type', p('id'))
  if (raw.position === 'before_char' || raw.position === 'after_char') entry.position = raw.position
  else if (raw.position === 0 || raw.position === 1) {
    // SillyTavern writes its world-info position numbers here.
    report.repair('string_as_number', p('position'))
    entry.position = raw.position === 0 ? 'before_char' : 'after_char'
  } else if (raw.position !== undefined && raw.position !== null && raw.position !== '') {
    report.ignore('wrong_type', p('position'))
  }
  assign(entry, 'otherFields', otherFieldsOf(raw, ENTRY_FIELDS, `${at}.`, report, budget))
  return entry
}

/**
 * A V2/V3 `character_book` object (a card's, or a standalone V3 lorebook's) -> our lorebook,
 * with the same repairs, limits and report as a card's; `path` prefixes the report's paths
 * (`character_book` in a card). Fields outside the spec, of the book and of each entry, are
 * kept in `otherFields` while they fit CARD_LIMITS.maxOtherFieldsBytes together. Throws
 * CardError `too_large`.
 */
export function normalizeCharacterBook(value: Json, report: Report, path = 'character_book'): CharacterBook {
  const budget = otherFieldsBudget()
  const book: CharacterBook = {
    extensions: readExtensions(value, 'extensions', `${path}.extensions`, report, 'required'),
    entries: [],
  }
  assign(book, 'name', readText(value, 'name', `${path}.name`, report, 'optional'))
  assign(book, 'description', readText(value, 'description', `${path}.description`, report, 'optional'))
  assign(book, 'scanDepth', readNumber(value, 'scan_depth', `${path}.scan_depth`, report))
  assign(book, 'tokenBudget', readNumber(value, 'token_budget', `${path}.token_budget`, report))
  assign(book, 'recursiveScanning', readBoolean(value, 'recursive_scanning', `${path}.recursive_scanning`, report))
  const entries = `${path}.entries`
  const rawEntries = readRecordList(value.entries, entries, report, CARD_LIMITS.maxLorebookEntries)
  if (rawEntries === undefined) {
    report.repair(value.entries === null ? 'null_field' : 'missing_field', entries)
  } else {
    for (const raw of rawEntries) {
      if (isObject(raw)) book.entries.push(readEntry(raw, `${entries}[]`, report, budget))
      else report.ignore('wrong_type', `${entries}[]`)
    }
  }
  assign(book, 'otherFields', otherFieldsOf(value, BOOK_FIELDS, `${path}.`, report, budget))
  return book
}

function readBook(src: Json, report: Report): CharacterBook | null {
  const value = src.character_book
  if (value === undefined) return null
  if (value === null) {
    report.repair('null_field', 'character_book')
    return null
  }
  if (!isObject(value)) {
    report.ignore('wrong_type', 'character_book')
    return null
  }
  return normalizeCharacterBook(value, report)
}

function readAssets(src: Json, report: Report): CardAsset[] {
  const items = readRecordList(src.assets, 'assets', report, CARD_LIMITS.maxListItems)
  if (items === undefined) {
    if (src.assets !== undefined && src.assets !== null) report.ignore('wrong_type', 'assets')
    return []
  }
  const assets: CardAsset[] = []
  for (const raw of items) {
    if (!isObject(raw) || typeof raw.type !== 'string' || typeof raw.uri !== 'string') {
      report.ignore('wrong_type', 'assets[]')
      continue
    }
    assets.push({
      type: cleanText(raw.type, 'assets[].type', report),
      uri: cleanText(raw.uri, 'assets[].uri', report),
      name: readText(raw, 'name', 'assets[].name', report, 'required'),
      ext: readText(raw, 'ext', 'assets[].ext', report, 'optional') ?? 'unknown',
    })
  }
  return assets
}

function readMultilingual(src: Json, report: Report): Record<string, string> | undefined {
  const value = src.creator_notes_multilingual
  if (value === undefined || value === null) return undefined
  if (!isObject(value)) {
    report.ignore('wrong_type', 'creator_notes_multilingual')
    return undefined
  }
  const notes: Record<string, string> = {}
  for (const [language, text] of Object.entries(value)) {
    if (typeof text === 'string') {
      notes[language.replaceAll('\0', '')] = cleanText(text, `creator_notes_multilingual.${language}`, report)
    } else report.ignore('wrong_type', `creator_notes_multilingual.${language}`)
  }
  return notes
}

const ADULT_TAG = /^(nsfw|adult|18\+|r-?18|explicit)$/i

function emptyDraft(): CharacterDraft {
  return {
    name: '',
    description: '',
    personality: '',
    scenario: '',
    firstMessage: '',
    alternateGreetings: [],
    groupOnlyGreetings: [],
    exampleDialogue: '',
    systemPrompt: '',
    postHistoryInstructions: '',
    creatorNotes: '',
    sourceLanguage: DEFAULT_LOCALE,
    translations: {},
    tags: [],
    creator: '',
    characterVersion: '',
    nsfw: false,
    characterBook: null,
    extensions: {},
    assets: [],
    files: [],
    avatar: null,
  }
}

/** The six fields of V1, which V2/V3 exports also repeat at the top level. */
const V1_FIELDS = ['name', 'description', 'personality', 'scenario', 'first_mes', 'mes_example'] as const
/** Pre-V1 names (TavernAI, Pygmalion) of the same fields. */
const LEGACY_NAMES: Record<(typeof V1_FIELDS)[number], string> = {
  name: 'char_name',
  description: 'char_persona',
  personality: 'personality',
  scenario: 'world_scenario',
  first_mes: 'char_greeting',
  mes_example: 'example_dialogue',
}

const V2_DATA_FIELDS = [
  ...V1_FIELDS,
  'creator_notes',
  'system_prompt',
  'post_history_instructions',
  'alternate_greetings',
  'character_book',
  'tags',
  'creator',
  'character_version',
  'extensions',
]
const V3_DATA_FIELDS = [
  ...V2_DATA_FIELDS,
  'assets',
  'nickname',
  'creator_notes_multilingual',
  'source',
  'group_only_greetings',
  'creation_date',
  'modification_date',
]

function readV1Fields(src: Json, draft: CharacterDraft, report: Report, fallback?: Json) {
  const text = (key: (typeof V1_FIELDS)[number]) => {
    const legacy = LEGACY_NAMES[key]
    if (src[key] === undefined && src[legacy] !== undefined) {
      report.repair('legacy_field', legacy)
      return readText(src, legacy, key, report, 'required')
    }
    if (src[key] === undefined && fallback && typeof fallback[key] === 'string') {
      report.repair('legacy_field', key)
      return readText(fallback, key, key, report, 'required')
    }
    return readText(src, key, key, report, 'required')
  }
  draft.name = text('name')
  draft.description = text('description')
  draft.personality = text('personality')
  draft.scenario = text('scenario')
  draft.firstMessage = text('first_mes')
  draft.exampleDialogue = text('mes_example')
}

function readDataFields(
  data: Json,
  draft: CharacterDraft,
  report: Report,
  top: Json,
  version: 'v2' | 'v3',
  budget: OtherFieldsBudget,
) {
  readV1Fields(data, draft, report, top)
  const required = { presence: 'required', splitCommas: false } as const
  draft.creatorNotes = readText(data, 'creator_notes', 'creator_notes', report, 'required')
  draft.systemPrompt = readText(data, 'system_prompt', 'system_prompt', report, 'required')
  draft.postHistoryInstructions = readText(
    data,
    'post_history_instructions',
    'post_history_instructions',
    report,
    'required',
  )
  draft.alternateGreetings = readTextList(data, 'alternate_greetings', 'alternate_greetings', report, required) ?? []
  draft.tags = readTextList(data, 'tags', 'tags', report, { presence: 'required', splitCommas: true }) ?? []
  draft.creator = readText(data, 'creator', 'creator', report, 'required')
  draft.characterVersion = readText(data, 'character_version', 'character_version', report, 'required')
  draft.extensions = readExtensions(data, 'extensions', 'extensions', report, 'required')
  draft.characterBook = readBook(data, report)
  if (version === 'v3') {
    draft.groupOnlyGreetings =
      readTextList(data, 'group_only_greetings', 'group_only_greetings', report, required) ?? []
    draft.assets = readAssets(data, report)
    assign(draft, 'nickname', readText(data, 'nickname', 'nickname', report, 'optional'))
    assign(draft, 'creatorNotesMultilingual', readMultilingual(data, report))
    assign(
      draft,
      'source',
      readTextList(data, 'source', 'source', report, { presence: 'optional', splitCommas: false }),
    )
    assign(draft, 'creationDate', readNumber(data, 'creation_date', 'creation_date', report))
    assign(draft, 'modificationDate', readNumber(data, 'modification_date', 'modification_date', report))
  }
  const known = version === 'v3' ? V3_DATA_FIELDS : V2_DATA_FIELDS
  assign(draft, 'otherDataFields', otherFieldsOf(data, known, 'data.', report, budget))
}

function detectVersion(card: Json, report: Report): CardVersion {
  const spec = card.spec
  if (spec === 'chara_card_v3') {
    const specVersion = Number.parseFloat(String(card.spec_version))
    if (specVersion > 3) report.repair('newer_spec_version', String(card.spec_version))
    return 'v3'
  }
  if (spec === 'chara_card_v2') return 'v2'
  if (typeof spec === 'string') {
    const newer = /^chara_card_v(\d+)$/.exec(spec)
    if (newer && Number(newer[1]) > 3 && isObject(card.data)) {
      report.repair('newer_spec_version', spec)
      return 'v3'
    }
    throw new CardError('unsupported', `Cards of spec ${spec} are not read`, { spec })
  }
  if (isObject(card.data)) {
    report.repair('missing_spec')
    return 'v2'
  }
  const v1Keys = [...V1_FIELDS, ...Object.values(LEGACY_NAMES)]
  if (v1Keys.some((key) => typeof card[key] === 'string')) return 'v1'
  throw new CardError('not_a_card', 'The JSON holds no character')
}

function stem(filename: string): string {
  const base = filename.split(/[/\\]/).pop() ?? ''
  return base.replace(/\.[^.]*$/, '').trim()
}

/**
 * What the importer tells about a card: its file name (for a card without a name) and the
 * importer's language (for a card that does not say which language its texts are in).
 */
export type CardHints = { filename?: string | undefined; language?: Locale | undefined }

/** A parsed card JSON value -> draft (without avatar), version and report. */
export function normalizeCard(
  value: unknown,
  report: Report,
  { filename, language = DEFAULT_LOCALE }: CardHints = {},
): { draft: CharacterDraft; version: CardVersion } {
  if (!isObject(value)) throw new CardError('not_a_card', 'The JSON is not an object')
  const version = detectVersion(value, report)
  const draft = emptyDraft()
  // Fields outside the spec travel back out as they came (the card's and its data's share a budget).
  const budget = otherFieldsBudget()
  if (version === 'v1') {
    readV1Fields(value, draft, report)
    const known = [...V1_FIELDS, ...Object.values(LEGACY_NAMES)]
    assign(draft, 'otherCardFields', otherFieldsOf(value, known, '', report, budget))
  } else {
    const data = isObject(value.data) ? value.data : {}
    if (!isObject(value.data)) report.repair('missing_field', 'data')
    readDataFields(data, draft, report, value, version, budget)
    const known = ['spec', 'spec_version', 'data', ...V1_FIELDS]
    assign(draft, 'otherCardFields', otherFieldsOf(value, known, '', report, budget))
  }
  if (draft.name.trim() === '' && filename && stem(filename) !== '') {
    draft.name = cleanText(stem(filename), 'name', report)
    report.repair('name_from_filename')
  }
  // `nsfw` is the one extension we understand: lifted into the draft, written back on export.
  if (typeof draft.extensions.nsfw === 'boolean') {
    const { nsfw, ...rest } = draft.extensions
    draft.extensions = rest
    draft.nsfw = nsfw === true
  }
  if (draft.tags.some((tag) => ADULT_TAG.test(tag.trim()))) draft.nsfw = true
  readCardLanguages(draft, report, language)
  return { draft, version }
}
