import { X } from 'lucide-react'
import { type ReactNode, useId, useState } from 'react'
import { Dialog, DialogActions, DialogDescription, DialogTitle } from '#app/components/dialog.tsx'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { notify } from '#app/lib/notify.tsx'
import type { Locale } from '#contracts/locales.ts'
import { CONTACT_MESSAGE_MAX, CONTACT_MESSAGE_MIN, CONTACT_NAME_MAX } from '#contracts/site.ts'
import { sendContactMessage } from '../api/send-contact-message.ts'

/** What the human check can report (the widget comes from the route: features do not share code). */
export type HumanCheckProblem = 'configError' | 'containerMissing' | 'loadFailed' | 'failed'
export type HumanCheckSlot = (props: {
  onToken: (token: string) => void
  onProblem: (problem: HumanCheckProblem) => void
}) => ReactNode

const inputClass =
  'w-full rounded-lg border border-zinc-700 bg-zinc-950 px-3 text-zinc-100 focus:border-violet-400 focus:outline-none'

/**
 * The contact form in a modal dialog: name, e-mail, message and the human check. Sent through
 * `POST /api/public/contact`; on success the dialog closes and a notification confirms it.
 */
export function ContactDialog({
  open,
  onClose,
  locale,
  humanCheck,
}: {
  open: boolean
  onClose: () => void
  locale: Locale
  humanCheck: HumanCheckSlot
}) {
  const { t } = useTranslation('legal')
  const { t: tCommon } = useTranslation()
  const id = useId()
  const [fields, setFields] = useState({ name: '', email: '', message: '' })
  const [token, setToken] = useState('')
  const [widgetKey, setWidgetKey] = useState(0)
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)

  const problemMessages: Record<HumanCheckProblem, string> = {
    configError: t('contact.configError'),
    containerMissing: t('contact.containerMissing'),
    loadFailed: t('contact.loadFailed'),
    failed: t('contact.verificationFailed', { error: t('contact.unknownError') }),
  }

  const submit = async (event: React.FormEvent) => {
    event.preventDefault()
    setError(null)
    const name = fields.name.trim()
    const email = fields.email.trim()
    const message = fields.message.trim()
    if (!name || !email || !message) return setError(t('contact.fillAll'))
    if (message.length < CONTACT_MESSAGE_MIN)
      return setError(t('contact.messageTooShort', { count: CONTACT_MESSAGE_MIN }))
    if (!token) return setError(t('contact.completeVerification'))
    setBusy(true)
    try {
      await sendContactMessage({ name, email, message, turnstileToken: token, locale })
      notify(t('contact.sent'), { type: 'success' })
      setFields({ name: '', email: '', message: '' })
      onClose()
    } catch (failure) {
      setError(
        apiErrorMessage(tCommon, failure, {
          own: {
            VERIFICATION_FAILED: (details) =>
              t('contact.verificationFailed', { error: details?.reason ?? t('contact.unknownError') }),
          },
          otherwise: t('contact.failed'),
        }),
      )
    } finally {
      // A solved puzzle is good for one try: get a fresh one.
      setToken('')
      setWidgetKey((k) => k + 1)
      setBusy(false)
    }
  }

  const set = (name: keyof typeof fields) => (event: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) =>
    setFields({ ...fields, [name]: event.target.value })

  return (
    <Dialog open={open} onClose={onClose} size="lg" testId="contact-dialog">
      <div className="flex items-start justify-between gap-4">
        <DialogTitle>{t('contact.title')}</DialogTitle>
        <button type="button" className="icon-button -me-2 -mt-2" onClick={onClose} aria-label={t('contact.cancel')}>
          <X aria-hidden="true" className="size-5" />
        </button>
      </div>
      <DialogDescription className="mt-1 text-sm text-zinc-400">{t('contact.intro')}</DialogDescription>
      {open ? (
        <form onSubmit={submit} noValidate className="mt-5 space-y-4">
          {error ? (
            <p role="alert" className="rounded-lg bg-rose-950/60 p-3 text-sm text-rose-200">
              {error}
            </p>
          ) : null}
          <div>
            <label htmlFor={`${id}-name`} className="mb-1 block text-sm font-medium">
              {t('contact.name')}
            </label>
            <input
              id={`${id}-name`}
              name="name"
              autoComplete="name"
              maxLength={CONTACT_NAME_MAX}
              required
              value={fields.name}
              onChange={set('name')}
              className={`${inputClass} h-11`}
            />
          </div>
          <div>
            <label htmlFor={`${id}-email`} className="mb-1 block text-sm font-medium">
              {t('contact.email')}
            </label>
            <input
              id={`${id}-email`}
              name="email"
              type="email"
              autoComplete="email"
              required
              value={fields.email}
              onChange={set('email')}
              className={`${inputClass} h-11`}
            />
          </div>
          <div>
            <label htmlFor={`${id}-message`} className="mb-1 block text-sm font-medium">
              {t('contact.message')}
            </label>
            <textarea
              id={`${id}-message`}
              name="message"
              rows={6}
              required
              minLength={CONTACT_MESSAGE_MIN}
              maxLength={CONTACT_MESSAGE_MAX}
              aria-describedby={`${id}-message-hint`}
              value={fields.message}
              onChange={set('message')}
              className={`${inputClass} py-2`}
            />
            <p id={`${id}-message-hint`} className="mt-1 text-xs text-zinc-400">
              {t('contact.messageHint', { count: CONTACT_MESSAGE_MIN })}
            </p>
          </div>
          <div key={widgetKey}>
            {humanCheck({ onToken: setToken, onProblem: (problem) => setError(problemMessages[problem]) })}
          </div>
          <DialogActions className="flex flex-wrap pt-2">
            <button type="button" className="button-ghost" onClick={onClose}>
              {t('contact.cancel')}
            </button>
            <button type="submit" className="button-primary" disabled={busy}>
              {busy ? t('contact.sending') : t('contact.send')}
            </button>
          </DialogActions>
        </form>
      ) : null}
    </Dialog>
  )
}
