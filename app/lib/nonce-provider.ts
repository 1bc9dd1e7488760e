import { createContext, useContext } from 'react'

/**
 * The per-request CSP nonce, handed from entry.server to the document. On the client the
 * value is empty: browsers hide nonce attributes after parsing and scripts added later are
 * trusted through the initial ones ('strict-dynamic').
 */
export const NonceContext = createContext<string>('')
export const NonceProvider = NonceContext.Provider

export function useNonce(): string {
  return useContext(NonceContext)
}
