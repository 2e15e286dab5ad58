import { Download } from 'lucide-react'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { notify } from '#app/lib/notify.tsx'
import { downloadCard } from '../api/export-card.ts'

/** Download the character as a PNG or JSON Character Card (V2 and V3 readers both take them). */
export function ExportButtons({ roleId, name }: { roleId: string; name: string }) {
  const { t } = useTranslation('characters-edit')
  const [busy, setBusy] = useState<'png' | 'json' | null>(null)
  const download = async (format: 'png' | 'json') => {
    setBusy(format)
    try {
      await downloadCard(roleId, format, name)
    } catch {
      notify(t('export.failed'), { type: 'error' })
    } finally {
      setBusy(null)
    }
  }
  return (
    <fieldset className="flex flex-wrap items-center gap-1">
      <legend className="sr-only">{t('export.label')}</legend>
      <span aria-hidden="true" className="text-sm text-zinc-400">
        {t('export.label')}
      </span>
      {(['png', 'json'] as const).map((format) => (
        <button
          key={format}
          type="button"
          className="button-ghost"
          disabled={busy !== null}
          onClick={() => download(format)}
          data-testid={`export-${format}`}
        >
          <Download aria-hidden="true" className="size-4" />
          {t(`export.${format}`)}
        </button>
      ))}
    </fieldset>
  )
}
