import { useLocation } from '@remix-run/react'

/**
 * The current URL with a dialog's parameter set to `open` or removed: the user menu's dialogs
 * (kubeconfig, Setup MCP) open over whatever page the person is on, and close back to it.
 */
export function useDialogParamHref(param: string, open: boolean): string {
  const location = useLocation()
  const params = new URLSearchParams(location.search)
  if (open) params.set(param, 'open')
  else params.delete(param)
  const search = params.toString()
  return `${location.pathname}${search ? `?${search}` : ''}`
}
