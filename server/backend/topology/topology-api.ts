import type { Db } from '#server/db/client.ts'
import { Params } from '#server/backend/postgrest/sql-builder.ts'
import { isUuid } from '#contract/uuid.ts'
import { allowMatchSql, denyMatchSql, visibleComponentSql, type ComponentVisibility } from './component-access.ts'

/**
 * `GET /api/canary/api/topology` (http-api §2.6.4) in one statement: a recursive walk down
 * `parent_id` from the root (`id`) or the top-level components, only as deep as `depth`, so a
 * request reads the components it answers with and never the rest of the database. Each node's
 * JSON (with the `topology` view's extras: checks, incidents, analysis, team_names, logs) is
 * built by PostgreSQL; Node only nests the node texts.
 *
 * Choices the reference leaves open:
 * - `id` names the root, which is answered whatever the filters (the page of a component shows
 *   it and filters its children); an unknown or hidden-from-you id gives an empty list.
 * - Filters (owner, labels, status, type, team, agent_id) apply on every level: in a tree a
 *   component that does not match is left out with its subtree; `flatten=true` lists every
 *   matching component down to `depth`, sorted as one list.
 * - `depth` counts levels below the root(s): 0 answers the roots alone (with `components: []`).
 * - Hidden components (and what hangs under them) are left out unless `hidden=true`.
 * - The facets (`healthStatuses`, `teams`, `tags`, `types`) describe the components walked
 *   before the filters leave any out, so a filter's drop-down keeps its other choices (in a
 *   tree, what lies under a left-out component is not walked).
 */

export class TopologyInputError extends Error {}

export type TopologySort = { kind: 'name' } | { kind: 'field'; path: string[] }

export type TopologyQuery = {
  id?: string
  owner?: string
  /** A label whose value is '' only has to be present. */
  labels?: Record<string, string>
  status?: string[]
  type?: string[]
  /** Team name or id (team_components). */
  team?: string
  agentId?: string
  depth: number
  flatten: boolean
  sortBy: TopologySort
  sortOrder: 'asc' | 'desc'
  hidden: boolean
}

export const DEFAULT_DEPTH = 5
// A deeper request costs nothing more than the tree's real depth; the bound stops a parent cycle.
const MAX_DEPTH = 100

function firstString(value: unknown): string | undefined {
  if (Array.isArray(value)) return firstString(value[0])
  return typeof value === 'string' ? value : undefined
}

/** The UI sends `All` for "no filter" (http-api §2.6.4): such values are dropped. */
function present(value: string | undefined): string | undefined {
  const text = value?.trim()
  return text && text !== 'All' ? text : undefined
}

function list(value: unknown): string[] | undefined {
  const items = firstString(value)?.split(',').map((item) => item.trim()).filter((item) => item && item !== 'All')
  return items?.length ? items : undefined
}

function boolean(value: unknown, name: string): boolean {
  const text = firstString(value)?.trim().toLowerCase()
  if (text === undefined || text === '' || text === 'false' || text === '0') return false
  if (text === 'true' || text === '1') return true
  throw new TopologyInputError(`${name} must be true or false`)
}

function labels(value: unknown): Record<string, string> | undefined {
  const text = present(firstString(value))
  if (!text) return undefined
  const result: Record<string, string> = {}
  for (const pair of text.split(',')) {
    if (!pair.trim()) continue
    const at = pair.indexOf('=')
    const key = (at === -1 ? pair : pair.slice(0, at)).trim()
    if (!key) throw new TopologyInputError(`labels must be k=v pairs separated by commas: '${pair}' has no key`)
    const labelValue = at === -1 ? '' : pair.slice(at + 1).trim()
    if (labelValue === 'All') continue
    result[key] = labelValue
  }
  return Object.keys(result).length ? result : undefined
}

/** Reads the query string of http-api §2.6.4 (plus the UI's team, hidden, agent_id); 400 naming the field otherwise. */
export function parseTopologyQuery(query: Record<string, unknown>): TopologyQuery {
  const id = present(firstString(query.id))
  if (id !== undefined && !isUuid(id)) throw new TopologyInputError('id must be a component id')
  const agentId = present(firstString(query.agent_id))
  if (agentId !== undefined && !isUuid(agentId)) throw new TopologyInputError('agent_id must be an agent id')
  const depthText = firstString(query.depth)?.trim()
  let depth = DEFAULT_DEPTH
  if (depthText) {
    if (!/^\d+$/.test(depthText)) throw new TopologyInputError('depth must be a whole number of levels (0 or more)')
    depth = Math.min(Number(depthText), MAX_DEPTH)
  }
  const sortText = present(firstString(query.sortBy))
  let sortBy: TopologySort = { kind: 'name' }
  if (sortText && sortText !== 'name') {
    if (!sortText.startsWith('field:') || sortText.length === 'field:'.length) {
      throw new TopologyInputError("sortBy must be 'name' or 'field:<path>' (e.g. field:properties.cpu)")
    }
    sortBy = { kind: 'field', path: sortText.slice('field:'.length).split('.') }
  }
  const orderText = present(firstString(query.sortOrder))?.toLowerCase()
  if (orderText !== undefined && orderText !== 'asc' && orderText !== 'desc') throw new TopologyInputError('sortOrder must be asc or desc')
  // Read to be refused like any other bad value; there is no cache to bypass.
  boolean(query.noCache ?? query['no-cache'], 'noCache')
  return {
    ...(id ? { id } : {}),
    ...(present(firstString(query.owner)) ? { owner: present(firstString(query.owner))! } : {}),
    ...(labels(query.labels) ? { labels: labels(query.labels)! } : {}),
    ...(list(query.status) ? { status: list(query.status)! } : {}),
    ...(list(query.type) ? { type: list(query.type)! } : {}),
    ...(present(firstString(query.team)) ? { team: present(firstString(query.team))! } : {}),
    ...(agentId ? { agentId } : {}),
    depth,
    flatten: boolean(query.flatten, 'flatten'),
    sortBy,
    sortOrder: orderText === 'desc' ? 'desc' : 'asc',
    hidden: boolean(query.hidden, 'hidden'),
  }
}

const ISO = (expression: string) => `to_char((${expression}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`

const NUMBER_TEXT = `'^\\s*-?[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?\\s*$'`

// Columns `field:<path>` may name, by how they sort.
const TEXT_FIELDS = new Set([
  'name', 'type', 'status', 'health', 'owner', 'namespace', 'external_id', 'text', 'tooltip', 'lifecycle', 'description',
  'icon', 'status_reason', 'path', 'topology_type',
])
const ID_FIELDS = new Set(['id', 'parent_id', 'topology_id', 'agent_id', 'config_id'])
const TIME_FIELDS = new Set(['created_at', 'updated_at'])
const NUMBER_FIELDS = new Set(['cost_per_minute', 'cost_total_1d', 'cost_total_7d', 'cost_total_30d'])
const JSON_FIELDS = new Set(['labels', 'summary', 'properties'])

/** The sort key of the output row `o` as (number, text) expressions; numbers sort first. */
function sortKeys(sort: TopologySort, params: Params): { value?: string; number: string; text: string } {
  if (sort.kind === 'name') return { number: 'NULL::numeric', text: 'o.name' }
  const [column, ...rest] = sort.path
  const bad = () => new TopologyInputError(`sortBy field '${sort.path.join('.')}' is not a component field (name, status, properties.<name>, labels.<key>, …)`)
  if (!column) throw bad()
  const textual = (expression: string) => ({
    number: `CASE WHEN ${expression} ~ ${NUMBER_TEXT} THEN trim(${expression})::numeric END`,
    text: expression,
  })
  if (rest.length === 0) {
    if (TEXT_FIELDS.has(column)) return textual(`o.${column}`)
    if (ID_FIELDS.has(column)) return { number: 'NULL::numeric', text: `o.${column}::text` }
    if (TIME_FIELDS.has(column)) return { number: 'NULL::numeric', text: ISO(`o.${column}`) }
    if (NUMBER_FIELDS.has(column)) return { number: `o.${column}`, text: 'NULL::text' }
    throw bad()
  }
  if (!JSON_FIELDS.has(column)) throw bad()
  let value: string
  if (column === 'properties') {
    // properties is a list of {name, value, text, …}: the path's next part names the property;
    // without more, its value (numeric) or else its text.
    const [name, ...field] = rest
    const pick = field.length ? `p #> ${params.textArray(field)}` : `coalesce(p -> 'value', p -> 'text')`
    value = `(SELECT ${pick} FROM jsonb_array_elements(CASE WHEN jsonb_typeof(o.properties) = 'array' THEN o.properties END) p
      WHERE p ->> 'name' = ${params.text(name!)} LIMIT 1)`
  } else {
    value = `(o.${column} #> ${params.textArray(rest)})`
  }
  return {
    value,
    number: `CASE WHEN jsonb_typeof(sv.v) = 'number' THEN (sv.v #>> '{}')::numeric
      WHEN jsonb_typeof(sv.v) = 'string' AND (sv.v #>> '{}') ~ ${NUMBER_TEXT} THEN trim(sv.v #>> '{}')::numeric END`,
    text: `sv.v #>> '{}'`,
  }
}

/** Whether component `c` passes the request's filters. */
function matchSql(query: TopologyQuery, params: Params): string {
  const parts: string[] = []
  if (query.owner) parts.push(`c.owner = ${params.text(query.owner)}`)
  if (query.status) parts.push(`c.status = ANY(${params.textArray(query.status)})`)
  if (query.type) parts.push(`c.type = ANY(${params.textArray(query.type)})`)
  if (query.agentId) parts.push(`c.agent_id = ${params.text(query.agentId)}::uuid`)
  for (const [key, value] of Object.entries(query.labels ?? {})) {
    parts.push(value === '' ? `coalesce(c.labels ? ${params.text(key)}, false)` : `coalesce(c.labels ->> ${params.text(key)} = ${params.text(value)}, false)`)
  }
  if (query.team) {
    const team = params.text(query.team)
    parts.push(`EXISTS (SELECT 1 FROM team_components tc JOIN teams t ON t.id = tc.team_id
      WHERE tc.component_id = c.id AND t.deleted_at IS NULL AND (t.name = ${team} OR t.id::text = ${team}))`)
  }
  return parts.length ? `(${parts.join(' AND ')})` : 'true'
}

/** `"key":<json of value>`, or NULL (which concat_ws skips) when the value is. */
const member = (key: string, json: string) => `'"${key}":' || (${json})::text`

/**
 * The node's JSON text (contract/topology/topology-tree.ts) from output row `o` and the extras
 * `x`, keys left out when empty. Joined as text with concat_ws (which skips NULLs) rather than
 * built as jsonb and stripped: at 5,000 nodes building and re-walking jsonb cost more than the walk.
 */
const NODE_JSON = `'{' || concat_ws(',',
  ${member('id', 'to_json(o.id)')}, ${member('name', 'to_json(o.name)')}, ${member('type', "to_json(coalesce(o.type, ''))")},
  ${member('status', 'to_json(o.status)')}, ${member('health', 'to_json(o.health)')},
  ${member('status_reason', "to_json(nullif(o.status_reason, ''))")}, ${member('owner', "to_json(nullif(o.owner, ''))")},
  ${member('icon', "to_json(nullif(o.icon, ''))")}, ${member('text', "to_json(nullif(o.text, ''))")},
  ${member('tooltip', "to_json(nullif(o.tooltip, ''))")}, ${member('namespace', "to_json(nullif(o.namespace, ''))")},
  ${member('labels', "CASE WHEN jsonb_typeof(o.labels) = 'object' AND o.labels <> '{}'::jsonb THEN o.labels END")},
  ${member('parent_id', 'to_json(o.parent_id)')}, ${member('topology_id', 'to_json(o.topology_id)')},
  ${member('external_id', 'to_json(o.external_id)')}, ${member('description', "to_json(nullif(o.description, ''))")},
  CASE WHEN o.hidden THEN '"hidden":true' END, ${member('lifecycle', "to_json(nullif(o.lifecycle, ''))")},
  ${member('path', "to_json(nullif(o.path, ''))")},
  ${member('properties', "CASE WHEN jsonb_typeof(o.properties) = 'array' AND o.properties <> '[]'::jsonb THEN o.properties END")},
  ${member('summary', "CASE WHEN jsonb_typeof(o.summary) = 'object' AND o.summary <> '{}'::jsonb THEN o.summary END")},
  ${member('checks', 'x_checks.v')}, ${member('incidents', 'x_incidents.v')}, ${member('analysis', 'x_analysis.v')},
  ${member('team_names', 'x_teams.v')},
  ${member('logs', "(SELECT jsonb_agg(ls ->> 'name') FROM jsonb_array_elements(CASE WHEN jsonb_typeof(o.log_selectors) = 'array' THEN o.log_selectors END) ls)")},
  ${member('created_at', `to_json(${ISO('o.created_at')})`)}, ${member('updated_at', `to_json(${ISO('o.updated_at')})`)}
) || '}'`

/**
 * The `topology` view's extras for the picked components, each grouped once over all of them
 * (hash joins) instead of a lookup per node.
 */
const EXTRAS = `
  x_checks AS (
    SELECT s.component_id, jsonb_object_agg(s.status, s.total) AS v FROM (
      SELECT r.component_id, coalesce(k.status, 'unknown') AS status, count(*) AS total
      FROM picked p JOIN check_component_relationships r ON r.component_id = p.id AND r.deleted_at IS NULL
      JOIN checks k ON k.id = r.check_id AND k.deleted_at IS NULL GROUP BY 1, 2) s
    GROUP BY s.component_id),
  x_incidents AS (
    SELECT s.component_id, jsonb_object_agg(s.type, s.severities) AS v FROM (
      SELECT s.component_id, s.type, jsonb_object_agg(s.severity, s.total) AS severities FROM (
        SELECT e.component_id, coalesce(i.type::text, 'unknown') AS type, coalesce(i.severity::text, 'unknown') AS severity, count(DISTINCT i.id) AS total
        FROM picked p JOIN evidences e ON e.component_id = p.id JOIN hypotheses h ON h.id = e.hypothesis_id
        JOIN incidents i ON i.id = h.incident_id AND i.status NOT IN ('resolved', 'closed') GROUP BY 1, 2, 3) s
      GROUP BY s.component_id, s.type) s
    GROUP BY s.component_id),
  x_analysis AS (
    SELECT s.component_id, jsonb_object_agg(s.analysis_type, s.severities) AS v FROM (
      SELECT s.component_id, s.analysis_type, jsonb_object_agg(s.severity, s.total) AS severities FROM (
        SELECT r.component_id, coalesce(a.analysis_type, 'other') AS analysis_type, coalesce(a.severity, 'unknown') AS severity, count(*) AS total
        FROM picked p JOIN config_component_relationships r ON r.component_id = p.id AND r.deleted_at IS NULL
        JOIN config_analysis a ON a.config_id = r.config_id AND a.status = 'open' GROUP BY 1, 2, 3) s
      GROUP BY s.component_id, s.analysis_type) s
    GROUP BY s.component_id),
  x_teams AS (
    SELECT tc.component_id, jsonb_agg(t.name ORDER BY t.name) AS v
    FROM picked p JOIN team_components tc ON tc.component_id = p.id JOIN teams t ON t.id = tc.team_id AND t.deleted_at IS NULL
    GROUP BY tc.component_id)`

const FACETS_JSON = `jsonb_build_object(
  'healthStatuses', coalesce((SELECT jsonb_agg(x.status ORDER BY x.status) FROM (
      SELECT DISTINCT w.status FROM walk w WHERE w.status <> '') x), '[]'::jsonb),
  'teams', coalesce((SELECT jsonb_agg(x.name ORDER BY x.name) FROM (
      SELECT DISTINCT t.name FROM walk w JOIN team_components tc ON tc.component_id = w.id
      JOIN teams t ON t.id = tc.team_id AND t.deleted_at IS NULL) x), '[]'::jsonb),
  'tags', coalesce((SELECT jsonb_object_agg(l.key, l.vals) FROM (
      SELECT x.key, jsonb_agg(x.value ORDER BY x.value) AS vals FROM (
        SELECT DISTINCT p.key, p.value
        FROM walk w CROSS JOIN LATERAL jsonb_each_text(CASE WHEN jsonb_typeof(w.labels) = 'object' THEN w.labels END) p) x
      GROUP BY x.key) l), '{}'::jsonb),
  'types', coalesce((SELECT jsonb_agg(x.type ORDER BY x.type) FROM (
      SELECT DISTINCT w.type FROM walk w WHERE w.type <> '') x), '[]'::jsonb)
)::text`

type Row = { kind: 'f' | 'n'; id: string | null; parent_id: string | null; level: number | null; body: string }

/** The statement answering `query` for a caller who sees `visibility`. */
export function topologyStatement(query: TopologyQuery, visibility: ComponentVisibility): { sql: string; values: Params['values'] } {
  const params = new Params()
  const hidden = (alias: string) => (query.hidden ? 'true' : `NOT ${alias}.hidden`)
  const deny = denyMatchSql(visibility, 'c', params)
  const notDenied = deny ? `NOT ${deny}` : 'true'
  const match = matchSql(query, params)
  let anchors: string
  let anchorKept: string
  if (query.id) {
    const visible = visibleComponentSql(visibility, 'c.id', params)
    anchors = `SELECT c.id FROM components c WHERE c.id = ${params.text(query.id)}::uuid AND c.deleted_at IS NULL AND ${visible ?? 'true'}`
    anchorKept = 'true'
  } else if (visibility.all) {
    anchors = `SELECT c.id FROM components c WHERE c.parent_id IS NULL AND c.deleted_at IS NULL AND ${hidden('c')} AND ${notDenied}`
    anchorKept = match
  } else {
    // Narrowed: the tops of the subtrees the caller may read (matched by an allowing scope,
    // with no live ancestor matched by one), none under a denied component.
    const allow = allowMatchSql(visibility, 'c', params)!
    const allowAbove = allowMatchSql(visibility, 'a', params)!
    const denyAbove = denyMatchSql(visibility, 'a', params)
    anchors = `SELECT c.id FROM components c
      WHERE c.deleted_at IS NULL AND ${hidden('c')} AND ${allow}
        AND NOT EXISTS (SELECT 1 FROM components a WHERE a.id = ANY(lookout.component_lineage(c.parent_id))
          AND a.deleted_at IS NULL AND ${hidden('a')} AND ${allowAbove})
        ${denyAbove ? `AND NOT EXISTS (SELECT 1 FROM components a WHERE a.id = ANY(lookout.component_lineage(c.id)) AND ${denyAbove})` : ''}`
    anchorKept = match
  }
  const depth = params.text(String(query.depth))
  const sort = sortKeys(query.sortBy, params)
  const direction = query.sortOrder === 'desc' ? 'DESC' : 'ASC'
  const sql = `WITH RECURSIVE
  anchors AS (${anchors}),
  -- Each step carries what the facets read, so they need no second pass over the components.
  walk (id, level, kept, matched, status, type, labels) AS (
    SELECT c.id, 0, ${anchorKept}, ${query.id ? 'true' : match}, c.status, c.type, c.labels FROM anchors x JOIN components c ON c.id = x.id
    UNION ALL
    SELECT c.id, w.level + 1, w.kept AND m.ok, m.ok, c.status, c.type, c.labels
    FROM walk w JOIN components c ON c.parent_id = w.id
    CROSS JOIN LATERAL (SELECT ${match} AS ok) m
    WHERE w.level < ${depth}::int AND c.deleted_at IS NULL AND ${hidden('c')} AND ${notDenied}${query.flatten ? '' : ' AND w.kept'}
  ),
  picked AS MATERIALIZED (SELECT w.id, w.level FROM walk w WHERE ${query.flatten ? 'w.matched' : 'w.kept'}),
${EXTRAS}
  SELECT 'n' AS kind, o.id::text AS id, o.parent_id::text AS parent_id, p.level, ${NODE_JSON} AS body,
    ${sort.number} AS sort_number, ${sort.text} AS sort_text, o.name AS sort_name
  FROM picked p JOIN components o ON o.id = p.id${sort.value ? ` CROSS JOIN LATERAL (SELECT ${sort.value} AS v) sv` : ''}
  LEFT JOIN x_checks ON x_checks.component_id = o.id LEFT JOIN x_incidents ON x_incidents.component_id = o.id
  LEFT JOIN x_analysis ON x_analysis.component_id = o.id LEFT JOIN x_teams ON x_teams.component_id = o.id
  UNION ALL
  SELECT 'f', NULL, NULL, NULL, ${FACETS_JSON}, NULL, NULL, NULL
  ORDER BY kind, sort_number ${direction} NULLS LAST, sort_text ${direction} NULLS LAST, sort_name, id`
  return { sql, values: params.values }
}

/** The answer's JSON text: `{components, healthStatuses, teams, tags, types}`. */
export async function getTopologyJson(db: Db, query: TopologyQuery, visibility: ComponentVisibility): Promise<string> {
  const { sql, values } = topologyStatement(query, visibility)
  // The recursive walk's row estimate is blind, so the plan's cost can cross jit_above_cost on a
  // few dozen rows, and compiling it then takes seconds (bench/topology-api: 4 s for 21 roots).
  const { rows } = await db.transaction(async (tx) => {
    // Sorting 5,000 node texts (3.5 MB) spills to disk under the default work_mem.
    await tx.query(`SELECT set_config('jit', 'off', true), set_config('work_mem', '64MB', true)`)
    return tx.query<Row>(sql, values)
  })
  const facets = rows[0]?.kind === 'f' ? rows[0].body : '{"healthStatuses":[],"teams":[],"tags":{},"types":[]}'
  const nodes = rows.filter((row) => row.kind === 'n')
  let components: string[]
  if (query.flatten) {
    components = nodes.map((row) => row.body)
  } else {
    const children = new Map<string, Row[]>()
    for (const row of nodes) {
      if (row.level === 0 || !row.parent_id) continue
      const siblings = children.get(row.parent_id)
      if (siblings) siblings.push(row)
      else children.set(row.parent_id, [row])
    }
    const render = (row: Row): string =>
      `${row.body.slice(0, -1)},"components":[${(children.get(row.id!) ?? []).map(render).join(',')}]}`
    components = nodes.filter((row) => row.level === 0).map(render)
  }
  return `{"components":[${components.join(',')}],${facets.slice(1)}`
}
