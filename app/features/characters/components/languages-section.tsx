import { useMemo } from 'react'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { LOCALES, type Locale } from '#contracts/locales.ts'
import type { RoleTexts } from '#contracts/role-texts.ts'
import { languageLabel, languageNamer } from '../language-names.ts'
import { Section } from './form-section.tsx'
import { inputClass } from './text-field.tsx'
import { TranslationsPanel } from './translations-panel.tsx'

/**
 * The form's "Languages" part (issue 20, ADR 039): the language the character is written in (sent
 * with the form as `sourceLanguage`) and, once the character is saved, its translations: listed,
 * added, edited side by side with the saved texts, removed. Translations are saved on their own,
 * not with the form.
 */
export function LanguagesSection({
  roleId,
  uiLocale,
  value,
  savedLanguage,
  source,
  sourceEdited,
  onChange,
}: {
  /** null: a character not saved yet (no translations). */
  roleId: string | null
  uiLocale: Locale
  value: Locale
  /** The language the saved character is written in. */
  savedLanguage: Locale
  /** The saved texts, which translations are made from. */
  source: RoleTexts
  /** The form has changes to those texts not saved yet. */
  sourceEdited: boolean
  onChange: (language: Locale) => void
}) {
  const { t } = useTranslation('characters-edit')
  const nameOf = useMemo(() => languageNamer(uiLocale), [uiLocale])
  const pending = roleId !== null && value !== savedLanguage
  return (
    <Section title={t('languages.title')} id="languages-title">
      <div className="mb-5">
        <label htmlFor="character-sourceLanguage" className="mb-1 block text-sm font-medium">
          {t('languages.writtenIn')}
        </label>
        <select
          id="character-sourceLanguage"
          name="sourceLanguage"
          value={value}
          aria-describedby={`source-language-hint${pending ? ' source-language-pending' : ''}`}
          onChange={(event) => {
            const chosen = LOCALES.find((l) => l === event.target.value)
            if (chosen) onChange(chosen)
          }}
          className={`${inputClass} h-11 border-zinc-700 sm:max-w-sm`}
        >
          {LOCALES.map((locale) => (
            <option key={locale} value={locale}>
              {languageLabel(nameOf(locale))}
            </option>
          ))}
        </select>
        <p id="source-language-hint" className="mt-1 text-xs text-zinc-400">
          {t('languages.writtenInHint')}
        </p>
        {pending ? (
          <p id="source-language-pending" className="mt-1 text-xs text-amber-300">
            {t('languages.languagePending')}
          </p>
        ) : null}
      </div>
      {roleId ? (
        <TranslationsPanel
          roleId={roleId}
          uiLocale={uiLocale}
          nameOf={nameOf}
          source={source}
          sourceEdited={sourceEdited}
        />
      ) : (
        <p className="rounded-lg bg-zinc-950/60 p-3 text-sm text-zinc-300">{t('languages.saveFirst')}</p>
      )}
    </Section>
  )
}
