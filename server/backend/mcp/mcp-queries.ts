import type { Db } from '#server/db/client.ts'
import type { Principal } from '#server/backend/identity/principal.ts'
import type { Authorizer } from '#server/backend/rbac/authorizer.ts'
import type { ResourceRef } from '#server/backend/rbac/conditions.ts'
import { Params } from '#server/backend/postgrest/sql-builder.ts'
import { configRowGuard, configVisibility } from '#server/backend/catalog/config-access.ts'
import { resourceSearch, type Selector } from '#server/backend/catalog/resource-search.ts'
import { catalogChanges } from '#server/backend/catalog/catalog-changes.ts'
import { componentRowGuard, componentVisibility } from '#server/backend/topology/component-access.ts'
import { assertTargetExists, playbookMatchesTarget, targetOf, type PlaybookRecord } from '#server/backend/playbooks/run-create.ts'
import { requestPlaybookRun, type RunAuthorization } from '#server/backend/playbooks/run-request.ts'
import type { CreatedRun } from '#server/backend/playbooks/playbook-model.ts'
import { FINISHED_INCIDENT_STATUSES } from '#contract/incident-vocabulary.ts'
import { isUuid } from '#contract/uuid.ts'

/**
 * What the MCP tools and resources read, always as the caller: the permission object's `read`
 * (judged per row when the caller holds narrowed grants on it) and the row-level scopes of config
 * items and components, through the same modules the HTTP API uses. Nothing here widens what
 * the caller could read through /api.
 */

export type McpCaller = { db: Db; authorizer: Authorizer; principal: Principal; runs: RunAuthorization }

/** A refusal or a missing thing, told to the MCP client as the tool's error text. */
export class McpToolError extends Error {}

async function mayRead(caller: McpCaller, object: string, resource?: ResourceRef): Promise<boolean> {
  return (await caller.authorizer.authorize(caller.principal, { object, action: 'read', ...(resource ? { resource } : {}) })).allowed
}

function forbidden(object: string): McpToolError {
  return new McpToolError(`forbidden: read permission required on ${object}`)
}

/**
 * The rows of `object` the caller may read. Where narrowed grants (tags, selectors, ids) could
 * change the answer each row is judged as itself, as the data API judges a single row; otherwise
 * one object-level answer covers them all, and a refusal is an error rather than an empty list.
 */
async function readableRows<T>(caller: McpCaller, object: string, rows: T[], refOf: (row: T) => ResourceRef): Promise<T[]> {
  if (!(await caller.authorizer.dependsOnResource(caller.principal, object))) {
    if (!(await mayRead(caller, object))) throw forbidden(object)
    return rows
  }
  const kept: T[] = []
  for (const row of rows) if (await mayRead(caller, object, refOf(row))) kept.push(row)
  return kept
}

function stringTags(value: Record<string, unknown> | null | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(value ?? {}).map(([key, entry]) => [key, String(entry)]))
}

export async function searchCatalog(
  caller: McpCaller,
  input: { query?: string; type?: string; tags?: Record<string, string>; limit: number },
): Promise<{ configs: unknown[] }> {
  if (!(await mayRead(caller, 'catalog'))) throw forbidden('catalog')
  const selector: Selector = {
    ...(input.query?.trim() ? { search: input.query.trim() } : {}),
    ...(input.type?.trim() ? { types: [input.type.trim()] } : {}),
    ...(input.tags && Object.keys(input.tags).length ? { tagSelector: Object.entries(input.tags).map(([key, value]) => `${key}=${value}`).join(',') } : {}),
  }
  const visibility = await configVisibility(caller.authorizer, caller.principal)
  const text = await resourceSearch(caller.db, { configs: [selector], limit: input.limit, timestamps: true }, visibility, (object) => mayRead(caller, object))
  const found = JSON.parse(text) as { configs?: unknown[] }
  return { configs: found.configs ?? [] }
}

export async function getConfig(caller: McpCaller, input: { id: string; changes: number }): Promise<Record<string, unknown>> {
  const { db, principal } = caller
  // The run path's read check: the catalog permission with narrowed grants, then the row scopes.
  await caller.runs.assertMayReadTarget(principal, { kind: 'config', id: input.id })
  await assertTargetExists(db, { kind: 'config', id: input.id })
  const { rows } = await db.query<Record<string, unknown>>(
    `SELECT id, name, type, config_class, status, health, ready, description, tags, labels, properties, external_id,
            parent_id, path, agent_id, created_at, updated_at, config
     FROM config_items WHERE id = $1`,
    [input.id],
  )
  const changes = JSON.parse(
    await catalogChanges(db, { id: input.id, page_size: input.changes, sort_by: '-created_at' }, await configVisibility(caller.authorizer, principal)),
  ) as { changes?: unknown[]; total?: number }
  return { ...rows[0], recent_changes: changes.changes ?? [], total_changes: changes.total ?? 0 }
}

type CheckRow = { id: string; name: string; namespace: string | null; type: string; labels: Record<string, unknown> | null; agent_id: string }
const checkRef = (row: CheckRow): ResourceRef => ({
  kind: 'check',
  id: row.id,
  name: row.name,
  ...(row.namespace ? { namespace: row.namespace } : {}),
  type: row.type,
  tags: stringTags(row.labels),
  agentId: row.agent_id,
})

export async function listFailingChecks(caller: McpCaller, input: { namespace?: string; limit: number }): Promise<{ checks: unknown[] }> {
  // Read past the limit: rows the caller may not see are dropped after the query.
  const { rows } = await caller.db.query<CheckRow & Record<string, unknown>>(
    `SELECT c.id, c.name, c.namespace, c.type, c.labels, c.agent_id, c.description, c.severity, c.status,
            c.last_runtime, c.last_transition_time, ca.name AS canary_name, ca.id AS canary_id,
            last.message AS last_message, last.error AS last_error, last.time AS last_result_at
     FROM checks c
     JOIN canaries ca ON ca.id = c.canary_id
     LEFT JOIN LATERAL (SELECT s.message, s.error, s.time FROM check_statuses s WHERE s.check_id = c.id ORDER BY s.time DESC LIMIT 1) last ON true
     WHERE c.deleted_at IS NULL AND ca.deleted_at IS NULL AND c.status = 'unhealthy' AND c.silenced_at IS NULL
       AND ($1::text IS NULL OR c.namespace = $1::text)
     ORDER BY c.last_transition_time DESC NULLS LAST, c.name, c.id
     LIMIT $2::int`,
    [input.namespace ?? null, String(input.limit * 4)],
  )
  const readable = await readableRows(caller, 'canaries', rows, checkRef)
  return { checks: readable.slice(0, input.limit) }
}

export async function getCheckHistory(caller: McpCaller, input: { id: string; limit: number }): Promise<Record<string, unknown>> {
  const { db } = caller
  const { rows } = await db.query<CheckRow & Record<string, unknown>>(
    `SELECT c.id, c.name, c.namespace, c.type, c.labels, c.agent_id, c.description, c.status, c.last_runtime, c.last_transition_time,
            ca.name AS canary_name
     FROM checks c JOIN canaries ca ON ca.id = c.canary_id WHERE c.id = $1 AND c.deleted_at IS NULL`,
    [input.id],
  )
  const check = rows[0]
  if (!check) throw new McpToolError(`check '${input.id}' not found`)
  const [visible] = await readableRows(caller, 'canaries', [check], checkRef)
  if (!visible) throw forbidden(`check '${input.id}'`)
  const history = await db.query(
    `SELECT time, status, duration, message, error, invalid FROM check_statuses WHERE check_id = $1 ORDER BY time DESC LIMIT $2::int`,
    [input.id, String(input.limit)],
  )
  return { check: { ...check, labels: check.labels ?? {} }, history: history.rows }
}

export async function listIncidents(caller: McpCaller, input: { status?: string; severity?: string; limit: number }): Promise<{ incidents: unknown[] }> {
  if (!(await mayRead(caller, 'incident'))) throw forbidden('incident')
  const { rows } = await caller.db.query(
    `SELECT id, incident_id, title, severity, type, status, created_at, updated_at, commander, responders
     FROM incident_summary
     WHERE ($1::text IS NULL AND NOT (lower(status) = ANY($2::text[])) OR lower(status) = lower($1::text))
       AND ($3::text IS NULL OR lower(severity) = lower($3::text))
     ORDER BY created_at DESC, id
     LIMIT $4::int`,
    [input.status ?? null, [...FINISHED_INCIDENT_STATUSES], input.severity ?? null, String(input.limit)],
  )
  return { incidents: rows }
}

export async function getIncident(caller: McpCaller, input: { id: string }): Promise<Record<string, unknown>> {
  const { db, authorizer, principal } = caller
  if (!(await mayRead(caller, 'incident'))) throw forbidden('incident')
  const byUuid = isUuid(input.id)
  const { rows } = await db.query<Record<string, unknown> & { id: string }>(
    `SELECT s.id, s.incident_id, s.title, s.severity, s.type, s.status, s.created_at, s.updated_at, s.commander, s.responders,
            i.description, i.acknowledged, i.resolved, i.closed
     FROM incident_summary s JOIN incidents i ON i.id = s.id
     WHERE ${byUuid ? 's.id = $1::uuid' : 'upper(s.incident_id) = upper($1::text)'}`,
    [input.id],
  )
  const incident = rows[0]
  if (!incident) throw new McpToolError(`incident '${input.id}' not found`)
  // Evidence follows the config item or component it points at, as in the data API.
  const params = new Params()
  params.values.push(incident.id)
  const guards = [
    configRowGuard(await configVisibility(authorizer, principal))?.('evidences', 'table', 'e', params),
    componentRowGuard(await componentVisibility(authorizer, principal))?.('evidences', 'table', 'e', params),
  ].filter((condition): condition is string => Boolean(condition))
  const [hypotheses, evidences] = await Promise.all([
    db.query(`SELECT id, parent_id, type, title, status, created_at FROM hypotheses WHERE incident_id = $1 ORDER BY created_at, id`, [incident.id]),
    db.query(
      `SELECT e.id, e.hypothesis_id, e.type, e.description, e.config_id, e.component_id, e.check_id, e.config_change_id,
              e.definition_of_done, e.done, e.created_at
       FROM evidences e JOIN hypotheses h ON h.id = e.hypothesis_id
       WHERE h.incident_id = $1::uuid${guards.map((condition) => ` AND (${condition})`).join('')}
       ORDER BY e.created_at, e.id`,
      params.values,
    ),
  ])
  return { ...incident, hypotheses: hypotheses.rows, evidences: evidences.rows }
}

type PlaybookRow = PlaybookRecord & { description: string | null; category: string; icon: string | null }

export async function listPlaybooks(
  caller: McpCaller,
  input: { config_id?: string; check_id?: string; component_id?: string },
): Promise<{ playbooks: unknown[] }> {
  const { db, principal } = caller
  const target = targetOf({ configId: input.config_id, checkId: input.check_id, componentId: input.component_id })
  if (target) await caller.runs.assertMayReadTarget(principal, target)
  const { rows } = await db.query<PlaybookRow>(
    `SELECT id, namespace, name, title, icon, description, category, spec
     FROM playbooks WHERE deleted_at IS NULL ORDER BY coalesce(nullif(title, ''), name), id`,
  )
  let list = await readableRows(caller, 'playbooks', rows, caller.runs.playbookRef)
  if (target) {
    const kept: PlaybookRow[] = []
    for (const row of list) if (await playbookMatchesTarget(db, row.spec, target)) kept.push(row)
    list = kept
  }
  const playbooks = []
  for (const row of list) {
    playbooks.push({
      id: row.id,
      namespace: row.namespace,
      name: row.name,
      title: row.title || row.name,
      description: row.description,
      category: row.category,
      parameters: row.spec.parameters ?? [],
      can_run: await caller.runs.may(principal, 'playbooks', 'playbook:run', caller.runs.playbookRef(row)),
    })
  }
  return { playbooks }
}

export async function runPlaybook(
  caller: McpCaller,
  input: { id: string; params?: Record<string, string>; config_id?: string; check_id?: string; component_id?: string },
): Promise<CreatedRun> {
  return requestPlaybookRun(caller.db, caller.runs, caller.principal, {
    id: input.id,
    configId: input.config_id,
    checkId: input.check_id,
    componentId: input.component_id,
    params: input.params ?? {},
  })
}

export type ViewRow = { id: string; name: string; namespace: string; spec: unknown; labels: Record<string, unknown> | null; updated_at: string | null; created_at: string }
const viewRef = (row: ViewRow): ResourceRef => ({ kind: 'view', id: row.id, name: row.name, namespace: row.namespace, tags: stringTags(row.labels) })

/** Custom views the caller may read; an unnamespaced view is listed under `default`. */
export async function listViews(caller: McpCaller): Promise<ViewRow[]> {
  const { rows } = await caller.db.query<ViewRow>(
    `SELECT id, name, coalesce(namespace, 'default') AS namespace, spec, labels, updated_at, created_at
     FROM views WHERE deleted_at IS NULL ORDER BY coalesce(namespace, 'default'), name LIMIT 1000`,
  )
  return readableRows(caller, 'views', rows, viewRef)
}

export async function getView(caller: McpCaller, namespace: string, name: string): Promise<ViewRow> {
  const { rows } = await caller.db.query<ViewRow>(
    `SELECT id, name, coalesce(namespace, 'default') AS namespace, spec, labels, updated_at, created_at
     FROM views WHERE deleted_at IS NULL AND coalesce(namespace, 'default') = $1 AND name = $2
     ORDER BY created_at DESC LIMIT 1`,
    [namespace, name],
  )
  const view = rows[0]
  if (!view) throw new McpToolError(`view '${namespace}/${name}' not found`)
  const [visible] = await readableRows(caller, 'views', [view], viewRef)
  if (!visible) throw forbidden(`view '${namespace}/${name}'`)
  return view
}
