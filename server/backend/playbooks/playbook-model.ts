import type { Logger } from 'pino'
import type { ActionStatus, ActionType, PlaybookParameterSpec, RunStatus } from '#contract/playbook/playbook-vocabulary.ts'
import type { Db, Queryable } from '#server/db/client.ts'

/**
 * The seams between the playbook parts (issue 16): the document (contract/playbook/
 * playbook-document.ts validates it), run creation (run-create.ts), the runner and its state
 * machine (playbook-runner.ts, run-state.ts), the template environment (playbook-template.ts) and
 * the action executors (actions/). Each part depends on these types, not on another's internals.
 */

export type RetrySpec = { limit: number; duration?: string; jitter?: number; exponent?: { multiplier?: number } }

/** One action: the common fields plus exactly one primary key of ACTION_TYPES (validated by the document schema). */
export type PlaybookActionSpec = {
  name: string
  if?: string
  delay?: string
  timeout?: string
  retry?: RetrySpec
  runsOn?: string[]
  templatesOn?: 'host' | 'agent'
  contentType?: string
} & Partial<Record<ActionType, Record<string, unknown>>>

export type ApprovalSpec = { type?: 'any' | 'all' | ''; approvers?: { people?: string[]; teams?: string[] } }

export type PlaybookSpec = {
  title?: string
  description?: string
  category?: string
  icon?: string
  timeout?: string
  parameters?: PlaybookParameterSpec[]
  configs?: Record<string, unknown>[]
  checks?: Record<string, unknown>[]
  components?: Record<string, unknown>[]
  filters?: string[]
  approval?: ApprovalSpec
  on?: Record<string, unknown>
  actions: PlaybookActionSpec[]
  env?: Record<string, unknown>[]
  runsOn?: string[]
  templatesOn?: 'host' | 'agent'
  [key: string]: unknown
}

/** A `playbook_runs` row as the runner reads it (data-model §7). */
export type PlaybookRunRow = {
  id: string
  playbook_id: string
  /** The playbook spec as it was when the run was created. */
  spec: PlaybookSpec
  status: RunStatus
  created_at: Date
  scheduled_time: Date
  start_time: Date | null
  end_time: Date | null
  /** Nanoseconds, as the reference stores it. */
  timeout: number
  created_by: string | null
  config_id: string | null
  component_id: string | null
  check_id: string | null
  /** Secret values stay encrypted here; playbook-template.ts decrypts them while templating only. */
  parameters: Record<string, string> | null
  request: Record<string, unknown> | null
  parent_id: string | null
  error: string | null
}

/** A `playbook_run_actions` row. */
export type PlaybookRunActionRow = {
  id: string
  playbook_run_id: string
  name: string
  status: ActionStatus
  scheduled_time: Date
  start_time: Date | null
  end_time: Date | null
  result: Record<string, unknown> | null
  error: string | null
  /** Each attempt is its own row: null or 0 for the first, n for the n-th retry (data-model §7). */
  retry_count: number | null
}

/** What templates and CEL see (resource-specs §2.6). Built by playbook-template.ts. */
export type PlaybookTemplateEnv = {
  config?: Record<string, unknown>
  component?: Record<string, unknown>
  check?: Record<string, unknown>
  params: Record<string, unknown>
  env: Record<string, string>
  user?: Record<string, unknown>
  agent?: Record<string, unknown>
  playbook: Record<string, unknown>
  run: Record<string, unknown>
  action?: Record<string, unknown>
  request?: Record<string, unknown>
  /** The run's other actions so far, oldest first, for getLastAction() / getAction() / last_result. */
  actions: { name: string; status: string; result: unknown; error: string | null; start_time: Date | null; end_time: Date | null }[]
  /** Plain-text secret values, so outputs can be redacted to [REDACTED]. */
  secrets: string[]
}

export type ArtifactInput = { path: string; filename: string; contentType: string; content: Buffer }

export type ActionContext = {
  db: Db
  logger: Logger
  /** Aborted at the action's timeout (capped at the run's) and when the run is cancelled. */
  signal: AbortSignal
  run: PlaybookRunRow
  action: PlaybookRunActionRow
  env: PlaybookTemplateEnv
  /** Whether the playbook's author holds the exec right (check-trust.ts, relation playbooks): fences network targets otherwise. */
  trusted: boolean
}

export type ActionOutcome = {
  /** The action's `result` JSON (exec: {stdout, stderr, exitCode, path, args}; http: {code, headers, content}; ...). */
  result: Record<string, unknown>
  /** Set when the action failed (exec non-zero exit, a connection error, an unsupported platform). */
  error?: string
  artifacts?: ArtifactInput[]
}

/** One action type's runner, given that type's already-rendered fields. */
export type ActionRunner = (spec: Record<string, unknown>, context: ActionContext) => Promise<ActionOutcome>

/** Runs one already-selected action; templating of its fields happens inside (actions/index.ts). */
export type ActionExecutor = (action: PlaybookActionSpec, context: ActionContext) => Promise<ActionOutcome>

/** Who or what creates a run (resource-specs §2.7: UI/API, event, webhook, schedule, notification). */
export type RunCreator = { kind: 'person'; personId: string } | { kind: 'system'; reason: 'event' | 'webhook' | 'schedule' | 'notification' }

export type CreateRunInput = {
  playbookId: string
  configId?: string
  componentId?: string
  checkId?: string
  params?: Record<string, string>
  agentId?: string
  parentId?: string
  notificationSendId?: string
  request?: Record<string, unknown>
}

export type CreatedRun = { run_id: string; starts_at: string; status: RunStatus }

/** Errors the API turns into the reference's status codes and texts. */
export class PlaybookError extends Error {
  constructor(
    readonly status: 400 | 403 | 404 | 409 | 500,
    message: string,
  ) {
    super(message)
  }
}

export type { PlaybookParameterSpec, Queryable }
