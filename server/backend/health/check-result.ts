import type { TargetGuard } from './checks/target-guard.ts'

/** One outcome of running a check (resource-specs §1.4 step 2). */
export type CheckResult = {
  pass: boolean
  invalid: boolean
  message: string
  errors: string[]
  /** Milliseconds. */
  duration: number
  start: Date
  /** The variable bag test/display/transform see; always holds `results`. */
  data: Record<string, unknown>
  /** What is stored in check_statuses.details; undefined stores null. */
  detail?: unknown
  /** Set when a transform fans out into a new check. */
  transformed?: { name: string; type?: string; description?: string; labels?: Record<string, string>; icon?: string }
}

export function newResult(start = new Date()): CheckResult {
  return { pass: true, invalid: false, message: '', errors: [], duration: 0, start, data: { results: {} } }
}

export function failResult(result: CheckResult, error: string): CheckResult {
  result.pass = false
  result.errors.push(error)
  return result
}

export function invalidResult(result: CheckResult, error: string): CheckResult {
  result.invalid = true
  result.pass = false
  result.errors.push(error)
  return result
}

/** Everything a runner may need besides its own spec. */
export type CheckRunContext = {
  signal: AbortSignal
  timeoutMs: number
  canary: { id: string; name: string; namespace: string; labels: Record<string, string>; annotations: Record<string, string> }
  check: { id: string; name: string; type: string; description: string; labels: Record<string, string>; endpoint: string }
  /** Field templating is on unless the canary sets `template: "false"`. */
  templatesEnabled: boolean
  resolveConnection(ref: string, namespace: string): Promise<StoredConnection | null>
  lastResult(): Promise<Record<string, unknown> | null>
  /** Where network checks may connect (target-guard.ts); absent = anywhere. */
  targets?: TargetGuard
}

export type StoredConnection = {
  id: string
  name: string
  namespace: string
  type: string
  url: string | null
  username: string | null
  password: string | null
  properties: Record<string, unknown>
  insecureTls: boolean
}

export type CheckRunner = (spec: Record<string, unknown>, context: CheckRunContext) => Promise<CheckResult[]>

/** Which types may use test/display/transform (§1.2): all but dns, icmp, redis and mongodb. */
export const TYPES_WITHOUT_EXPRESSIONS = new Set(['dns', 'icmp', 'redis', 'mongodb'])
