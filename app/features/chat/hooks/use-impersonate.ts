import { useEffect, useRef, useState } from 'react'
import { stopReply } from '#app/features/chat/api.ts'
import { streamImpersonate } from '#app/features/chat/writing-aids-api.ts'
import { apiErrorMessage, errorCodeMessage } from '#app/lib/api-error-message.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { notify } from '#app/lib/notify.tsx'
import { setPoints } from '#app/lib/points.ts'
import type { Locale } from '#contracts/locales.ts'

type Options = {
  sessionId: string
  locale: Locale
  modelId: string
  text: string
  setText: (text: string) => void
}

/**
 * "Write my reply" (ADR 053): the model's draft of the user's next message streams into the
 * composer, replacing what was there; a failure puts the text back as it was and says why; Stop
 * keeps what came. Nothing is stored.
 */
export function useImpersonate({ sessionId, locale, modelId, text, setText }: Options) {
  const { t } = useTranslation('chat')
  const { t: tCommon } = useTranslation()
  const [busy, setBusy] = useState(false)
  const abort = useRef<AbortController | null>(null)
  useEffect(() => () => abort.current?.abort(), [])

  const start = async () => {
    if (busy) return
    const before = text
    setBusy(true)
    const controller = new AbortController()
    abort.current = controller
    let draft = ''
    let ended = false
    const failed = (message: string) => {
      setText(before)
      notify(message, { type: 'error' })
    }
    try {
      await streamImpersonate(
        { sessionId, chatModelId: modelId || undefined, locale },
        (event) => {
          switch (event.event) {
            case 'start':
              setText('')
              return
            case 'delta':
              draft += event.data.text
              setText(draft.trimStart())
              return
            case 'done':
              ended = true
              setText(event.data.content.trim())
              setPoints(event.data.balance)
              return
            case 'stopped':
              ended = true
              setText(draft.trim())
              return
            case 'error':
              ended = true
              failed(errorCodeMessage(tCommon, event.data.code, event.data, { otherwise: t('small.draftFailed') }))
              return
          }
        },
        controller.signal,
      )
      if (!ended && !controller.signal.aborted) failed(t('small.draftFailed'))
    } catch (error) {
      if (!controller.signal.aborted) failed(apiErrorMessage(tCommon, error, { otherwise: t('small.draftFailed') }))
    } finally {
      abort.current = null
      setBusy(false)
    }
  }

  return {
    busy,
    start: () => void start(),
    stop: async () => {
      try {
        await stopReply(sessionId)
      } catch {
        abort.current?.abort()
      }
    },
  }
}
