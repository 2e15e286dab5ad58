import { StrictMode, startTransition } from 'react'
import { hydrateRoot } from 'react-dom/client'
import { HydratedRouter } from 'react-router/dom'
import { watchForNewBuildsWhenIdle } from '#app/lib/build-version.ts'
import { reloadOnceOnChunkError } from '#app/lib/chunk-reload.ts'
import { loadTranslations, prefetchTranslationTable } from '#app/lib/i18n.client.ts'
import { type Bundle, createI18n } from '#app/lib/i18n.ts'
import { I18nProvider } from '#app/lib/i18n-react.tsx'
import { DEFAULT_LOCALE, isLocale } from '#contracts/locales.ts'

reloadOnceOnChunkError()
watchForNewBuildsWhenIdle(__BUILD_ID__)

const handoff = window.__I18N__
const locale = handoff && isLocale(handoff.locale) ? handoff.locale : DEFAULT_LOCALE
const i18n = createI18n(locale, (handoff?.resources ?? {}) as Bundle, loadTranslations)

startTransition(() => {
  hydrateRoot(
    document,
    <StrictMode>
      <I18nProvider i18n={i18n}>
        <HydratedRouter />
      </I18nProvider>
    </StrictMode>,
  )
})
prefetchTranslationTable()
