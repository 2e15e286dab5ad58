import { Plus, X } from 'lucide-react'
import { useId, useState } from 'react'
import { CompactList } from '#app/components/compact-list.tsx'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import type { Tag } from '#contracts/catalogue.ts'
import { CHARACTER_LIMITS, type FieldProblem, tagKey } from '#contracts/characters.ts'
import { type FormTag, formTagKey, tagFor } from '../form-state.ts'
import { fieldErrorText } from './field-error.ts'

const SUGGESTIONS = 16
/** Chips shown before "+N more": a card's 20-odd tags stay one or two lines. */
const VISIBLE_CHIPS = 12

/**
 * Chosen tags as removable chips; an input that adds a known tag (by name or slug) or a new one on
 * Enter; and the known tags matching what is typed, one click each.
 */
export function TagPicker({
  value,
  onChange,
  known,
  problems,
}: {
  value: FormTag[]
  onChange: (tags: FormTag[]) => void
  known: Tag[]
  /** `tags` and `tags.<index>` problems. */
  problems: FieldProblem[]
}) {
  const { t } = useTranslation('characters-edit')
  const id = useId()
  const [typed, setTyped] = useState('')
  const full = value.length >= CHARACTER_LIMITS.tags
  const chosen = new Set(value.map(formTagKey))
  const query = tagKey(typed)
  const suggestions = known
    .filter((tag) => !chosen.has(tag.slug) && (!query || tagKey(tag.name).includes(query)))
    .slice(0, SUGGESTIONS)

  const add = (tag: FormTag) => {
    if (!tag.name || chosen.has(formTagKey(tag))) return
    onChange([...value, tag])
    setTyped('')
  }
  const listProblem = problems.find((p) => p.path === 'tags')
  const errorId = `${id}-error`

  return (
    <fieldset className="mb-5" aria-describedby={`${id}-hint${problems.length > 0 ? ` ${errorId}` : ''}`}>
      <legend className="mb-1 text-sm font-medium">{t('form.tags')}</legend>
      {value.length > 0 ? (
        <CompactList
          items={value}
          visible={VISIBLE_CHIPS}
          keyOf={formTagKey}
          className="mb-2 flex flex-wrap gap-1.5"
          testId="chosen-tags"
          keepShown={(_, index) => problems.some((p) => p.path === `tags.${index}`)}
          itemClassName={(_, index) =>
            `flex items-center gap-1 rounded-full py-0.5 ps-3 pe-1 text-sm ${problems.some((p) => p.path === `tags.${index}`) ? 'bg-rose-950 text-rose-200 ring-1 ring-rose-400' : 'bg-violet-950 text-violet-100'}`
          }
          render={(tag, index) => (
            <>
              <bdi>{tag.name}</bdi>
              {tag.slug === null ? <span className="text-xs text-violet-300">({t('form.newTag')})</span> : null}
              <button
                type="button"
                className="grid size-6 place-items-center rounded-full hover:bg-violet-800"
                aria-label={t('form.removeTag', { tag: tag.name })}
                onClick={() => onChange(value.filter((_, i) => i !== index))}
              >
                <X aria-hidden="true" className="size-3.5" />
              </button>
            </>
          )}
        />
      ) : null}
      <div className="flex gap-2">
        <label htmlFor={`${id}-input`} className="sr-only">
          {t('form.tagInput')}
        </label>
        <input
          id={`${id}-input`}
          type="text"
          value={typed}
          disabled={full}
          placeholder={t('form.tagInput')}
          dir="auto"
          className="h-10 min-w-0 flex-1 rounded-lg border border-zinc-700 bg-zinc-950 px-3 text-zinc-100 placeholder:text-zinc-400 focus:border-violet-400 focus:outline-none disabled:opacity-60"
          onChange={(event) => setTyped(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter' || event.key === ',') {
              event.preventDefault()
              if (typed.trim()) add(tagFor(typed, known))
            }
          }}
          data-testid="tag-input"
        />
        <button
          type="button"
          className="button-secondary px-4 py-2 text-sm"
          disabled={full || !typed.trim()}
          onClick={() => add(tagFor(typed, known))}
        >
          <Plus aria-hidden="true" className="size-4" />
          {t('form.addTag')}
        </button>
      </div>
      <p id={`${id}-hint`} className="mt-1 text-xs text-zinc-400">
        {t('form.tagsHint', { count: CHARACTER_LIMITS.tags })}
      </p>
      {problems.length > 0 ? (
        <p id={errorId} className="mt-1 text-sm text-rose-300" data-testid="error-tags">
          {fieldErrorText(t, listProblem ?? (problems[0] as FieldProblem))}
        </p>
      ) : null}
      {suggestions.length > 0 && !full ? (
        <div className="mt-2">
          <p className="mb-1 text-xs text-zinc-400">{t('form.suggestions')}</p>
          <ul className="flex flex-wrap gap-1.5">
            {suggestions.map((tag) => (
              <li key={tag.slug}>
                <button
                  type="button"
                  className="rounded-full bg-zinc-800 px-2.5 py-0.5 text-xs text-zinc-300 hover:bg-zinc-700"
                  onClick={() => add({ slug: tag.slug, name: tag.name })}
                >
                  <bdi>{tag.name}</bdi>
                </button>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </fieldset>
  )
}
