import { toast } from 'sonner'

export type NotificationType = 'info' | 'success' | 'warning' | 'error'

/** Default from spec section 9. */
export const NOTIFICATION_DURATION_MS = 3000

/** The one way to tell the user something in passing. Closes on click; pauses on hover. */
export function notify(
  text: string,
  options: { type?: NotificationType; title?: string; duration?: number; group?: string } = {},
) {
  const show = options.type && options.type !== 'info' ? toast[options.type] : toast
  const message = options.title ?? text
  // A group replaces its previous notification instead of stacking another.
  return show(message, {
    id: options.group,
    description: options.title ? text : undefined,
    duration: options.duration ?? NOTIFICATION_DURATION_MS,
  })
}
