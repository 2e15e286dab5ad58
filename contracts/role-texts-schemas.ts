import { z } from 'zod'
import { CHARACTER_LIMITS } from './characters.ts'
import { LOCALES } from './locales.ts'
import { TRANSLATION_ORIGINS } from './role-texts.ts'

// zod schemas of the character translations API (ADR 039). The lengths are checked in code points
// by `checkTranslationTexts` (field problems the editor words); these bounds only keep a body sane.

const text = (limit: number) =>
  z
    .string()
    .max(limit * 2)
    .transform((value) => value.replace(/\r\n?/g, '\n').trim())

export const translationTextsSchema = z.object({
  /** Empty or absent: the source's name. */
  name: text(CHARACTER_LIMITS.name)
    .nullish()
    .transform((value) => value || null),
  introduction: text(CHARACTER_LIMITS.introduction).default(''),
  scenario: text(CHARACTER_LIMITS.scenario).default(''),
  firstMessage: text(CHARACTER_LIMITS.firstMessage).default(''),
  /** Index-aligned with the source's greetings; an empty entry is the source's. */
  alternateGreetings: z
    .array(text(CHARACTER_LIMITS.greeting))
    .max(CHARACTER_LIMITS.greetings * 2)
    .default([]),
})

const localeSchema = z.enum(LOCALES)

export const translationRoleBody = z.object({ roleId: z.string().trim().min(1).max(40) })
export const translationSaveBody = translationRoleBody.extend({ locale: localeSchema, texts: translationTextsSchema })
export const translationRemoveBody = translationRoleBody.extend({ locale: localeSchema })

export const roleTranslationSchema = z.object({
  locale: localeSchema,
  origin: z.enum(TRANSLATION_ORIGINS),
  /** Made from older source texts: shown until redone, re-translated by the job. */
  stale: z.boolean(),
  texts: z.object({
    name: z.string().nullable(),
    introduction: z.string(),
    scenario: z.string(),
    firstMessage: z.string(),
    alternateGreetings: z.array(z.string()),
  }),
  updatedAt: z.string(),
})

export const roleTranslationListSchema = z.object({
  roleId: z.string(),
  sourceLanguage: localeSchema,
  translations: z.array(roleTranslationSchema),
})
