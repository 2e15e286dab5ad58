import type { DefaultNamespace, FlatNamespace, Namespace, TFunction } from 'i18next'
import { createContext, type ReactNode, use, useContext, useMemo } from 'react'
import { DEFAULT_LOCALE } from '#contracts/locales.ts'
import { createI18n, type I18n } from './i18n.ts'

// The pages' `useTranslation` (ADR 065), typed as react-i18next's was: `t` knows the keys of
// the namespaces asked for. A namespace not loaded yet suspends the component until it is, as
// react-i18next's `useSuspense` did (a navigation keeps the previous page meanwhile).

type FallbackNs<Ns> = Ns extends Namespace ? Ns : DefaultNamespace

/** Outside a provider (a component rendered on its own in a test) the keys show, as with react-i18next. */
const I18nContext = createContext<I18n>(createI18n(DEFAULT_LOCALE, {}))

/** A promise React reads as already fulfilled (its `status`), so `use` returns without suspending. */
const SETTLED = Object.assign(Promise.resolve(), { status: 'fulfilled' as const, value: undefined })

export function I18nProvider({ i18n, children }: { i18n: I18n; children: ReactNode }) {
  return <I18nContext value={i18n}>{children}</I18nContext>
}

export function useTranslation<const Ns extends FlatNamespace | readonly FlatNamespace[] | undefined = undefined>(
  ns?: Ns,
): { t: TFunction<FallbackNs<Ns>>; i18n: I18n } {
  const i18n = useContext(I18nContext)
  const key = ns === undefined ? 'common' : typeof ns === 'string' ? ns : ns.join(',')
  const namespaces = useMemo(() => key.split(','), [key])
  // `use` is called on every render, never conditionally: React replays a component that suspended
  // once the promise settles, and only a `use` call in that replay tells it to create (not update)
  // the hooks after it. Skipped because the namespaces had arrived meanwhile, the next hook of a
  // mounting component threw React error #467 (seen on a loaded machine).
  use(i18n.settled(namespaces) ? SETTLED : i18n.load(namespaces))
  const t = useMemo(
    () => ((k: string, options?: Record<string, unknown>) => i18n.translate(namespaces, k, options)) as never,
    [i18n, namespaces],
  )
  return { t, i18n }
}
