import { createContext, type ReactNode, useContext } from 'react'

// In the browser the nonce is hidden from the DOM, so the client renders an empty one.
const NonceContext = createContext<string>('')

export function NonceProvider({ value, children }: { value: string; children: ReactNode }) {
  return <NonceContext.Provider value={value}>{children}</NonceContext.Provider>
}

export function useNonce(): string {
  return useContext(NonceContext)
}
