import { ImagePlus, Trash2 } from 'lucide-react'
import { useRef } from 'react'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { CHARACTER_LIMITS, type FieldProblem } from '#contracts/characters.ts'
import type { ImageValue } from '../form-state.ts'
import { fieldErrorText } from './field-error.ts'

function readAsDataUrl(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader()
    reader.onload = () => resolve(String(reader.result))
    reader.onerror = () => reject(reader.error)
    reader.readAsDataURL(file)
  })
}

export function imageSrc(value: ImageValue): string | null {
  if (value.kind === 'current') return value.url
  if (value.kind === 'new') return value.dataUrl
  return null
}

/**
 * Avatar or banner: a preview, a button that opens the file picker, and Remove. The file is read
 * here for the preview (and the draft); the server checks what it really is.
 */
export function ImageField({
  id,
  label,
  hint,
  value,
  onChange,
  shape,
  problem,
}: {
  id: string
  label: string
  hint: string
  value: ImageValue
  onChange: (value: ImageValue) => void
  shape: 'portrait' | 'wide'
  problem?: FieldProblem | undefined
}) {
  const { t } = useTranslation('characters-edit')
  const input = useRef<HTMLInputElement>(null)
  const src = imageSrc(value)

  const choose = async (file: File | undefined) => {
    if (!file) return
    // Too large: still taken, so the field says why it cannot be saved instead of silently ignoring it.
    const dataUrl = file.size > 2 * CHARACTER_LIMITS.imageBytes ? '' : await readAsDataUrl(file)
    onChange({ kind: 'new', dataUrl, name: file.name, size: file.size })
    if (input.current) input.current.value = ''
  }

  return (
    <div className="mb-5">
      <span id={`${id}-label`} className="mb-1 block text-sm font-medium">
        {label}
      </span>
      <div className="flex flex-wrap items-center gap-4">
        <div
          className={`grid shrink-0 place-items-center overflow-hidden rounded-xl border border-zinc-700 bg-zinc-800 text-center text-xs text-zinc-400 ${shape === 'portrait' ? 'aspect-[2/3] w-24' : 'aspect-[3/1] w-48'}`}
        >
          {src ? (
            // The whole picture, as it is kept (ADR 042); pages frame it.
            <img
              src={src}
              alt=""
              className={`size-full ${shape === 'portrait' ? 'object-contain' : 'object-cover'}`}
              data-testid={`${id}-preview`}
            />
          ) : (
            <span className="px-2">{t('form.noImage')}</span>
          )}
        </div>
        <div className="flex flex-wrap gap-2">
          <input
            ref={input}
            id={id}
            name={id}
            type="file"
            accept="image/png,image/jpeg,image/webp,image/gif,image/avif"
            className="sr-only"
            aria-labelledby={`${id}-label`}
            aria-describedby={`${id}-hint${problem ? ` ${id}-error` : ''}`}
            aria-invalid={problem ? true : undefined}
            onChange={(event) => choose(event.target.files?.[0])}
          />
          <button type="button" className="button-secondary px-4 py-2 text-sm" onClick={() => input.current?.click()}>
            <ImagePlus aria-hidden="true" className="size-4" />
            {src ? t('form.replaceImage') : t('form.chooseImage')}
          </button>
          {src || value.kind === 'new' ? (
            <button type="button" className="button-ghost" onClick={() => onChange({ kind: 'none' })}>
              <Trash2 aria-hidden="true" className="size-4" />
              {t('form.removeImage')}
            </button>
          ) : null}
        </div>
      </div>
      <p id={`${id}-hint`} className="mt-1 text-xs text-zinc-400">
        {hint}
      </p>
      {problem ? (
        <p id={`${id}-error`} className="mt-1 text-sm text-rose-300" data-testid={`error-${id}`}>
          {fieldErrorText(t, problem)}
        </p>
      ) : null}
    </div>
  )
}
