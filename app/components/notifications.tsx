import { type MouseEvent, useCallback } from 'react'
import { useTranslation } from 'react-i18next'
import { Toaster, toast } from 'sonner'
import { NOTIFICATION_DURATION_MS } from '#app/lib/notify.tsx'

/** Where notifications appear: top centre, 3 s, closed by a click anywhere on them. */
export function Notifications() {
  const { t, i18n } = useTranslation()
  const closeOnClick = useCallback((event: MouseEvent<HTMLDivElement>) => {
    const item = (event.target as HTMLElement).closest<HTMLElement>('[data-sonner-toast]')
    if (!item) return
    const list = [...(item.parentElement?.querySelectorAll('[data-sonner-toast]') ?? [])]
    const index = list.indexOf(item)
    const active = toast.getToasts().filter((x) => !('dismiss' in x && x.dismiss))
    // Rendered newest first, like sonner's own state.
    const target = [...active].reverse()[index] ?? active[index]
    if (target) toast.dismiss(target.id)
  }, [])
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions lint/a11y/useKeyWithClickEvents: a click shortcut; each toast keeps its own keyboard-accessible close button.
    <div onClick={closeOnClick} className="notifications">
      <Toaster
        position="top-center"
        duration={NOTIFICATION_DURATION_MS}
        dir={i18n.dir()}
        theme="dark"
        closeButton
        containerAriaLabel={t('notifications.label')}
        toastOptions={{ closeButtonAriaLabel: t('notifications.close') }}
      />
    </div>
  )
}
