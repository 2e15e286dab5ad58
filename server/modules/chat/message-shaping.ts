import type { ChatMessage } from '#server/modules/models/llm-client.ts'

/**
 * The last step before a chat request: messages shaped so that every chat template takes them
 * (ADR 029). Strict templates (Mistral-Nemo, Gemma 2, Llama 3, Qwen 3.5 …) refuse a system message
 * anywhere but first, an assistant turn right after the system message and two turns of one author
 * in a row; llama.cpp, vLLM, LM Studio, KoboldCpp and Ollama answer those with 400 or 500.
 *
 * - `strict` (the default, works everywhere): one system message, first; the opening assistant
 *   turns (the character's greeting) folded into it; turns of one author merged; the post-history
 *   instructions appended to the last user turn in a delimited block; always ends with a user turn.
 * - `system-anywhere`: for templates that take late system messages (ChatML, most hosted APIs): the
 *   greeting stays an assistant turn and the post-history instructions a last system message.
 */
export type PromptStyle = 'strict' | 'system-anywhere'

export const PROMPT_STYLES: readonly PromptStyle[] = ['strict', 'system-anywhere']

/** What precedes the greeting folded into the system prompt. */
export const GREETING_FOLD_HEADING = '## The conversation so far begins with {{char}} saying'
/** The block the post-history instructions take at the end of the last user turn. */
export const INSTRUCTIONS_OPEN = '[Instructions for the next reply:'
export const INSTRUCTIONS_CLOSE = ']'
/** The user turn a strict prompt ends with when the conversation ends with the character. */
export const CONTINUE_TURN = '[Continue.]'

/**
 * The author's note (ADR 053) on strict templates, which take no system message inside the
 * conversation: a delimited block in the user turn at its place.
 */
export const AUTHOR_NOTE_OPEN = "[Author's note:"
export const AUTHOR_NOTE_CLOSE = ']'

/** Texts of one author in a row become one turn, a blank line between them. */
const joinTurns = (a: string, b: string) => (a && b ? `${a}\n\n${b}` : a || b)

export type ShapeInput = {
  system: string
  /** The conversation, oldest first: user and assistant turns only. */
  turns: readonly ChatMessage[]
  /** The card's post-history instructions, macros filled in; '' when none. */
  postHistory: string
  characterName: string
  /**
   * The chat's author's note, macros filled in (ADR 053): `depth` turns of `turns` before the end
   * (0: after the last). A system message there on `system-anywhere`; on strict templates a block
   * in the user turn at that place (the one after it, else the one before it; before the greeting:
   * the system prompt; after a closing reply: the closing user turn).
   */
  note?: { text: string; depth: number } | undefined
}

/** The turns with the note placed (see `ShapeInput.note`); `system`/`closing`: where strict puts it otherwise. */
function placeNote(input: ShapeInput, style: PromptStyle) {
  const turns: ChatMessage[] = input.turns.map((t) => ({ role: t.role, content: t.content }))
  const note = input.note
  if (!note?.text) return { turns, system: '', closing: '' }
  const at = Math.max(0, turns.length - Math.max(0, note.depth))
  if (style === 'system-anywhere') {
    turns.splice(at, 0, { role: 'system', content: note.text })
    return { turns, system: '', closing: '' }
  }
  const block = `${AUTHOR_NOTE_OPEN}\n${note.text}\n${AUTHOR_NOTE_CLOSE}`
  const next = turns[at]
  const previous = turns[at - 1]
  if (next?.role === 'user') next.content = joinTurns(block, next.content)
  else if (previous?.role === 'user') previous.content = joinTurns(previous.content, block)
  else if (at === 0) return { turns, system: block, closing: '' }
  else {
    const later = turns.slice(at).find((t) => t.role === 'user')
    if (!later) return { turns, system: '', closing: block }
    later.content = joinTurns(block, later.content)
  }
  return { turns, system: '', closing: '' }
}

export function shapeMessages(input: ShapeInput, style: PromptStyle = 'strict'): ChatMessage[] {
  const placed = placeNote(input, style)
  const merged: ChatMessage[] = []
  for (const turn of placed.turns) {
    const last = merged.at(-1)
    if (last && last.role === turn.role && turn.role !== 'system') last.content = joinTurns(last.content, turn.content)
    else merged.push({ role: turn.role, content: turn.content })
  }
  if (style === 'system-anywhere') {
    return [
      { role: 'system', content: input.system },
      ...merged,
      ...(input.postHistory ? [{ role: 'system' as const, content: input.postHistory }] : []),
    ]
  }

  let system = joinTurns(input.system, placed.system)
  // After merging, at most one assistant turn leads: the greeting, or the reply whose question left
  // the window. It becomes part of the system prompt, where every template takes it.
  if (merged[0]?.role === 'assistant') {
    const opening = merged.shift() as ChatMessage
    const heading = GREETING_FOLD_HEADING.replace('{{char}}', input.characterName)
    system = joinTurns(system, `${heading}:\n${opening.content}`)
  }
  if (merged.at(-1)?.role !== 'user') merged.push({ role: 'user', content: joinTurns(placed.closing, CONTINUE_TURN) })
  if (input.postHistory) {
    const last = merged.at(-1) as ChatMessage
    last.content = joinTurns(last.content, `${INSTRUCTIONS_OPEN}\n${input.postHistory}\n${INSTRUCTIONS_CLOSE}`)
  }
  return [{ role: 'system', content: system }, ...merged]
}
