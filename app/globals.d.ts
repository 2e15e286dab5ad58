/** Set at build time by vite.config.ts. */
declare const __BUILD_ID__: string

interface Window {
  /** The translations the server rendered with, handed to the browser so nothing re-renders. */
  __I18N__?: { locale: string; resources: Record<string, Record<string, unknown>> }
}
