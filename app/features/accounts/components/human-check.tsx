import { useEffect, useRef, useState } from 'react'
import { useRouteLoaderData } from 'react-router'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { altchaStrings } from './altcha-strings.ts'

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'altcha-widget': React.DetailedHTMLProps<React.HTMLAttributes<HTMLElement>, HTMLElement> & {
        challenge?: string
        name?: string
        language?: string
      }
    }
  }
}

type AltchaElement = HTMLElement
type AltchaGlobal = {
  i18n?: {
    get?: (language: string) => Record<string, string> | undefined
    set: (language: string, strings: Record<string, string>) => void
  }
}
// The widget reads its words from a global store, by the language named in its attribute.
const WIDGET_LANGUAGE = 'taleweave'
export type HumanCheckProblem = 'configError' | 'containerMissing' | 'loadFailed' | 'failed'

type CaptchaFeature = { provider: 'altcha' | 'turnstile'; siteKey: string | null }
type TurnstileApi = {
  render(container: HTMLElement, options: Record<string, unknown>): string
  remove(id: string): void
}
const TURNSTILE_SCRIPT = 'https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit'

/** The register form's human check: ALTCHA by default, Cloudflare Turnstile when configured. */
export function HumanCheck(props: {
  onToken: (token: string) => void
  onProblem: (problem: HumanCheckProblem) => void
}) {
  const root = useRouteLoaderData('root') as { features?: { captcha?: CaptchaFeature } } | undefined
  const captcha = root?.features?.captcha
  return captcha?.provider === 'turnstile' ? (
    <TurnstileCheck siteKey={captcha.siteKey} {...props} />
  ) : (
    <AltchaCheck {...props} />
  )
}

/** Cloudflare's widget, loaded from Cloudflare (the page's CSP allows its frame only in this mode). */
function TurnstileCheck({
  siteKey,
  onToken,
  onProblem,
}: {
  siteKey: string | null
  onToken: (token: string) => void
  onProblem: (problem: HumanCheckProblem) => void
}) {
  const { i18n } = useTranslation()
  const container = useRef<HTMLDivElement>(null)
  const callbacks = useRef({ onToken, onProblem })
  callbacks.current = { onToken, onProblem }
  useEffect(() => {
    if (!siteKey) {
      callbacks.current.onProblem('configError')
      return
    }
    let widgetId: string | null = null
    const api = () => (window as unknown as { turnstile?: TurnstileApi }).turnstile
    const render = () => {
      const element = container.current
      const turnstile = api()
      if (!element) return callbacks.current.onProblem('containerMissing')
      if (!turnstile) return callbacks.current.onProblem('loadFailed')
      widgetId = turnstile.render(element, {
        sitekey: siteKey,
        language: i18n.language,
        callback: (token: string) => callbacks.current.onToken(token),
        'expired-callback': () => callbacks.current.onToken(''),
        'error-callback': () => callbacks.current.onProblem('failed'),
      })
    }
    if (api()) render()
    else {
      const script = document.createElement('script')
      script.src = TURNSTILE_SCRIPT
      script.async = true
      script.onload = render
      script.onerror = () => callbacks.current.onProblem('loadFailed')
      document.head.append(script)
    }
    return () => {
      if (widgetId) api()?.remove(widgetId)
    }
  }, [siteKey, i18n.language])
  return <div ref={container} className="min-h-16" data-testid="human-check" />
}

/**
 * The self-hosted ALTCHA proof-of-work check: the browser solves a small puzzle from our own server,
 * no outside service involved. Reports the solved token (or '' when it is reset).
 */
function AltchaCheck({
  onToken,
  onProblem,
}: {
  onToken: (token: string) => void
  onProblem: (problem: HumanCheckProblem) => void
}) {
  const { t } = useTranslation('auth')
  const widget = useRef<AltchaElement>(null)
  const callbacks = useRef({ onToken, onProblem })
  callbacks.current = { onToken, onProblem }
  const [challenge, setChallenge] = useState<string | null>(null)

  // Fetch the challenge and load the widget (with our words) before the widget is created.
  useEffect(() => {
    const loadChallenge = fetch('/api/public/altcha/challenge', { cache: 'no-store' }).then(async (response) => {
      // The server offers no ALTCHA challenge: it is set up for another provider this page lacks.
      if (response.status === 404) throw new Error('configError')
      if (!response.ok) throw new Error('loadFailed')
      return JSON.stringify(await response.json())
    })
    Promise.all([loadChallenge, import('altcha')])
      .then(([json]) => {
        const altcha = (globalThis as { $altcha?: AltchaGlobal }).$altcha
        altcha?.i18n?.set(WIDGET_LANGUAGE, { ...(altcha.i18n.get?.('en') ?? {}), ...altchaStrings(t) })
        setChallenge(json)
      })
      .catch((error: unknown) =>
        callbacks.current.onProblem((error as Error).message === 'configError' ? 'configError' : 'loadFailed'),
      )
  }, [t])

  useEffect(() => {
    if (!challenge) return
    const element = widget.current
    if (!element) {
      callbacks.current.onProblem('containerMissing')
      return
    }
    const onState = (event: Event) => {
      const { state, payload } = (event as CustomEvent<{ state: string; payload?: string }>).detail
      if (state === 'verified' && payload) callbacks.current.onToken(payload)
      else if (state === 'error') callbacks.current.onProblem('failed')
      else callbacks.current.onToken('')
    }
    element.addEventListener('statechange', onState)
    return () => element.removeEventListener('statechange', onState)
  }, [challenge])

  return (
    <div className="min-h-16" data-testid="human-check">
      {challenge ? <altcha-widget ref={widget} challenge={challenge} name="altcha" language={WIDGET_LANGUAGE} /> : null}
    </div>
  )
}
