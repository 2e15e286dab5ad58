import { createContext, RouterContextProvider } from 'react-router'

/** What the HTTP server hands to every loader and to the SSR entry for one request. */
export type AppLoadContextValues = {
  /** CSP nonce for the scripts this response emits. */
  nonce: string
  requestId: string
}

export const appLoadContext = createContext<AppLoadContextValues>()

export function createAppLoadContext(values: AppLoadContextValues): RouterContextProvider {
  const provider = new RouterContextProvider()
  provider.set(appLoadContext, values)
  return provider
}
