import { useTranslation } from 'react-i18next'
import { Toaster } from 'sonner'
import { closeNotificationAt, NOTIFICATION_DURATION_MS } from '#app/lib/notify.tsx'

/** Where notifications appear: top centre, 3 s, closed by a click anywhere on them. */
export function Notifications() {
  const { t, i18n } = useTranslation()
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions lint/a11y/useKeyWithClickEvents: a pointer shortcut; each notification keeps its own keyboard-accessible close button.
    <div onClick={(event) => closeNotificationAt(event.target as Element)} className="notifications">
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
