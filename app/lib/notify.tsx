import type { ExternalToast } from 'sonner'

type NotificationType = 'info' | 'success' | 'warning' | 'error'
type Options = {
  type?: NotificationType
  title?: string
  duration?: number
  group?: string
  /** A button in the notification (e.g. "Undo"); pressing it closes the notification too. */
  action?: { label: string; onClick: () => void }
}

/** Default from spec section 9. */
export const NOTIFICATION_DURATION_MS = 3000

type Sonner = typeof import('sonner')
let sonner: Sonner | null = null
let loading: Promise<Sonner> | null = null
const queue: { text: string; options: Options }[] = []
let sequence = 0

/** The toast library is loaded on the first notification, so pages that show none never pay for it. */
export function loadSonner(): Promise<Sonner> {
  loading ??= import('sonner').then((module) => {
    sonner = module
    return module
  })
  return loading
}

function show(library: Sonner, text: string, options: Options) {
  sequence += 1
  const id = options.group ?? `notification-${sequence}`
  const { toast } = library
  const display = options.type && options.type !== 'info' ? toast[options.type] : toast
  // The id travels in the DOM so a click anywhere on the notification can close exactly this one.
  const message = <span data-notification-id={id}>{options.title ?? text}</span>
  const settings: ExternalToast = {
    id,
    description: options.title ? text : undefined,
    duration: options.duration ?? NOTIFICATION_DURATION_MS,
    ...(options.action ? { action: { label: options.action.label, onClick: options.action.onClick } } : {}),
  }
  display(message, settings)
}

const waiting = new Set<() => void>()

/** Called by the notification area once its toaster is on screen. */
export function flushNotifications(library: Sonner) {
  for (const { text, options } of queue.splice(0)) show(library, text, options)
}

/** Lets the notification area know it must load (it renders nothing until the first notification). */
export function onFirstNotification(listener: () => void): () => void {
  waiting.add(listener)
  return () => waiting.delete(listener)
}

/**
 * The one way to tell the user something in passing: top centre, 3 s, closes on click, pauses on
 * hover. A `group` replaces that group's previous notification instead of stacking another.
 */
export function notify(text: string, options: Options = {}) {
  if (sonner) {
    show(sonner, text, options)
    return
  }
  queue.push({ text, options })
  for (const listener of waiting) listener()
}

/** Closes the notification an element belongs to (the click handler of the notification area). */
export function closeNotificationAt(target: Element | null) {
  const id = target
    ?.closest('[data-sonner-toast]')
    ?.querySelector<HTMLElement>('[data-notification-id]')
    ?.getAttribute('data-notification-id')
  if (id && sonner) sonner.toast.dismiss(id)
}
