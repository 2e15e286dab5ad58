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
export type HumanCheckProblem = 'configError' | 'containerMissing' | 'loadFailed' | 'failed'

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
        altcha?.i18n?.set(WIDGET_LANGUAGE, {
          ...(altcha.i18n.get?.('en') ?? {}),
          label: t('captcha.label'),
          verifying: t('captcha.verifying'),
          verified: t('captcha.verified'),
          error: t('captcha.error'),
        })
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
