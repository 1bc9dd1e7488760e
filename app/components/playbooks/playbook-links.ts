/** Which resource a run is for, as the Run Playbook URL carries it. */
export type RunTargetParams = { config_id?: string; component_id?: string; check_id?: string }

/**
 * The Run Playbook dialog's URL: the playbook, the resource chosen (if any) and the page to go
 * back to when it closes (checked by the route before use: only a path on this site).
 */
export function runDialogHref(playbookId: string, target: RunTargetParams, returnTo: string): string {
  const search = new URLSearchParams()
  for (const [key, value] of Object.entries(target)) if (value) search.set(key, value)
  search.set('returnTo', returnTo)
  return `/playbooks/${encodeURIComponent(playbookId)}/run?${search.toString()}`
}

/** A same-site path to return to, else the catalogue. */
export function safeReturnTo(value: string | null | undefined): string {
  return value && value.startsWith('/') && !value.startsWith('//') && !value.startsWith('/\\') ? value : '/playbooks'
}
