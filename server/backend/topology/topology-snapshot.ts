import { strToU8, zipSync } from 'fflate'
import type { Db } from '#server/db/client.ts'
import { Params } from '#server/backend/postgrest/sql-builder.ts'
import { visibleItemSql, type ConfigVisibility } from '#server/backend/catalog/config-access.ts'
import { getTopologyJson } from './topology-api.ts'
import { denyMatchSql, visibleComponentSql, type ComponentVisibility } from './component-access.ts'

/**
 * `GET /api/snapshot/topology/{id}` (http-api §2.7.4): a zip of what an operator hands over
 * about a component at one moment. The reference names the route and its parameters, not the
 * archive's layout; ours:
 *
 *   snapshot.json          the component, the window and the options asked for
 *   topology.json          the component's tree as GET /api/canary/api/topology answers it (every level, hidden ones too)
 *   checks.json            checks linked to the component or its descendants, with their current status
 *   check-statuses.log|json  their runs within [start, end], newest first (logFormat)
 *   configs.json           related=true: configs linked to those components (config_component_relationships)
 *   config-changes.log|json  related=true: those configs' changes within the window
 *
 * Rows the caller may not read (components, configs) stay out, as everywhere else.
 */

export type SnapshotOptions = {
  id: string
  start: Date
  end: Date
  related: boolean
  logFormat: 'log' | 'json'
  now: Date
}

// One archive is one answer held in memory: the window bounds what it reads.
const MAX_STATUSES = 20_000
const MAX_CHANGES = 20_000
const SNAPSHOT_DEPTH = 100

const ISO = (expression: string) => `to_char((${expression}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`

type CheckStatus = { check_id: string; check: string; time: string; status: boolean | null; duration: number | null; message: string | null; error: string | null }
type Change = { id: string; config_id: string; config: string; change_type: string | null; severity: string | null; source: string | null; summary: string | null; created_at: string }

function logLine(parts: (string | number | null | undefined)[]): string {
  // One record per line whatever the messages hold.
  return parts.filter((part) => part !== null && part !== undefined && part !== '').map((part) => String(part).replace(/\s*\n\s*/g, ' ')).join(' ')
}

/** The zip's bytes, or null when the component does not exist or the caller may not read it. */
export async function snapshotTopology(
  db: Db,
  options: SnapshotOptions,
  visibility: { components: ComponentVisibility; configs: ConfigVisibility },
): Promise<Uint8Array | null> {
  const params = new Params()
  const visible = visibleComponentSql(visibility.components, 'c.id', params)
  const deny = denyMatchSql(visibility.components, 'c', params)
  const { rows: subtree } = await db.query<{ id: string; name: string; type: string | null; level: number }>(
    `WITH RECURSIVE tree (id, level) AS (
       SELECT c.id, 0 FROM components c WHERE c.id = ${params.text(options.id)}::uuid AND c.deleted_at IS NULL AND ${visible ?? 'true'}
       UNION ALL
       SELECT c.id, t.level + 1 FROM tree t JOIN components c ON c.parent_id = t.id
       WHERE t.level < ${SNAPSHOT_DEPTH} AND c.deleted_at IS NULL${deny ? ` AND NOT ${deny}` : ''}
     )
     SELECT c.id::text, c.name, c.type, t.level FROM tree t JOIN components c ON c.id = t.id ORDER BY t.level, c.name`,
    params.values,
  )
  const root = subtree[0]
  if (!root) return null
  const ids = subtree.map((row) => row.id)

  const tree = await getTopologyJson(
    db,
    { id: options.id, depth: SNAPSHOT_DEPTH, flatten: false, sortBy: { kind: 'name' }, sortOrder: 'asc', hidden: true },
    visibility.components,
  )

  const { rows: checks } = await db.query<{ body: string }>(
    `SELECT json_build_object('id', k.id, 'name', k.name, 'type', k.type, 'status', k.status, 'severity', k.severity,
       'canary_id', k.canary_id, 'description', k.description, 'labels', k.labels,
       'component_ids', array_agg(DISTINCT r.component_id ORDER BY r.component_id))::text AS body
     FROM check_component_relationships r JOIN checks k ON k.id = r.check_id
     WHERE r.component_id = ANY($1::uuid[]) AND r.deleted_at IS NULL AND k.deleted_at IS NULL
     GROUP BY k.id ORDER BY k.name, k.id`,
    [ids],
  )
  const { rows: statuses } = await db.query<CheckStatus>(
    `SELECT s.check_id::text, k.name AS "check", ${ISO('s.time')} AS time, s.status, s.duration, s.message, s.error
     FROM check_statuses s JOIN checks k ON k.id = s.check_id
     WHERE s.check_id IN (SELECT r.check_id FROM check_component_relationships r WHERE r.component_id = ANY($1::uuid[]) AND r.deleted_at IS NULL)
       AND k.deleted_at IS NULL AND s.time >= $2 AND s.time <= $3
     ORDER BY s.time DESC, k.name LIMIT ${MAX_STATUSES}`,
    [ids, options.start.toISOString(), options.end.toISOString()],
  )

  const files: Record<string, Uint8Array> = {
    'snapshot.json': strToU8(JSON.stringify({
      component: { id: root.id, name: root.name, type: root.type ?? '' },
      components: ids.length,
      start: options.start.toISOString(),
      end: options.end.toISOString(),
      related: options.related,
      logFormat: options.logFormat,
      created_at: options.now.toISOString(),
    }, null, 2)),
    'topology.json': strToU8(tree),
    'checks.json': strToU8(`[${checks.map((row) => row.body).join(',\n')}]`),
  }
  files[`check-statuses.${options.logFormat}`] = strToU8(
    options.logFormat === 'json'
      ? JSON.stringify(statuses)
      : statuses.map((row) => logLine([row.time, row.check, row.status === null ? 'UNKNOWN' : row.status ? 'PASS' : 'FAIL', row.duration === null ? null : `${row.duration}ms`, row.message, row.error ? `error: ${row.error}` : null])).join('\n'),
  )

  if (options.related) {
    const configParams = new Params()
    const idsParam = configParams.textArray(ids)
    const configVisible = visibleItemSql(visibility.configs, 'ci.tags', 'ci.agent_id', configParams)
    const { rows: configs } = await db.query<{ id: string; body: string }>(
      `SELECT ci.id::text, json_build_object('id', ci.id, 'name', ci.name, 'type', ci.type, 'config_class', ci.config_class,
         'health', ci.health, 'status', ci.status, 'tags', ci.tags, 'labels', ci.labels,
         'component_ids', array_agg(DISTINCT r.component_id ORDER BY r.component_id))::text AS body
       FROM config_component_relationships r JOIN config_items ci ON ci.id = r.config_id
       WHERE r.component_id = ANY(${idsParam}::uuid[]) AND r.deleted_at IS NULL AND ci.deleted_at IS NULL${configVisible ? ` AND ${configVisible}` : ''}
       GROUP BY ci.id ORDER BY ci.name, ci.id`,
      configParams.values,
    )
    const { rows: changes } = await db.query<Change>(
      `SELECT cc.id::text, cc.config_id::text, ci.name AS config, cc.change_type, cc.severity, cc.source, cc.summary, ${ISO('cc.created_at')} AS created_at
       FROM config_changes cc JOIN config_items ci ON ci.id = cc.config_id
       WHERE cc.config_id = ANY($1::uuid[]) AND cc.created_at >= $2 AND cc.created_at <= $3
       ORDER BY cc.created_at DESC, cc.id LIMIT ${MAX_CHANGES}`,
      [configs.map((row) => row.id), options.start.toISOString(), options.end.toISOString()],
    )
    files['configs.json'] = strToU8(`[${configs.map((row) => row.body).join(',\n')}]`)
    files[`config-changes.${options.logFormat}`] = strToU8(
      options.logFormat === 'json'
        ? JSON.stringify(changes)
        : changes.map((row) => logLine([row.created_at, row.config, row.change_type, row.severity, row.source, row.summary])).join('\n'),
    )
  }
  return zipSync(files, { level: 6, mtime: options.now })
}

/** `snapshot-<timestamp>.zip`, without the colons some file systems refuse. */
export function snapshotFileName(now: Date): string {
  return `snapshot-${now.toISOString().replace(/\.\d{3}Z$/, 'Z').replaceAll(':', '-')}.zip`
}
