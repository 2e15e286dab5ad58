import { toast } from 'sonner'

export type NotificationType = 'info' | 'success' | 'warning' | 'error'

/** Default from spec section 9. */
export const NOTIFICATION_DURATION_MS = 3000

let sequence = 0

/**
 * The one way to tell the user something in passing: top centre, 3 s, closes on click, pauses on
 * hover. A `group` replaces that group's previous notification instead of stacking another.
 */
export function notify(
  text: string,
  options: { type?: NotificationType; title?: string; duration?: number; group?: string } = {},
) {
  sequence += 1
  const id = options.group ?? `notification-${sequence}`
  const show = options.type && options.type !== 'info' ? toast[options.type] : toast
  // The id travels in the DOM so a click anywhere on the notification can close exactly this one.
  const message = <span data-notification-id={id}>{options.title ?? text}</span>
  return show(message, {
    id,
    description: options.title ? text : undefined,
    duration: options.duration ?? NOTIFICATION_DURATION_MS,
  })
}

/** Closes the notification an element belongs to (the click handler of the notification area). */
export function closeNotificationAt(target: Element | null) {
  const id = target
    ?.closest('[data-sonner-toast]')
    ?.querySelector<HTMLElement>('[data-notification-id]')
    ?.getAttribute('data-notification-id')
  if (id) toast.dismiss(id)
}
