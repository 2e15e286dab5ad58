import { useEffect } from 'react'
import type { ChatMessage } from '#contracts/chat.ts'

/** Where arrow keys belong to what has focus: a field with text in it, a menu, a dialog. */
function keysBelongElsewhere(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false
  if (target.closest('[role="dialog"], dialog, [role="menu"], [role="listbox"], select')) return true
  if (target instanceof HTMLTextAreaElement || target instanceof HTMLInputElement) return target.value !== ''
  return target.isContentEditable
}

/**
 * ←/→ show the previous or next stored alternative of `message` (the greeting before the first
 * message, or the newest reply), as its arrow buttons do, in the direction they point: in a
 * right-to-left page the "previous" arrow is on the right. A key never asks the model for a new
 * alternative (that costs a reply): past the last one it does nothing. Ignored while `disabled`,
 * with a modifier, and where the arrow keys do something else (a field with text, a dialog).
 */
export function useSwipeKeys(
  message: ChatMessage | null,
  disabled: boolean,
  onSwipe: (message: ChatMessage, direction: -1 | 1) => void,
) {
  useEffect(() => {
    if (!message || disabled || message.swipeCount < 2) return
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return
      if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return
      if (keysBelongElsewhere(event.target)) return
      const rtl = document.documentElement.dir === 'rtl'
      const direction = (event.key === 'ArrowRight') !== rtl ? 1 : -1
      const next = message.swipeIndex + direction
      if (next < 0 || next >= message.swipeCount) return
      event.preventDefault()
      onSwipe(message, direction)
    }
    window.addEventListener('keydown', onKeyDown)
    return () => window.removeEventListener('keydown', onKeyDown)
  }, [message, disabled, onSwipe])
}
