import { type ReactNode, useEffect, useState } from 'react'
import { useLocation } from 'react-router'
import { useTranslation } from '#app/lib/i18n-react.tsx'
import { Footer } from './footer.tsx'
import { Sidebar } from './sidebar.tsx'
import { TopBar } from './top-bar.tsx'

/**
 * The frame of every page: sidebar at the inline start (right in Arabic), top bar, content, footer.
 * Below the `lg` breakpoint the sidebar becomes a drawer opened from the top bar.
 */
export function AppShell({ children }: { children: ReactNode }) {
  const { t } = useTranslation()
  const [menuOpen, setMenuOpen] = useState(false)
  const location = useLocation()

  // biome-ignore lint/correctness/useExhaustiveDependencies: close the drawer on every navigation.
  useEffect(() => setMenuOpen(false), [location.key])
  useEffect(() => {
    if (!menuOpen) return
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') setMenuOpen(false)
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [menuOpen])

  return (
    <div className="flex min-h-dvh">
      <a href="#main" className="skip-link">
        {t('nav.skipToContent')}
      </a>
      <Sidebar open={menuOpen} onClose={() => setMenuOpen(false)} />
      {menuOpen ? (
        <button
          type="button"
          aria-label={t('nav.closeMenu')}
          className="fixed inset-0 z-30 bg-black/60 lg:hidden"
          onClick={() => setMenuOpen(false)}
        />
      ) : null}
      <div className="flex min-w-0 flex-1 flex-col">
        <TopBar menuOpen={menuOpen} onToggleMenu={() => setMenuOpen((open) => !open)} />
        <main id="main" className="flex-1 px-4 py-6 sm:px-6 lg:px-10">
          {children}
        </main>
        <Footer />
      </div>
    </div>
  )
}
