import { z } from 'zod'
import { CHARACTER_LIMITS } from './characters.ts'
import { LOCALES } from './locales.ts'

// "Translate with the model" in the character editor (ADR 040): `POST /api/role/translate-draft`
// translates a character's texts into one locale for the creator to review; nothing is stored.

/** Drafts one creator may ask for per hour. */
export const TRANSLATE_DRAFTS_PER_HOUR = 10

const text = (limit: number) =>
  z
    .string()
    .max(limit * 2)
    .transform((value) => value.replace(/\r\n?/g, '\n').trim())
    .default('')

/** Source texts to translate (unsaved edits); lengths are checked in code points by the server. */
export const draftSourceTextsSchema = z.object({
  introduction: text(CHARACTER_LIMITS.introduction),
  scenario: text(CHARACTER_LIMITS.scenario),
  firstMessage: text(CHARACTER_LIMITS.firstMessage),
  alternateGreetings: z
    .array(text(CHARACTER_LIMITS.greeting))
    .max(CHARACTER_LIMITS.greetings * 2)
    .default([]),
})

export const translateDraftBody = z.object({
  roleId: z.string().trim().min(1).max(40),
  /** The locale to translate into; not the texts' own language. */
  locale: z.enum(LOCALES),
  /** The language the texts are written in (a source language chosen but not saved yet); default: the character's. */
  sourceLanguage: z.enum(LOCALES).optional(),
  /** The texts to translate; absent: the character's saved texts. */
  texts: draftSourceTextsSchema.optional(),
})

export const translateDraftSchema = z.object({
  /** Index-aligned with the source's greetings; '' where the source had none or the model's answer was not usable. */
  texts: z.object({
    introduction: z.string(),
    scenario: z.string(),
    firstMessage: z.string(),
    alternateGreetings: z.array(z.string()),
  }),
  /** Texts that have a source but came back unusable (lost `{{user}}`, empty): `firstMessage`, `alternateGreetings.2`. */
  untranslated: z.array(z.string()),
})

export type TranslateDraftBody = z.input<typeof translateDraftBody>
export type TranslateDraft = z.infer<typeof translateDraftSchema>
