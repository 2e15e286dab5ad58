import { AlertTriangle, Download } from 'lucide-react'
import { formatNumber } from '#app/lib/format.ts'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import type { ChatProvider } from '#contracts/chat.ts'
import type { Locale } from '#contracts/locales.ts'

const REASONS = ['offline', 'disk_full', 'checksum'] as const

/**
 * The embedded model while it is downloaded or loaded (ADR 037): "The model is being prepared:
 * 42 %" with a progress bar, in place of an error; once it failed, what went wrong and how the
 * site's operators fix it. The composer stays usable: a message sent meanwhile is kept.
 */
export function ModelPreparingNotice({ locale, provider }: { locale: Locale; provider: ChatProvider }) {
  const { t } = useTranslation('chat')
  if (provider.kind !== 'embedded' || provider.state === 'ready') return null

  if (provider.state === 'failed') {
    const reason = REASONS.find((r) => r === provider.failure) ?? 'other'
    return (
      <div
        role="alert"
        className="mx-2 mb-2 flex items-start gap-2 rounded-xl border border-rose-700/60 bg-rose-950/40 px-3 py-2 text-sm text-rose-100"
        data-testid="model-failed-notice"
      >
        <AlertTriangle aria-hidden="true" className="mt-0.5 size-4 shrink-0" />
        <div className="space-y-1">
          <p className="font-medium">
            {t('preparing.failed')} {t(`preparing.reason.${reason}`)}
          </p>
          <p className="text-rose-200/90">{t('preparing.fix')}</p>
        </div>
      </div>
    )
  }

  const percent = provider.state === 'downloading' ? provider.percent : null
  return (
    <div
      role="status"
      className="mx-2 mb-2 flex items-start gap-2 rounded-xl border border-sky-700/60 bg-sky-950/40 px-3 py-2 text-sm text-sky-100"
      data-testid="model-preparing-notice"
    >
      <Download aria-hidden="true" className="mt-0.5 size-4 shrink-0" />
      <div className="min-w-0 flex-1 space-y-1.5">
        <p className="font-medium">
          {percent === null
            ? t('preparing.waiting')
            : t('preparing.progress', { percent: formatNumber(locale, percent / 100, { style: 'percent' }) })}
        </p>
        <progress
          className="model-progress block h-1.5 w-full"
          max={100}
          value={percent ?? undefined}
          aria-label={t('preparing.label')}
        />
        <p className="text-sky-200/90">{t('preparing.note')}</p>
      </div>
    </div>
  )
}
