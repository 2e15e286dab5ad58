import { mergeLorebooks } from '#server/modules/lorebooks/merge-lorebooks.ts'
import { countTokens } from '#server/modules/models/tokens.ts'
import type { Character, HistoryMessage } from './prompt.ts'
import type { MemberRow } from './scene-members.repo.ts'
import { escapeRegExp } from './scene-speaker.ts'

/**
 * The prompt of a scene's reply, built for its speaker (ADR 052, docs/prompt.md "Scenes"): the
 * speaker's own card; the other members by their public name and a short part of their public
 * introduction only; the history with every line but the speaker's own named. Pure functions.
 */

/** What the others are told of a member: its public introduction, this long at most. */
export const INTRODUCTION_CHARACTERS = 200

/** The speaker's card, as `characterOf` makes the chat's own (its lorebooks merged). */
export function memberCharacter(member: MemberRow): Character {
  return {
    name: member.name,
    description: member.description,
    personality: member.personality,
    scenario: member.scenario,
    exampleDialogue: member.exampleDialogue,
    systemPrompt: member.systemPrompt ?? '',
    postHistoryInstructions: member.postHistoryInstructions ?? '',
    lorebook: mergeLorebooks(member.characterBook, member.attachedBooks),
  }
}

function shortIntroduction(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  const chars = Array.from(flat)
  return chars.length <= INTRODUCTION_CHARACTERS
    ? flat
    : `${chars.slice(0, INTRODUCTION_CHARACTERS).join('').trimEnd()}…`
}

/**
 * The scene's part of the system prompt: who else is there (public name and introduction only) and
 * that the reply is the speaker's alone. `{{char}}` and `{{user}}` are filled in by the prompt.
 */
export function sceneNote(others: readonly Pick<MemberRow, 'name' | 'introduction'>[]): string {
  if (others.length === 0) return ''
  const lines = others.map((o) => {
    const intro = shortIntroduction(o.introduction)
    return intro ? `- ${o.name}: ${intro}` : `- ${o.name}`
  })
  return [
    '## Also in this scene',
    ...lines,
    `This is a group scene with {{user}} and the characters above. Lines of others are written "Name: text". Write only {{char}}'s next reply, without a name before it; never speak or act for {{user}} or the other characters.`,
  ].join('\n')
}

/**
 * The history as the speaker sees it: its own replies stay its assistant turns; the user's
 * messages and the other characters' replies become named lines ("Name: text") of the user's side,
 * their cost counted with the name.
 */
export function attributedHistory(
  history: readonly HistoryMessage[],
  input: {
    speakerRoleId: number
    speakers: ReadonlyMap<number, number | null>
    names: ReadonlyMap<number, string>
    userName: string
    /** Who wrote a reply with no speaker recorded: the chat's own character. */
    defaultRoleId: number | null
  },
): HistoryMessage[] {
  return history.map((m) => {
    const name =
      m.author === 'user'
        ? input.userName
        : (() => {
            const speaker = input.speakers.get(m.id) ?? input.defaultRoleId
            return speaker === input.speakerRoleId ? null : (input.names.get(speaker ?? -1) ?? '?')
          })()
    if (name === null) return m
    const prefix = `${name}: `
    return { id: m.id, author: 'user', content: prefix + m.content, tokens: m.tokens + countTokens(prefix) }
  })
}

/** The other members' "\nName:" lines, as stop strings: the reply ends where another would speak. */
export function otherNamesStops(others: readonly { name: string }[], userName: string): string[] {
  return [...others.map((o) => `\n${o.name}:`), `\n${userName}:`]
}

/** A leading "Name:" of the speaker's own, which some models write: taken off the reply. */
export function stripOwnName(text: string, name: string): string {
  // Bold or not ("**Name:**"), and the spaces after it.
  const prefix = new RegExp(`^\\s*\\**${escapeRegExp(name)}\\**\\s*:\\s*(?:\\*\\*\\s*)?`, 'iu')
  return text.replace(prefix, '')
}

/** `stripOwnName` on a stream: the start is held back until it cannot be the speaker's name any more. */
export function createNameStripper(name: string) {
  let held = ''
  let done = false
  /** The name was taken off: the spaces after it go too, in whatever piece they come. */
  let trimming = false
  const hold = Array.from(name).length + 6
  const trimmed = (piece: string) => {
    if (!trimming) return piece
    const rest = piece.replace(/^\s+/u, '')
    if (rest) trimming = false
    return rest
  }
  return {
    push(piece: string): string {
      if (done) return trimmed(piece)
      held += piece
      const stripped = stripOwnName(held, name)
      if (stripped !== held || Array.from(held).length >= hold) {
        done = true
        trimming = stripped !== held
        return trimmed(stripped)
      }
      return ''
    },
    flush(): string {
      if (done) return ''
      done = true
      return stripOwnName(held, name)
    },
  }
}
