// Prints the largest value of each character field over a folder of Character Cards, next to our
// CHARACTER_LIMITS, so the limits can be set from what real cards hold (issue 21):
//
//   node scripts/measure-cards.ts ../shared/cards [more folders...]
//
// Every file the card codec reads counts (PNG, JSON, CHARX); files it refuses (lorebooks, other
// JSON) are listed as skipped. Lengths are Unicode code points, as the form counts them.

import { readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, join } from 'node:path'
import { CHARACTER_LIMITS, textLength } from '#contracts/characters.ts'
import { CardError } from '#server/modules/cards/card-types.ts'
import { importCard } from '#server/modules/cards/import-card.ts'

type Measure = { label: string; limit: number | null; value: (card: Card) => number }
type Card = ReturnType<typeof importCard>['draft']

const longest = (list: string[]) => Math.max(0, ...list.map(textLength))
const jsonBytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length

const MEASURES: Measure[] = [
  { label: 'name', limit: CHARACTER_LIMITS.name, value: (c) => textLength(c.name) },
  {
    label: 'introduction (creator_notes)',
    limit: CHARACTER_LIMITS.introduction,
    value: (c) => textLength(c.creatorNotes),
  },
  { label: 'scenario', limit: CHARACTER_LIMITS.scenario, value: (c) => textLength(c.scenario) },
  { label: 'personality', limit: CHARACTER_LIMITS.personality, value: (c) => textLength(c.personality) },
  { label: 'details (description)', limit: CHARACTER_LIMITS.details, value: (c) => textLength(c.description) },
  { label: 'first message', limit: CHARACTER_LIMITS.firstMessage, value: (c) => textLength(c.firstMessage) },
  {
    label: 'alternate greeting (longest)',
    limit: CHARACTER_LIMITS.greeting,
    value: (c) => longest(c.alternateGreetings),
  },
  {
    label: 'alternate greetings (count)',
    limit: CHARACTER_LIMITS.greetings,
    value: (c) => c.alternateGreetings.length,
  },
  { label: 'example dialogue', limit: CHARACTER_LIMITS.exampleDialogue, value: (c) => textLength(c.exampleDialogue) },
  { label: 'tags (count)', limit: CHARACTER_LIMITS.tags, value: (c) => c.tags.length },
  { label: 'tag name (longest)', limit: CHARACTER_LIMITS.tagName, value: (c) => longest(c.tags) },
  { label: 'system prompt', limit: null, value: (c) => textLength(c.systemPrompt) },
  { label: 'post-history instructions', limit: null, value: (c) => textLength(c.postHistoryInstructions) },
  {
    label: 'lorebook entries',
    limit: CHARACTER_LIMITS.lorebookEntries,
    value: (c) => c.characterBook?.entries.length ?? 0,
  },
  {
    label: 'lorebook entry content (longest)',
    limit: null,
    value: (c) => longest(c.characterBook?.entries.map((e) => e.content) ?? []),
  },
  { label: 'lorebook (JSON bytes)', limit: CHARACTER_LIMITS.lorebookBytes, value: (c) => jsonBytes(c.characterBook) },
  { label: 'extensions (JSON bytes)', limit: null, value: (c) => jsonBytes(c.extensions) },
]

function cardFiles(path: string): string[] {
  if (statSync(path).isDirectory()) return readdirSync(path).flatMap((name) => cardFiles(join(path, name)))
  return /\.(png|json|charx)$/i.test(path) ? [path] : []
}

const folders = process.argv.slice(2)
if (folders.length === 0) {
  console.error('usage: node scripts/measure-cards.ts <folder> [folder...]')
  process.exit(1)
}
const maxima = MEASURES.map(() => ({ value: 0, file: '' }))
let read = 0
for (const file of folders.flatMap(cardFiles).sort()) {
  let card: Card
  try {
    card = importCard(readFileSync(file), basename(file), 'en').draft
  } catch (error) {
    if (!(error instanceof CardError)) throw error
    console.log(`skipped ${file}: ${error.code}`)
    continue
  }
  read++
  MEASURES.forEach((measure, i) => {
    const value = measure.value(card)
    const max = maxima[i]
    if (max && value > max.value) maxima[i] = { value, file: basename(file) }
  })
}
console.log(`\n${read} cards read\n`)
console.log(`${'field'.padEnd(34)}${'largest'.padStart(10)}${'limit'.padStart(10)}  card`)
MEASURES.forEach((measure, i) => {
  const max = maxima[i] ?? { value: 0, file: '' }
  const limit = measure.limit === null ? '-' : String(measure.limit)
  const flag = measure.limit !== null && max.value > measure.limit ? '  OVER' : ''
  console.log(`${measure.label.padEnd(34)}${String(max.value).padStart(10)}${limit.padStart(10)}  ${max.file}${flag}`)
})
