import { StrictMode, startTransition } from 'react'
import { hydrateRoot } from 'react-dom/client'
import { I18nextProvider } from 'react-i18next'
import { HydratedRouter } from 'react-router/dom'
import { watchForNewBuilds } from '#app/lib/build-version.ts'
import { reloadOnceOnChunkError } from '#app/lib/chunk-reload.ts'
import { lazyTranslations, prefetchTranslationTable } from '#app/lib/i18n.client.ts'
import { createI18n } from '#app/lib/i18n.ts'
import { DEFAULT_LOCALE, isLocale } from '#contracts/locales.ts'

reloadOnceOnChunkError()
watchForNewBuilds(__BUILD_ID__)

const handoff = window.__I18N__
const locale = handoff && isLocale(handoff.locale) ? handoff.locale : DEFAULT_LOCALE
const i18n = createI18n(locale, { [locale]: handoff?.resources ?? {} } as never, lazyTranslations)

startTransition(() => {
  hydrateRoot(
    document,
    <StrictMode>
      <I18nextProvider i18n={i18n}>
        <HydratedRouter />
      </I18nextProvider>
    </StrictMode>,
  )
})
prefetchTranslationTable()
