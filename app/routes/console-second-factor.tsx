import { type FormEvent, useState } from 'react'
import { useNavigate, useSearchParams } from 'react-router'
import { adminApi } from '#app/features/console/admin-api.ts'
import { CodeField } from '#app/features/console/components/code-field.tsx'
import { QrCode } from '#app/features/console/components/qr-code.tsx'
import { cleanCode, groupedSecret, useConsoleState } from '#app/features/console/console-state.ts'
import { storeConsoleToken } from '#app/features/console/console-token.ts'
import { apiErrorMessage } from '#app/lib/api-error-message.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { localizePath, splitLocalePath } from '#contracts/locales.ts'

export const handle = { i18n: ['console'] }

type Setup = { secret: string; uri: string }

/**
 * `/console/second-factor`: enrollment (the otpauth address as a QR code and a link, the secret in
 * groups of four, the first code, then the ten recovery codes once) or, once enrolled, a code or a
 * recovery code that opens the console in this tab. `?back=` is where to return.
 */
export default function ConsoleSecondFactor() {
  const { me } = useConsoleState()
  return me.secondFactor === 'none' ? <Enroll /> : <Verify />
}

/** The page to return to: a console path of this site only. */
function useBack() {
  const [params] = useSearchParams()
  const back = params.get('back') ?? ''
  const { rest } = splitLocalePath(back)
  const navigate = useNavigate()
  return (locale: string) => {
    const target =
      back.startsWith('/') && !back.startsWith('//') && rest.startsWith('/console') && rest !== '/console/second-factor'
    void navigate(target ? back : localizePath(splitLocalePath(locale).locale, '/console'), { replace: true })
  }
}

function Enroll() {
  const { t } = useTranslation('console')
  const { t: tc } = useTranslation()
  const { refresh } = useConsoleState()
  const goBack = useBack()
  const [setup, setSetup] = useState<Setup | null>(null)
  const [code, setCode] = useState('')
  const [busy, setBusy] = useState(false)
  const [problem, setProblem] = useState<string | null>(null)
  const [recovery, setRecovery] = useState<string[] | null>(null)

  const start = async () => {
    setBusy(true)
    setProblem(null)
    try {
      setSetup(await adminApi<Setup>('/admin/2fa/setup', { method: 'POST' }))
    } catch (error) {
      setProblem(apiErrorMessage(tc, error))
    }
    setBusy(false)
  }

  const enable = async (event: FormEvent) => {
    event.preventDefault()
    setBusy(true)
    setProblem(null)
    try {
      const result = await adminApi<{ recoveryCodes: string[]; consoleToken: string }>('/admin/2fa/enable', {
        method: 'POST',
        body: { code: cleanCode(code) },
      })
      storeConsoleToken(result.consoleToken)
      setRecovery(result.recoveryCodes)
    } catch (error) {
      setProblem(apiErrorMessage(tc, error))
    }
    setBusy(false)
  }

  if (recovery) {
    return (
      <section className="mx-auto max-w-xl" data-testid="recovery-codes">
        <h1 className="mb-2 text-2xl font-bold">{t('sf.recoveryTitle')}</h1>
        <p className="mb-4 text-zinc-300">{t('sf.recoveryText')}</p>
        <ol
          className="mb-6 grid grid-cols-2 gap-2 rounded-2xl border border-zinc-800 bg-zinc-900 p-5 font-mono"
          dir="ltr"
        >
          {recovery.map((item) => (
            <li key={item}>{item}</li>
          ))}
        </ol>
        <button
          type="button"
          className="button-primary"
          onClick={async () => {
            await refresh()
            goBack(window.location.pathname)
          }}
        >
          {t('sf.saved')}
        </button>
      </section>
    )
  }

  return (
    <section className="mx-auto max-w-xl">
      <h1 className="mb-2 text-2xl font-bold">{t('sf.enrollTitle')}</h1>
      <p className="mb-4 text-zinc-300">{t('sf.enrollIntro')}</p>
      {setup ? (
        <form onSubmit={enable} noValidate className="space-y-4 rounded-2xl border border-zinc-800 bg-zinc-900 p-5">
          <div className="flex flex-col gap-5 sm:flex-row sm:items-start">
            <figure className="shrink-0">
              <QrCode value={setup.uri} label={t('sf.qrLabel')} className="size-48 rounded-lg" />
              <figcaption className="mt-2 max-w-48 text-sm text-zinc-400">{t('sf.scan')}</figcaption>
            </figure>
            <div className="min-w-0 space-y-4">
              <p>
                <a href={setup.uri} className="text-violet-300 underline" data-testid="otpauth-link">
                  {t('sf.openInApp')}
                </a>
              </p>
              <div>
                <p className="text-sm text-zinc-400">{t('sf.manual')}</p>
                <p className="mt-1 font-mono text-lg tracking-wider break-all" dir="ltr" data-testid="totp-secret">
                  {groupedSecret(setup.secret)}
                </p>
              </div>
            </div>
          </div>
          <CodeField
            label={t('sf.confirmCode')}
            value={code}
            onChange={setCode}
            problem={problem}
            testId="enroll-code"
          />
          <button type="submit" className="button-primary" disabled={busy || !code.trim()}>
            {busy ? t('busy') : t('sf.enable')}
          </button>
        </form>
      ) : (
        <>
          {problem ? (
            <p role="alert" className="mb-3 text-rose-300">
              {problem}
            </p>
          ) : null}
          <button type="button" className="button-primary" onClick={start} disabled={busy}>
            {busy ? t('busy') : t('sf.start')}
          </button>
        </>
      )}
    </section>
  )
}

function Verify() {
  const { t } = useTranslation('console')
  const { t: tc } = useTranslation()
  const { refresh } = useConsoleState()
  const goBack = useBack()
  const [code, setCode] = useState('')
  const [busy, setBusy] = useState(false)
  const [problem, setProblem] = useState<string | null>(null)

  const verify = async (event: FormEvent) => {
    event.preventDefault()
    setBusy(true)
    setProblem(null)
    try {
      const result = await adminApi<{ consoleToken: string }>('/admin/2fa/verify', {
        method: 'POST',
        body: { code: cleanCode(code) },
      })
      storeConsoleToken(result.consoleToken)
      await refresh()
      goBack(window.location.pathname)
    } catch (error) {
      setProblem(apiErrorMessage(tc, error))
      setBusy(false)
    }
  }

  return (
    <section className="mx-auto max-w-md">
      <h1 className="mb-2 text-2xl font-bold">{t('sf.verifyTitle')}</h1>
      <p className="mb-4 text-zinc-300">{t('sf.verifyIntro')}</p>
      <form onSubmit={verify} noValidate className="space-y-4 rounded-2xl border border-zinc-800 bg-zinc-900 p-5">
        <CodeField
          label={t('sf.verifyLabel')}
          value={code}
          onChange={setCode}
          problem={problem}
          recovery
          autoFocus
          testId="verify-code"
        />
        <button type="submit" className="button-primary" disabled={busy || !code.trim()}>
          {busy ? t('busy') : t('sf.verify')}
        </button>
      </form>
    </section>
  )
}
