/**
 * The playbook run and action vocabulary of resource-specs §2.7, shared by the runner, the API
 * and the console (status badges, filters, which buttons a run offers).
 */
export const RUN_STATUSES = [
  'pending_approval',
  'scheduled',
  'running',
  'sleeping',
  'retrying',
  'waiting',
  'completed',
  'failed',
  'cancelled',
  'timed_out',
] as const
export type RunStatus = (typeof RUN_STATUSES)[number]

export const FINAL_RUN_STATUSES: readonly RunStatus[] = ['completed', 'failed', 'cancelled', 'timed_out']
export const isFinalRunStatus = (status: string): boolean => (FINAL_RUN_STATUSES as readonly string[]).includes(status)

export const ACTION_STATUSES = ['scheduled', 'running', 'waiting', 'sleeping', 'waiting_children', 'completed', 'failed', 'skipped'] as const
export type ActionStatus = (typeof ACTION_STATUSES)[number]

export const FINAL_ACTION_STATUSES: readonly ActionStatus[] = ['completed', 'failed', 'skipped']
export const isFinalActionStatus = (status: string): boolean => (FINAL_ACTION_STATUSES as readonly string[]).includes(status)

/** Parameter types of resource-specs §2.2 (text is the default). */
export const PARAMETER_TYPES = [
  'text',
  'checkbox',
  'code',
  'list',
  'team',
  'people',
  'component',
  'config',
  'configs',
  'check',
  'duration',
  'bytes',
  'millicores',
  'secret',
] as const
export type ParameterType = (typeof PARAMETER_TYPES)[number]

/** The primary action keys of resource-specs §2.5; `notification` and `gitops` may also sit beside another. */
export const ACTION_TYPES = [
  'exec',
  'http',
  'sql',
  'notification',
  'gitops',
  'github',
  'azureDevopsPipeline',
  'pod',
  'logs',
  'ai',
  'prometheus',
  'report',
  'catalog',
] as const
export type ActionType = (typeof ACTION_TYPES)[number]

/** Action types that start a process on this host: writing them needs the admin-only exec right. */
export const PROCESS_ACTION_TYPES: readonly ActionType[] = ['exec']

/** One playbook parameter (resource-specs §2.2); `properties` keys seen in use are listed there. */
export type PlaybookParameterSpec = {
  name: string
  label?: string
  description?: string
  icon?: string
  type?: ParameterType
  default?: string
  required?: boolean
  dependsOn?: string[]
  properties?: Record<string, unknown>
}
