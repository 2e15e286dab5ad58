import { type FormEvent, useId, useState } from 'react'
import { useNavigate } from 'react-router'
import { useLocalizePath } from '#app/components/localized-link.tsx'
import { fieldClass } from '#app/features/console/components/note-field.tsx'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { characterIdFrom } from '../character-id.ts'

/** "Open a character": any character by its id or page address, reported or not, to act on it. */
export function OpenCharacter() {
  const { t } = useTranslation('console-moderation')
  const id = useId()
  const navigate = useNavigate()
  const localize = useLocalizePath()
  const [text, setText] = useState('')
  const [invalid, setInvalid] = useState(false)

  const open = (event: FormEvent) => {
    event.preventDefault()
    const characterId = characterIdFrom(text)
    setInvalid(characterId === null)
    if (characterId) void navigate(localize(`/console/reports/${encodeURIComponent(characterId)}`))
  }

  return (
    <form onSubmit={open} noValidate className="mb-6">
      <label htmlFor={`${id}-id`} className="mb-1 block text-sm font-medium">
        {t('open.label')}
      </label>
      <div className="flex flex-wrap items-center gap-3">
        <input
          id={`${id}-id`}
          dir="ltr"
          value={text}
          onChange={(event) => setText(event.target.value)}
          aria-invalid={invalid}
          aria-describedby={`${id}-hint`}
          className={`${fieldClass} min-w-64 flex-1 sm:max-w-md`}
        />
        <button type="submit" className="button-secondary">
          {t('open.submit')}
        </button>
      </div>
      <p id={`${id}-hint`} className={`mt-1 text-sm ${invalid ? 'text-rose-300' : 'text-zinc-400'}`}>
        {invalid ? t('open.invalid') : t('open.hint')}
      </p>
    </form>
  )
}
