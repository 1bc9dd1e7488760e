/**
 * `GET /api/canary/api/topology` (http-api §2.6.4): what the embedded backend answers and the
 * console's topology screens read. Optional keys are omitted when empty, as the platform does.
 */
export type TopologyComponentNode = {
  id: string
  name: string
  type: string
  status: string
  health?: string
  status_reason?: string
  owner?: string
  icon?: string
  text?: string
  tooltip?: string
  namespace?: string
  labels?: Record<string, string>
  parent_id?: string
  topology_id?: string
  external_id: string
  description?: string
  hidden?: boolean
  lifecycle?: string
  path?: string
  properties?: unknown[]
  /** Rolled-up counts (healthy, unhealthy, warning, …; checks; incidents; insights). */
  summary?: Record<string, unknown>
  /** status → count of linked checks. */
  checks?: Record<string, number>
  /** type → {severity: count} of open incidents. */
  incidents?: Record<string, Record<string, number>>
  /** analysis type → {severity: count} of open insights on linked configs. */
  analysis?: Record<string, Record<string, number>>
  team_names?: string[]
  logs?: string[]
  created_at: string
  updated_at?: string
  components?: TopologyComponentNode[]
}

export type TopologyResponse = {
  components: TopologyComponentNode[]
  healthStatuses: string[]
  teams: string[]
  tags: Record<string, string[]>
  types: string[]
}
