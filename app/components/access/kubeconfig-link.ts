import { useDialogParamHref } from './dialog-param-href.ts'

/** The URL parameter that opens the dialog on whatever page the user is on. */
export const KUBECONFIG_PARAM = 'kubeconfig'
/** The current URL with the dialog parameter set or removed. */
export function useKubeconfigHref(open: boolean): string {
  return useDialogParamHref(KUBECONFIG_PARAM, open)
}
