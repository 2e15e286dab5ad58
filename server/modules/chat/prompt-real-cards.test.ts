import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Lorebook } from '#contracts/characters.ts'
import { importCard } from '#server/modules/cards/import-card.ts'
import { countMessageTokens, countTokens, tokenizerReady } from '#server/modules/models/tokens.ts'
import { readDecorators } from './lore-decorators.ts'
import { activeLore } from './lorebook.ts'
import { buildPrompt, type Character, contextWindow, type HistoryMessage, replaceMacros } from './prompt.ts'

// These tests call the synchronous counting code directly; the app awaits this on its async paths.
await tokenizerReady()

// Issue 21 item 4: real cards with lorebooks (../shared/cards, read-only; skipped where absent) on
// small and large models. The lore the author wrote reaches the model before the description is
// shortened (docs/prompt.md), the creator notes never do, and no decorator goes in raw.

const REAL_CARDS = path.resolve(import.meta.dirname, '../../../../shared/cards')
const USER = 'Sam'

type RealCard = { file: string; character: Character; creatorNotes: string; book: Lorebook }

function cardsWithLore(): RealCard[] {
  if (!existsSync(REAL_CARDS)) return []
  const files = readdirSync(REAL_CARDS, { recursive: true, encoding: 'utf8' }).filter((f) =>
    /\.(png|json|charx)$/.test(f),
  )
  return files.flatMap((file) => {
    let draft: ReturnType<typeof importCard>['draft']
    try {
      ;({ draft } = importCard(new Uint8Array(readFileSync(path.join(REAL_CARDS, file))), file))
    } catch {
      return [] // lorebooks alone and other files that are no character card
    }
    const book = draft.characterBook
    if (!book?.entries.some((e) => e.enabled && e.content.trim())) return []
    const character: Character = {
      name: draft.name,
      description: draft.description,
      personality: draft.personality,
      scenario: draft.scenario,
      exampleDialogue: draft.exampleDialogue,
      systemPrompt: draft.systemPrompt,
      postHistoryInstructions: draft.postHistoryInstructions,
      lorebook: book,
    }
    return [{ file, character, creatorNotes: draft.creatorNotes, book }]
  })
}

/** A conversation whose newest message names the keys of the book's first few keyed entries. */
function conversationFor(card: RealCard): HistoryMessage[] {
  const keys = card.book.entries
    .filter((e) => e.enabled && !e.constant)
    .map((e) => e.keys.find((k) => k.trim()))
    .filter((k): k is string => k !== undefined)
    .slice(0, 3)
  const texts: [HistoryMessage['author'], string][] = [
    ['assistant', card.character.description.slice(0, 200) || 'Hello.'],
    ['user', 'Tell me about this place.'],
    ['assistant', 'Gladly. Where should I begin?'],
    ['user', keys.length > 0 ? `What of ${keys.join(' and ')}?` : 'Go on.'],
  ]
  return texts.map(([author, content], i) => ({ id: i + 1, author, content, tokens: countTokens(content) }))
}

const fill = (card: RealCard, text: string) => replaceMacros(text, { char: card.character.name, user: USER })

/** The active entries (as the prompt writes them), in the documented order: constant, priority, insertion order. */
function rankedActive(card: RealCard, history: HistoryMessage[]) {
  const active = activeLore(card.book, { scanned: history.map((m) => m.content), capTokens: 1e9, characterMessages: 2 })
  const texts = new Set([...Object.values(active.system).flat(), ...active.conversation])
  return card.book.entries
    .map((entry, index) => ({ entry, index, text: readDecorators(entry.content).text }))
    .filter((e) => texts.has(e.text))
    .sort(
      (a, b) =>
        Number(b.entry.constant === true) - Number(a.entry.constant === true) ||
        (b.entry.priority ?? 0) - (a.entry.priority ?? 0) ||
        b.entry.insertionOrder - a.entry.insertionOrder ||
        a.index - b.index,
    )
    .map((e) => ({ text: fill(card, e.text), cost: countTokens(e.text) + 1 }))
}

const cards = cardsWithLore()

describe.skipIf(cards.length === 0)('real lorebook cards in the prompt', () => {
  it('finds the corpus cards that carry lore', () => {
    const files = cards.map((c) => c.file)
    for (const known of [
      'st/default_Seraphina.png',
      'stc/contest_Assistant_Sakana.png',
      'ca/test-ccv3-westia.json',
      'ca/test-ccv2-lira.json',
    ])
      expect(files).toContain(known)
  })

  describe.each([
    ['2k', 2048],
    ['4k', 4096],
    ['32k', 32_768],
  ])('on a %s-token model', (_, modelContext) => {
    const { budgetTokens } = contextWindow(32, modelContext)
    const quarter = Math.floor(budgetTokens / 4)

    it.each(cards.map((c) => [c.file, c] as const))('%s', (_file, card) => {
      const history = conversationFor(card)
      const prompt = buildPrompt({
        character: card.character,
        userName: USER,
        memoryNote: '',
        history,
        olderExist: false,
        budgetTokens,
      })
      const sent = prompt.messages.map((m) => m.content).join('\n')
      const system = String(prompt.messages[0]?.content)

      expect(prompt.usedTokens).toBe(countMessageTokens(prompt.messages))
      expect(prompt.usedTokens).toBeLessThanOrEqual(budgetTokens)
      expect(prompt.included.at(-1)?.id).toBe(history.at(-1)?.id)
      expect(sent).not.toMatch(/^@@/m)
      if (card.creatorNotes.trim().length > 40) expect(sent).not.toContain(card.creatorNotes.trim().slice(0, 40))

      const ranked = rankedActive(card, history)
      const lorePresent = ranked.filter((e) => sent.includes(e.text))
      const description = fill(card, card.character.description).trim()
      const wholeDescription = system.includes(description)
      // The first entry in priority order goes in whenever it fits in a quarter of the budget,
      // whatever the description costs; on 4k and 32k models every one of these cards gets lore.
      const first = ranked[0]
      if (first && first.cost <= quarter) expect(sent).toContain(first.text)
      const fits = ranked.some((e) => e.cost <= quarter)
      if (modelContext >= 4096 && ranked.length > 0) expect(lorePresent.length).toBeGreaterThan(0)
      // The description is shortened only with lore in (or when no entry fits the lore's share).
      if (!wholeDescription && fits) expect(lorePresent.length).toBeGreaterThan(0)
      // It is shortened, not dropped: its opening is still there.
      expect(system).toContain(description.slice(0, 80))
      if (modelContext === 32_768) {
        expect(wholeDescription).toBe(true)
        const total = ranked.reduce((sum, e) => sum + e.cost, 0)
        const bookBudget = card.book.tokenBudget && card.book.tokenBudget > 0 ? card.book.tokenBudget : Infinity
        if (total <= bookBudget) expect(lorePresent).toHaveLength(ranked.length)
      }
    })
  })
})
