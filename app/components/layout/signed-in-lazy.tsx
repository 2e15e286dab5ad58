import { lazy, Suspense } from 'react'
import { getAccessToken } from '#app/lib/session.ts'

// The signed-in parts of the shell come in their own chunk (signed-in.tsx): the home page's
// first-load JavaScript has a budget, and a visitor never sees them. The server renders the
// signed-out shell, so nothing here takes part in hydration (no server-rendered Suspense boundary).
type Module = typeof import('./signed-in.tsx')
let loaded: Module | undefined
let loading: Promise<Module> | undefined
const load = () => {
  loading ??= import('./signed-in.tsx').then(
    (module) => {
      loaded = module
      return module
    },
    (error: unknown) => {
      loading = undefined // the next render tries again
      throw error
    },
  )
  return loading
}

// Fetched while the page hydrates when tokens are held: once there, the parts render at once (no
// Suspense fallback), as they did when they were part of the shell.
if (typeof window !== 'undefined' && getAccessToken()) void load().catch(() => {})

const LazyAccountActions = lazy(() => load().then((module) => ({ default: module.AccountActions })))
const LazyMyChatsSection = lazy(() => load().then((module) => ({ default: module.MyChatsSection })))

export function AccountActions() {
  if (loaded) return <loaded.AccountActions />
  return (
    <Suspense fallback={null}>
      <LazyAccountActions />
    </Suspense>
  )
}

export function MyChatsSection() {
  if (loaded) return <loaded.MyChatsSection />
  return (
    <Suspense fallback={null}>
      <LazyMyChatsSection />
    </Suspense>
  )
}
