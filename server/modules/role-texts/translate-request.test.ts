import { describe, expect, it } from 'vitest'
import { countTokens, tokenizerReady } from '#server/modules/models/tokens.ts'
import {
  cleanTranslation,
  lostMacros,
  pieceBudget,
  splitForTranslation,
  translationInstruction,
  translationMessages,
  translationProblem,
} from './translate-request.ts'

// These tests call the synchronous counting code directly; the app awaits this on its async paths.
await tokenizerReady()

describe('the translation request (ADR 040)', () => {
  it('names both languages in English and in themselves, and asks to keep macros, asterisks and markdown', () => {
    const instruction = translationInstruction('en', 'ja')
    expect(instruction).toContain('from English into Japanese (日本語)')
    expect(instruction).toContain('{{char}} and {{user}} exactly')
    expect(instruction).toContain('*actions and narration*')
    expect(instruction).toMatch(/translation only/)
    expect(translationInstruction('zh-tw', 'de')).toContain('from Traditional Chinese (繁體中文) into German (Deutsch)')
    // The text goes alone in the user message: nothing to strip from the answer but the answer.
    expect(translationMessages('*smiles* Hi, {{user}}.', 'en', 'fr')).toEqual([
      { role: 'system', content: translationInstruction('en', 'fr') },
      { role: 'user', content: '*smiles* Hi, {{user}}.' },
    ])
  })

  it("fits a piece and its answer in the model's context, and refuses a context too small for any", () => {
    const fit = { serverContextTokens: 4096, maxReplyTokens: undefined, count: countTokens }
    const budget = pieceBudget(fit, 'en', 'th')
    if (!budget) throw new Error('a 4096-token context takes a piece')
    const instruction = countTokens(translationInstruction('en', 'th'))
    // Instruction, piece and answer (2.5 times the piece) within the context less its 10 % margin.
    expect(instruction + budget.maxPiece + budget.replyTokens(budget.maxPiece)).toBeLessThanOrEqual(4096 * 0.9)
    expect(budget.maxPiece).toBeGreaterThan(500)
    expect(budget.replyTokens(100)).toBe(100 * 2.5 + 64)
    // A reply cap bounds the pieces too.
    const capped = pieceBudget({ ...fit, maxReplyTokens: 300 }, 'en', 'th')
    expect(capped?.replyTokens(capped.maxPiece)).toBeLessThanOrEqual(300)
    expect(pieceBudget({ ...fit, serverContextTokens: 200 }, 'en', 'th')).toBeNull()
  })

  it('cuts a long text at paragraphs, then lines, then sentences, and joins back to the same text', () => {
    const paragraph = (n: number) =>
      Array.from({ length: 6 }, (_, i) => `Sentence ${i + 1} of paragraph ${n} tells a little more.`).join(' ')
    const text = [paragraph(1), paragraph(2), `${paragraph(3)}\n*She turns to {{user}}.*`, paragraph(4)].join('\n\n')
    const pieces = splitForTranslation(text, 80, countTokens)
    expect(pieces.length).toBeGreaterThan(3)
    expect(pieces.every((p) => countTokens(p.text) <= 80)).toBe(true)
    expect(pieces.map((p) => p.text + p.after).join('')).toBe(text)
    // Whole paragraphs stay together when they fit.
    expect(pieces.some((p) => p.text === paragraph(1))).toBe(true)
    // A text that fits is one piece; one endless sentence (Japanese, no spaces) is cut by characters.
    expect(splitForTranslation('Short.', 80, countTokens)).toEqual([{ text: 'Short.', after: '' }])
    const long = 'あ'.repeat(3000)
    const cut = splitForTranslation(long, 100, countTokens)
    expect(cut.length).toBeGreaterThan(5)
    expect(cut.map((p) => p.text + p.after).join('')).toBe(long)
    expect(cut.every((p) => countTokens(p.text) <= 100)).toBe(true)
  })

  it('removes what is not the translation: reasoning, a label line, quotes around the whole answer', () => {
    const source = 'Bonjour, {{user}} !'
    expect(cleanTranslation('<think>French to English.</think>\n\nHello, {{user}}!', source)).toBe('Hello, {{user}}!')
    expect(cleanTranslation('Translation:\nHello, {{user}}!', source)).toBe('Hello, {{user}}!')
    expect(cleanTranslation('Here is the translation into English:\n\nHello!', source)).toBe('Hello!')
    expect(cleanTranslation('Translation: Hello!', source)).toBe('Hello!')
    expect(cleanTranslation('"Hello, {{user}}!"', source)).toBe('Hello, {{user}}!')
    expect(cleanTranslation('「こんにちは」', source)).toBe('こんにちは')
    expect(cleanTranslation('```\nHello!\n```', source)).toBe('Hello!')
    // Speech that opens and closes the text is not a wrapper, nor quotes the source has itself.
    expect(cleanTranslation('"Hi," she said. "Bye."', source)).toBe('"Hi," she said. "Bye."')
    expect(cleanTranslation('"Hello!"', '"Bonjour !"')).toBe('"Hello!"')
    expect(cleanTranslation('  *waves*\r\nHello!  ', source)).toBe('*waves*\nHello!')
  })

  it('finds lost macros and answers that are empty or run away', () => {
    expect(lostMacros('{{char}} looks at {{user}}. {{user}}?', '{{char}} sieht {{User}} an. {{ user }}?')).toEqual([])
    expect(lostMacros('{{char}} looks at {{user}}.', '{{char}} sieht dich an.')).toEqual(['{{user}}'])
    expect(lostMacros('Hi {{user}}', 'Hallo {{Benutzer}}')).toEqual(['{{user}}'])
    expect(lostMacros('<USER> and <BOT>', '<user> und {{char}}')).toEqual(['<bot>'])
    expect(translationProblem('', 'Hi')).toBe('empty')
    expect(translationProblem('Hallo', 'Hi {{user}}')).toBe('macros')
    expect(translationProblem('ha '.repeat(400), 'Hi')).toBe('too_long')
    expect(translationProblem('Hallo {{user}}', 'Hi {{user}}')).toBeNull()
  })
})
