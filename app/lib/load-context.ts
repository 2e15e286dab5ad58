import { createContext, RouterContextProvider } from 'react-router'
import type { BlogReader } from '#contracts/blog.ts'
import type { CatalogueReader, Viewer } from '#contracts/catalogue.ts'
import type { Plan } from '#contracts/plans.ts'
import type { FriendshipLinks } from '#contracts/site.ts'

/** What the HTTP server hands to every loader and to the SSR entry for one request. */
export type AppLoadContextValues = {
  /** CSP nonce for the scripts this response emits ('' for a page rendered for the cache). */
  nonce: string
  /**
   * Rendered for the shared render cache (ADR 062): the whole document at once, so what is stored
   * is complete and every inline script in it can be trusted by its hash.
   */
  forCache?: boolean
  requestId: string
  catalogue: CatalogueReader
  plans: { listPlans(): Promise<Plan[]> }
  blog: BlogReader
  friendshipLinks: FriendshipLinks
  viewer: Viewer
  /** What the pages may offer: sign-in providers that are configured. */
  features: {
    googleSignIn: boolean
    captcha: { provider: 'altcha' | 'turnstile'; siteKey: string | null }
  }
}

export const appLoadContext = createContext<AppLoadContextValues>()

export function createAppLoadContext(values: AppLoadContextValues): RouterContextProvider {
  const provider = new RouterContextProvider()
  provider.set(appLoadContext, values)
  return provider
}
