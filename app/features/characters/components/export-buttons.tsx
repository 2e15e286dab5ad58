import { useTranslation } from '#app/lib/i18n-react.tsx'
import { CARD_FORMATS, type CardFormat, downloadCard } from '../api/export-card.ts'
import { useDownload } from '../hooks/use-download.ts'
import { DownloadButton } from './download-button.tsx'

/** Download the character as a PNG, JSON or CHARX Character Card (V2 and V3 readers take the first two). */
export function ExportButtons({ roleId, name }: { roleId: string; name: string }) {
  const { t } = useTranslation('characters-edit')
  const { busy, download } = useDownload((format: CardFormat) => downloadCard(roleId, format, name), t('export.failed'))
  return (
    <fieldset className="flex flex-wrap items-center gap-1">
      <legend className="sr-only">{t('export.label')}</legend>
      <span aria-hidden="true" className="text-sm text-zinc-400">
        {t('export.label')}
      </span>
      {CARD_FORMATS.map((format) => (
        <DownloadButton key={format} busy={busy !== null} onClick={() => download(format)} testId={`export-${format}`}>
          {t(`export.${format}`)}
        </DownloadButton>
      ))}
    </fieldset>
  )
}
