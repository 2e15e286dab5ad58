import { CHARACTER_LIMITS, textLength } from '#contracts/characters.ts'
import type { Locale } from '#contracts/locales.ts'
import { type ChatMessage, LlmError } from '#server/modules/models/llm-client.ts'
import { modelContext, recordContextExceeded } from '#server/modules/models/model-server-info.ts'
import type { ModelConfig } from '#server/modules/models/models.ts'
import {
  cleanTranslation,
  pieceBudget,
  splitForTranslation,
  type TranslationProblem,
  translationMessages,
  translationProblem,
} from './translate-request.ts'

/**
 * Translating a character's texts with the model (ADR 040), for the `translate-role` job and the
 * editor's draft alike: each text on its own (a long one in pieces that fit the model's context),
 * each answer cleaned and checked; an answer that is not usable is asked once more, then that text
 * is left untranslated (the page shows the source's). The caller says how the model is asked
 * (`Ask`): the job gives way to replies, the draft is itself a user's request.
 */

/** The texts machine translation covers; names stay the source's unless the author gives one. */
export type TranslatableTexts = {
  introduction: string
  scenario: string
  firstMessage: string
  alternateGreetings: string[]
}

export type Translation = {
  /** Each text translated; '' where the source had none or no usable translation came. */
  texts: TranslatableTexts
  /** The paths of texts with a source but no usable translation (`firstMessage`, `alternateGreetings.2`). */
  untranslated: string[]
  /** Texts with a source (what `untranslated` is out of). */
  attempted: number
}

/** One request to the model: the messages and the longest answer to ask for; resolves to its text. */
export type Ask = (messages: ChatMessage[], maxTokens: number) => Promise<string>

type Log = (info: Record<string, unknown>, msg: string) => void

/** The source characters (code points) of the texts: what the daily budget counts. */
export function sourceCharacters(texts: TranslatableTexts): number {
  return [texts.introduction, texts.scenario, texts.firstMessage, ...texts.alternateGreetings].reduce(
    (sum, text) => sum + (text.trim() ? textLength(text) : 0),
    0,
  )
}

const LIMITS = {
  introduction: CHARACTER_LIMITS.introduction,
  scenario: CHARACTER_LIMITS.scenario,
  firstMessage: CHARACTER_LIMITS.firstMessage,
  greeting: CHARACTER_LIMITS.greeting,
} as const

export function createTranslator({ model, log }: { model: ModelConfig; log: Log }) {
  /** One piece, asked at most twice; null when neither answer was usable. */
  async function translatePiece(
    text: string,
    from: Locale,
    to: Locale,
    maxTokens: number,
    ask: Ask,
    path: string,
  ): Promise<string | null> {
    let problem: TranslationProblem | null = null
    for (let attempt = 0; attempt < 2; attempt++) {
      let answer: string
      try {
        answer = await ask(translationMessages(text, from, to), maxTokens)
      } catch (error) {
        // Our estimate of the prompt was short: what the server said is learned; the job runs again.
        if (error instanceof LlmError && error.reason === 'context_too_long') {
          await recordContextExceeded(model, text, 0).catch(() => {})
        }
        throw error
      }
      const cleaned = cleanTranslation(answer, text)
      problem = translationProblem(cleaned, text)
      if (!problem) return cleaned
    }
    log({ modelId: model.id, path, problem, from, to }, 'machine translation not usable: the source text is kept')
    return null
  }

  /** One text; '' for an empty one, null when no usable translation came. */
  async function translateText(
    text: string,
    limit: number,
    from: Locale,
    to: Locale,
    ask: Ask,
    path: string,
  ): Promise<string | null> {
    if (!text.trim()) return ''
    const fit = await modelContext(model, text)
    const budget = pieceBudget(fit, from, to)
    if (!budget) {
      throw new LlmError(
        'provider',
        `The model context (${fit.serverContextTokens} tokens) is too small for a translation`,
        { reason: 'context_too_long' },
      )
    }
    let out = ''
    for (const piece of splitForTranslation(text, budget.maxPiece, fit.count)) {
      const translated = await translatePiece(
        piece.text,
        from,
        to,
        budget.replyTokens(fit.count(piece.text)),
        ask,
        path,
      )
      if (translated === null) return null
      out += translated + piece.after
    }
    out = out.trim()
    return textLength(out) > limit ? null : out
  }

  return {
    /** Every text of `source` from `from` into `to`, one after the other. Model failures are thrown. */
    async translate(source: TranslatableTexts, from: Locale, to: Locale, ask: Ask): Promise<Translation> {
      const untranslated: string[] = []
      let attempted = 0
      const one = async (text: string, limit: number, path: string) => {
        if (text.trim()) attempted++
        const translated = await translateText(text, limit, from, to, ask, path)
        if (translated === null) untranslated.push(path)
        return translated ?? ''
      }
      const introduction = await one(source.introduction, LIMITS.introduction, 'introduction')
      const scenario = await one(source.scenario, LIMITS.scenario, 'scenario')
      const firstMessage = await one(source.firstMessage, LIMITS.firstMessage, 'firstMessage')
      const alternateGreetings: string[] = []
      for (const [i, greeting] of source.alternateGreetings.entries()) {
        alternateGreetings.push(await one(greeting, LIMITS.greeting, `alternateGreetings.${i}`))
      }
      return { texts: { introduction, scenario, firstMessage, alternateGreetings }, untranslated, attempted }
    },
  }
}

export type Translator = ReturnType<typeof createTranslator>
