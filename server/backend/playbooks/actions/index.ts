import { ACTION_TYPES, type ActionType } from '#contract/playbook/playbook-vocabulary.ts'
import type { ActionContext, ActionExecutor, ActionOutcome, ActionRunner, PlaybookActionSpec } from '../playbook-model.ts'
import { redactSecrets, redactValue } from '#server/backend/secrets/sealed-secrets.ts'
import { renderActionFields } from '../playbook-template.ts'
import { ActionInputError } from './action-access.ts'
import { runExecAction } from './exec-action.ts'
import { runHttpAction } from './http-action.ts'
import { runLogsAction } from './logs-action.ts'
import { runNotificationAction } from './notification-action.ts'
import { runPrometheusAction } from './prometheus-action.ts'
import { runSqlAction } from './sql-action.ts'
import { unsupportedAction } from './unsupported-actions.ts'

/**
 * Executes one action (resource-specs §2.5): picks its primary key, renders that block's strings
 * with the run's environment (struct templating, §0.6) and runs it. `notification` and `gitops`
 * may sit beside a primary; they run after it, whatever its outcome, so a notification can report
 * a failure. Results and errors leave here with secret parameter values replaced by [REDACTED].
 */
export type { ActionRunner }

const RUNNERS: Record<ActionType, ActionRunner> = {
  exec: runExecAction,
  http: runHttpAction,
  sql: runSqlAction,
  notification: runNotificationAction,
  logs: runLogsAction,
  prometheus: runPrometheusAction,
  gitops: unsupportedAction('gitops'),
  github: unsupportedAction('github'),
  azureDevopsPipeline: unsupportedAction('azureDevopsPipeline'),
  pod: unsupportedAction('pod'),
  ai: unsupportedAction('ai'),
  report: unsupportedAction('report'),
  catalog: unsupportedAction('catalog'),
}

const SIDE_KEYS: readonly ActionType[] = ['notification', 'gitops']

/** The action's keys in the order they run: the primary first, then `notification` / `gitops` beside it. */
export function actionKeys(action: PlaybookActionSpec): ActionType[] {
  const present = ACTION_TYPES.filter((key) => action[key] !== undefined && action[key] !== null)
  const primary = present.filter((key) => !SIDE_KEYS.includes(key))
  if (primary.length > 1) throw new ActionInputError(`action ${action.name} has more than one action type (${primary.join(', ')})`)
  return [...primary, ...present.filter((key) => SIDE_KEYS.includes(key))]
}

/** Keys of each block left as written by struct templating. */
function untemplated(key: ActionType, spec: Record<string, unknown>): string[] {
  if (key === 'http' && spec.templateBody !== true) return ['body']
  // CEL, evaluated per log line.
  if (key === 'logs') return ['match']
  return []
}

async function runOne(key: ActionType, action: PlaybookActionSpec, context: ActionContext): Promise<ActionOutcome> {
  const raw = action[key] ?? {}
  if (typeof raw !== 'object' || Array.isArray(raw)) return { result: {}, error: `${key} must be an object` }
  let spec: Record<string, unknown>
  try {
    spec = renderActionFields(raw, context.env, { skip: untemplated(key, raw), where: key })
  } catch (error) {
    return { result: {}, error: (error as Error).message }
  }
  try {
    return await RUNNERS[key](spec, context)
  } catch (error) {
    return { result: {}, error: error instanceof Error ? error.message || error.name : String(error) }
  }
}

export const executeAction: ActionExecutor = async (action, context) => {
  let keys: ActionType[]
  try {
    keys = actionKeys(action)
  } catch (error) {
    return { result: {}, error: (error as Error).message }
  }
  if (keys.length === 0) return { result: {}, error: `action ${action.name} has no action type (one of ${ACTION_TYPES.join(', ')})` }
  const [primaryKey, ...sideKeys] = keys
  const primary = await runOne(primaryKey!, action, context)
  let result = primary.result
  const errors = primary.error ? [primary.error] : []
  const artifacts = [...(primary.artifacts ?? [])]
  for (const key of sideKeys) {
    const side = await runOne(key, action, context)
    result = { ...result, [key]: side.result }
    if (side.error) errors.push(`${key}: ${side.error}`)
    artifacts.push(...(side.artifacts ?? []))
  }
  const secrets = context.env.secrets
  return {
    result: redactValue(result, secrets),
    ...(errors.length > 0 ? { error: redactSecrets(errors.join('; '), secrets) } : {}),
    ...(artifacts.length > 0 ? { artifacts } : {}),
  }
}
