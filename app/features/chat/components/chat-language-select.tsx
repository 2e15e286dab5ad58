import { useId } from 'react'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { languageTag } from '#contracts/chat-language.ts'
import { LOCALE_NAMES, LOCALE_TAGS, LOCALES, type Locale } from '#contracts/locales.ts'

/** A language named in the interface's language, then in itself where that differs: "Japanese · 日本語". */
function languageName(names: Intl.DisplayNames, locale: Locale): string {
  const name = names.of(languageTag(locale)) ?? LOCALE_NAMES[locale]
  return name === LOCALE_NAMES[locale] ? name : `${name} · ${LOCALE_NAMES[locale]}`
}

/** The language the character writes in (ADR 038); null: the site's language, whichever it is then. */
export function LanguageSelect({
  locale,
  value,
  onChange,
}: {
  locale: Locale
  value: Locale | null
  onChange: (value: Locale | null) => void
}) {
  const { t } = useTranslation('chat')
  const id = useId()
  const names = new Intl.DisplayNames(LOCALE_TAGS[locale], { type: 'language' })
  return (
    <div className="mt-5" data-testid="setting-language">
      <label htmlFor={id} className="text-sm font-medium text-zinc-100">
        {t('settings.language.label')}
      </label>
      <p id={`${id}-help`} className="text-xs text-zinc-400">
        {t('settings.language.help')}
      </p>
      <select
        id={id}
        aria-describedby={`${id}-help`}
        className="mt-2 w-full rounded-lg border border-zinc-700 bg-zinc-950 px-2 py-1.5 text-sm text-zinc-100"
        value={value ?? ''}
        onChange={(event) => {
          const chosen = LOCALES.find((l) => l === event.target.value)
          onChange(chosen ?? null)
        }}
      >
        <option value="">{t('settings.language.site', { language: languageName(names, locale) })}</option>
        {LOCALES.map((l) => (
          <option key={l} value={l}>
            {languageName(names, l)}
          </option>
        ))}
      </select>
    </div>
  )
}
