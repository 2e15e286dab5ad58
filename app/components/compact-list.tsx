import { type ReactNode, useState } from 'react'
import { useTranslation } from '#app/lib/i18n-react.tsx'

/**
 * A wrapping list (tags, chips) that shows its first `visible` items and a "+N more" button that
 * shows the rest ("Show fewer" folds them again). The hidden items are rendered with `hidden`, so
 * the page's HTML still carries them (links stay crawlable) and nothing moves when they open.
 * A single item to fold is shown instead of a button for it.
 */
export function CompactList<T>({
  items,
  visible,
  keyOf,
  render,
  className,
  itemClassName,
  keepShown,
  testId,
}: {
  items: readonly T[]
  visible: number
  keyOf: (item: T) => string
  render: (item: T, index: number) => ReactNode
  className: string
  itemClassName?: (item: T, index: number) => string
  /** Items never folded away (one marked with an error must stay in sight). */
  keepShown?: (item: T, index: number) => boolean
  testId?: string
}) {
  const { t } = useTranslation()
  const [open, setOpen] = useState(false)
  const foldable = items.map((item, index) => index >= visible && !keepShown?.(item, index))
  const hiddenCount = foldable.filter(Boolean).length
  const folds = hiddenCount > 1
  return (
    <ul className={className} data-testid={testId}>
      {items.map((item, index) => (
        <li key={keyOf(item)} className={itemClassName?.(item, index)} hidden={folds && !open && foldable[index]}>
          {render(item, index)}
        </li>
      ))}
      {folds ? (
        <li>
          <button
            type="button"
            aria-expanded={open}
            className="rounded-full border border-zinc-700 px-2.5 py-0.5 text-xs text-zinc-300 hover:bg-zinc-800"
            onClick={() => setOpen(!open)}
            data-testid={testId ? `${testId}-toggle` : undefined}
          >
            {open ? t('compactList.fewer') : t('compactList.more', { count: hiddenCount })}
          </button>
        </li>
      ) : null}
    </ul>
  )
}
