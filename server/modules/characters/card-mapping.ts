import type { CardExtras, CharacterDraftForm, Lorebook } from '#contracts/characters.ts'
import { cardExtrasSchema } from '#contracts/characters-schemas.ts'
import type { CharacterDraft } from '#server/modules/cards/card-types.ts'

/**
 * How our character's fields and a Character Card's meet. The page's introduction is the card's
 * `creator_notes` (the text shown to people, not sent to the model); the page's details are the
 * card's `description`. Card fields the form does not show travel in `cardExtras`, so an imported
 * card exports as it came in.
 */

/** What a stored character holds, as the export reads it. */
export type CharacterForCard = {
  name: string
  introduction: string
  scenario: string
  personality: string
  description: string
  firstMessage: string
  alternateGreetings: string[]
  exampleDialogue: string
  isAdult: boolean
  /** Tag names (one per tag, in English when it has one). */
  tagNames: string[]
  characterBook: Lorebook | null
  cardExtras: Partial<CardExtras>
  creatorUsername: string | null
  createdAt: Date
}

/** Reads stored card extras leniently: anything malformed becomes the default. */
export function readCardExtras(value: unknown): CardExtras {
  const parsed = cardExtrasSchema.safeParse(value ?? {})
  return parsed.success ? parsed.data : cardExtrasSchema.parse({})
}

export function draftOfCharacter(role: CharacterForCard): CharacterDraft {
  const extras = readCardExtras(role.cardExtras)
  return {
    name: role.name,
    description: role.description,
    personality: role.personality,
    scenario: role.scenario,
    firstMessage: role.firstMessage,
    alternateGreetings: role.alternateGreetings,
    groupOnlyGreetings: extras.groupOnlyGreetings,
    exampleDialogue: role.exampleDialogue,
    systemPrompt: extras.systemPrompt,
    postHistoryInstructions: extras.postHistoryInstructions,
    creatorNotes: role.introduction,
    creatorNotesMultilingual: extras.creatorNotesMultilingual,
    nickname: extras.nickname,
    source: extras.source,
    tags: role.tagNames,
    creator: extras.creator || role.creatorUsername || '',
    characterVersion: extras.characterVersion,
    creationDate: extras.creationDate ?? Math.floor(role.createdAt.getTime() / 1000),
    modificationDate: extras.modificationDate,
    nsfw: role.isAdult,
    characterBook: role.characterBook,
    extensions: extras.extensions,
    assets: extras.assets,
    avatar: null,
  }
}

/** What the form is filled with from an imported card (tags are matched to ours by the service). */
export function formOfDraft(draft: CharacterDraft): Omit<CharacterDraftForm, 'tags'> & { tagNames: string[] } {
  const extras: CardExtras = {
    systemPrompt: draft.systemPrompt,
    postHistoryInstructions: draft.postHistoryInstructions,
    creator: draft.creator,
    characterVersion: draft.characterVersion,
    extensions: draft.extensions,
    groupOnlyGreetings: draft.groupOnlyGreetings,
    assets: draft.assets,
  }
  if (draft.nickname !== undefined) extras.nickname = draft.nickname
  if (draft.source !== undefined) extras.source = draft.source
  if (draft.creatorNotesMultilingual !== undefined) extras.creatorNotesMultilingual = draft.creatorNotesMultilingual
  if (draft.creationDate !== undefined) extras.creationDate = draft.creationDate
  if (draft.modificationDate !== undefined) extras.modificationDate = draft.modificationDate
  return {
    name: draft.name,
    introduction: draft.creatorNotes,
    scenario: draft.scenario,
    personality: draft.personality,
    details: draft.description,
    firstMessage: draft.firstMessage,
    alternateGreetings: draft.alternateGreetings,
    exampleDialogue: draft.exampleDialogue,
    tagNames: draft.tags,
    isAdult: draft.nsfw,
    lorebook: draft.characterBook,
    cardExtras: extras,
  }
}

/** A file name for a download: the character's name in ASCII, or `character`. */
export function fileNameFor(name: string, extension: 'png' | 'json'): string {
  const base = name
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^A-Za-z0-9 _-]+/g, '')
    .trim()
    .replace(/\s+/g, '_')
    .slice(0, 60)
  return `${base || 'character'}.${extension}`
}
