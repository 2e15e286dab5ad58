import { useEffect, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'

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
export type HumanCheckProblem = 'containerMissing' | 'loadFailed' | 'failed'

/**
 * The self-hosted ALTCHA proof-of-work check: the browser solves a small puzzle from our own server,
 * no outside service involved. Reports the solved token (or '' when it is reset).
 */
export function HumanCheck({
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
  const [ready, setReady] = useState(false)

  // Load the widget and give it our words before it is created.
  useEffect(() => {
    import('altcha')
      .then(() => {
        const altcha = (globalThis as { $altcha?: AltchaGlobal }).$altcha
        altcha?.i18n?.set(WIDGET_LANGUAGE, {
          ...(altcha.i18n.get?.('en') ?? {}),
          label: t('captcha.label'),
          verifying: t('captcha.verifying'),
          verified: t('captcha.verified'),
          error: t('captcha.error'),
        })
        setReady(true)
      })
      .catch(() => callbacks.current.onProblem('loadFailed'))
  }, [t])

  useEffect(() => {
    if (!ready) return
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
  }, [ready])

  return (
    <div className="min-h-16" data-testid="human-check">
      {ready ? (
        <altcha-widget ref={widget} challenge="/api/public/altcha/challenge" name="altcha" language={WIDGET_LANGUAGE} />
      ) : null}
    </div>
  )
}
