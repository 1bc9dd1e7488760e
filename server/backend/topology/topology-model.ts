import type { Logger } from 'pino'
import type { Selector } from '#server/backend/catalog/resource-search.ts'
import type { AllowedTarget } from '#server/backend/health/checks/target-guard.ts'

/**
 * The seam of the topology runner (issue 15). A run is two steps with one shape between them:
 *
 *   evaluateTopology (topology-evaluate.ts): spec → a tree of EvaluatedComponent. It reads the
 *     database (selectors, config lookups) and runs lookups' canary specs, but writes nothing.
 *   storeTopology (topology-store.ts): that tree → components rows and their links, inline
 *     canaries, health/status roll-up; unchanged rows cost no write; components that are no
 *     longer in the tree are soft-deleted.
 *
 * The engine (topology-engine.ts) only schedules: leases, run-now, job history; it calls
 * runTopology (topology-run.ts), which chains the two.
 */

/** A row of `topologies` as the runner reads it. */
export type TopologyRow = {
  id: string
  name: string
  namespace: string
  labels: Record<string, string> | null
  spec: Record<string, unknown>
  agent_id: string
  created_by: string | null
}

/** Statuses the Go type lists (data-model §5.8); health is healthy / unhealthy / warning / unknown. */
export type ComponentStatus = 'healthy' | 'unhealthy' | 'warning' | 'error' | 'info' | 'unknown'
export type ComponentHealth = 'healthy' | 'unhealthy' | 'warning' | 'unknown'

/** components.properties entries (resource-specs §3.6 "Property fields"), as stored. */
export type ComponentProperty = {
  name: string
  label?: string
  tooltip?: string
  icon?: string
  text?: string
  order?: number
  headline?: boolean
  type?: string
  color?: string
  hidden?: boolean
  unit?: string
  value?: number
  min?: number
  max?: number
  status?: string
  lastTransition?: string
  links?: { type?: string; url?: string; tooltip?: string; icon?: string; text?: string; label?: string }[]
}

/** components.summary: rolled-up counts (children's and checks' health), read by healthExpr/statusExpr as `summary`. */
export type ComponentSummary = {
  healthy?: number
  unhealthy?: number
  warning?: number
  unknown?: number
  info?: number
  error?: number
  checks?: Record<string, number>
  incidents?: Record<string, Record<string, number>>
  insights?: Record<string, Record<string, number>>
}

/** A link the store writes for a component; selectorId records which spec entry made it. */
export type CheckLink = { checkId: string; canaryId: string; selectorId: string }
export type ConfigLink = { configId: string; selectorId: string }
/** component_relationships row with this component as the parent side (relationship_id). */
export type ComponentLink = { componentId: string; selectorId: string; relationshipPath?: string }
export type TeamLink = { teamId: string; role?: string; selectorId: string }

/**
 * One component of an evaluated topology. The tree's root is the topology's own component
 * (name = topology name, type/icon/owner/… from spec's display fields, properties from spec.properties,
 * children from spec.components). Identity within a run is (type, name, parent); externalId
 * defaults to the parent's externalId + '/' + name.
 */
export type EvaluatedComponent = {
  name: string
  type: string
  externalId: string
  namespace?: string
  icon?: string
  tooltip?: string
  text?: string
  owner?: string
  order?: number
  labels?: Record<string, string>
  hidden?: boolean
  lifecycle?: string
  description?: string
  /** The spec's explicit status/health, if any (the store rolls up when absent). */
  status?: ComponentStatus
  statusReason?: string
  health?: ComponentHealth
  statusExpr?: string
  healthExpr?: string
  properties?: ComponentProperty[]
  /** Kept verbatim in the components columns of the same names. */
  selectors?: Selector[]
  componentChecks?: unknown[]
  configs?: unknown[]
  logSelectors?: { name: string; [key: string]: unknown }[]
  /** config_items.id this component represents (spec configID, or the first config selector match when it names one item by id). */
  configId?: string
  /** `checks: [{inline: <Canary spec>}]` entries, one canary spec each; the store creates the canary (source `component=<id>`) and links its checks. */
  inlineCanaries: { selectorId: string; spec: Record<string, unknown> }[]
  links: { checks: CheckLink[]; configs: ConfigLink[]; components: ComponentLink[]; teams: TeamLink[] }
  children: EvaluatedComponent[]
}

export type TopologyEvaluation = {
  root: EvaluatedComponent
  /** Problems that did not stop the run (a failed lookup, a bad expression): job history errors. */
  errors: string[]
  /**
   * True when a lookup failed, so components it used to yield are missing from the tree although
   * they may still exist: the store should not soft-delete live components absent from this tree
   * (canary-checker skips deletion after a lookup error too).
   */
  incomplete?: boolean
}

export type TopologyStoreSummary = {
  /** Live components of the topology after the run (the run route's `count`). */
  components: number
  created: number
  updated: number
  unchanged: number
  deleted: number
  /** Rows inserted, updated or deleted in any table by this run (0 when nothing changed). */
  rowWrites: number
  /** Problems the store met without stopping (a bad healthExpr/statusExpr, a duplicate component, a missing config): job history errors, beside evaluation.errors. */
  errors?: string[]
}

export type TopologyRunOutcome = { summary: TopologyStoreSummary; errors: string[] }

export type TopologyRunOptions = {
  signal?: AbortSignal
  logger?: Logger
  /** Whether an exec holder wrote this topology's spec (exec/folder lookups and inline exec checks need it; as for canaries). */
  trusted?: boolean
  /** Exceptions to the network fence of untrusted lookups (LOOKOUT_CHECK_ALLOWED_TARGETS, as for checks). */
  allowedTargets?: AllowedTarget[]
}
