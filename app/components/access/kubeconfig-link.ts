import { useLocation } from '@remix-run/react'

/** The URL parameter that opens the dialog on whatever page the user is on. */
export const KUBECONFIG_PARAM = 'kubeconfig'
/** The current URL with the dialog parameter set or removed. */
export function useKubeconfigHref(open: boolean): string {
  const location = useLocation()
  const params = new URLSearchParams(location.search)
  if (open) params.set(KUBECONFIG_PARAM, 'open')
  else params.delete(KUBECONFIG_PARAM)
  const search = params.toString()
  return `${location.pathname}${search ? `?${search}` : ''}`
}
