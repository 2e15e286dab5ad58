import { type ComponentType, useEffect, useState } from 'react'
import type { ToasterProps } from 'sonner'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import {
  closeNotificationAt,
  flushNotifications,
  loadSonner,
  NOTIFICATION_DURATION_MS,
  onFirstNotification,
} from '#app/lib/notify.tsx'

/**
 * Where notifications appear: top centre, 3 s, closed by a click anywhere on them. The toaster
 * itself is loaded with the first notification.
 */
export function Notifications() {
  const { t, i18n } = useTranslation()
  const [Toaster, setToaster] = useState<ComponentType<ToasterProps> | null>(null)

  useEffect(
    () =>
      onFirstNotification(() => {
        loadSonner().then((library) => setToaster(() => library.Toaster))
      }),
    [],
  )
  // Once the toaster is on screen, show what was asked for while it loaded.
  useEffect(() => {
    if (Toaster) void loadSonner().then(flushNotifications)
  }, [Toaster])

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions lint/a11y/useKeyWithClickEvents: a pointer shortcut; each notification keeps its own keyboard-accessible close button.
    <div onClick={(event) => closeNotificationAt(event.target as Element)} className="notifications">
      {Toaster ? (
        <Toaster
          position="top-center"
          duration={NOTIFICATION_DURATION_MS}
          dir={i18n.dir()}
          theme="dark"
          closeButton
          containerAriaLabel={t('notifications.label')}
          toastOptions={{ closeButtonAriaLabel: t('notifications.close') }}
        />
      ) : null}
    </div>
  )
}
