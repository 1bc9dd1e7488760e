import { hostname } from 'node:os'
import type { Logger } from 'pino'
import type { Db, Queryable } from '#server/db/client.ts'
import { CanarySpecSchema, CHECK_SCHEMAS, KNOWN_UNSUPPORTED_TYPES } from '#contract/canary/canary-spec.schema.ts'
import { formatPath } from '#contract/canary/canary-document.ts'
import { parseSchedule, scheduleTextOf, type Schedule } from '#contract/canary/schedule.ts'

export const LOCAL_AGENT_ID = '00000000-0000-0000-0000-000000000000'

// Any constant works; it only has to be the same in every Lookout process sharing a database.
const SYNC_LOCK_KEY = 7_391_004_512

/** Everything that shapes a canary's checks; a change of any of it re-materialises them. */
const FINGERPRINT = `md5(coalesce(c.spec::text, '') || '|' || coalesce(c.labels::text, '') || '|' ||
  coalesce(c.annotations::text, '') || '|' || c.name || '|' || c.namespace)`

type CanaryRow = {
  id: string
  name: string
  namespace: string
  labels: Record<string, string> | null
  annotations: Record<string, string> | null
  spec: Record<string, unknown>
  fingerprint: string
}

type CheckEntry = {
  type: string
  name: string
  namespace: string
  description: string | null
  icon: string | null
  spec: Record<string, unknown>
  labels: Record<string, string>
  owner: string | null
  severity: string | null
}

const CHECK_KEYS = new Set<string>([...Object.keys(CHECK_SCHEMAS), ...KNOWN_UNSUPPORTED_TYPES])

function stringMap(value: unknown): Record<string, string> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {}
  return Object.fromEntries(Object.entries(value).filter(([, v]) => typeof v === 'string')) as Record<string, string>
}

/** The checks a canary spec declares (§1.1, §1.2): labels merged, severity/owner added as labels. */
export function checksOfSpec(canary: Pick<CanaryRow, 'namespace' | 'labels' | 'spec'>): CheckEntry[] {
  const spec = canary.spec ?? {}
  const severity = typeof spec.severity === 'string' ? spec.severity : null
  const owner = typeof spec.owner === 'string' ? spec.owner : null
  const extra: Record<string, string> = {}
  if (severity) extra[severity] = 'true'
  if (owner) extra[owner] = 'true'
  const entries: CheckEntry[] = []
  const seen = new Set<string>()
  for (const [type, list] of Object.entries(spec)) {
    if (!CHECK_KEYS.has(type)) continue
    const items = type === 'webhook' && list && !Array.isArray(list) ? [list] : Array.isArray(list) ? list : []
    for (const item of items as Record<string, unknown>[]) {
      if (!item || typeof item !== 'object') continue
      const name = typeof item.name === 'string' && item.name !== '' ? item.name : typeof item.description === 'string' ? item.description : ''
      if (!name || seen.has(`${type}/${name}`)) continue
      seen.add(`${type}/${name}`)
      entries.push({
        type,
        name,
        namespace: typeof item.namespace === 'string' && item.namespace ? item.namespace : canary.namespace,
        description: typeof item.description === 'string' ? item.description : null,
        icon: typeof item.icon === 'string' ? item.icon : typeof spec.icon === 'string' ? spec.icon : null,
        spec: item,
        labels: { ...stringMap(canary.labels), ...extra, ...stringMap(item.labels) },
        owner,
        severity,
      })
    }
  }
  return entries
}

export type SyncOutcome = { synced: number; removed: number; skipped: boolean }

/**
 * Brings checks and schedules in line with the canaries table, however its rows were written
 * (canary API, CLI, generic /db/canaries, seed): new or changed canaries (by fingerprint) are
 * materialised, deleted ones unscheduled. One process at a time holds the sync lock; the others
 * skip and catch up on their next poll.
 */
/**
 * The demo estate's canaries point at hosts that exist only in its story: their history is
 * generated, and running them for real would turn the whole demo red. They are never scheduled;
 * every other canary — however it was written — is.
 */
export const DEMO_SOURCE = 'Demo'

export async function syncCanaries(db: Db, options: { logger?: Logger; canaryId?: string; wait?: boolean } = {}): Promise<SyncOutcome> {
  return db.transaction(async (tx) => {
    const lock = options.wait
      ? await tx.query('SELECT pg_advisory_xact_lock($1)', [SYNC_LOCK_KEY]).then(() => true)
      : (await tx.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS locked', [SYNC_LOCK_KEY])).rows[0]?.locked
    if (!lock) return { synced: 0, removed: 0, skipped: true }
    const { rows } = await tx.query<CanaryRow>(
      `SELECT c.id, c.name, c.namespace, c.labels, c.annotations, c.spec, ${FINGERPRINT} AS fingerprint
       FROM canaries c LEFT JOIN lookout.canary_sync s ON s.canary_id = c.id
       WHERE c.deleted_at IS NULL AND c.agent_id = $1 AND ($2::uuid IS NULL OR c.id = $2::uuid)
         AND c.source IS DISTINCT FROM '${DEMO_SOURCE}'
         AND (s.canary_id IS NULL OR s.fingerprint <> ${FINGERPRINT})`,
      [LOCAL_AGENT_ID, options.canaryId ?? null],
    )
    for (const canary of rows) await materialise(tx, canary, options.logger)
    const removed = await tx.query<{ canary_id: string }>(
      `DELETE FROM lookout.canary_sync s USING canaries c
       WHERE c.id = s.canary_id AND (c.deleted_at IS NOT NULL OR c.agent_id <> $1 OR c.source = '${DEMO_SOURCE}')
       RETURNING s.canary_id`,
      [LOCAL_AGENT_ID],
    )
    if (removed.rows.length > 0) {
      await tx.query('DELETE FROM lookout.check_schedule WHERE canary_id = ANY($1::uuid[])', [removed.rows.map((row) => row.canary_id)])
    }
    // Checks a canary's own trigger soft-deleted must not keep running.
    await tx.query(
      `DELETE FROM lookout.check_schedule s USING checks k WHERE k.id = s.check_id AND k.deleted_at IS NOT NULL`,
    )
    return { synced: rows.length, removed: removed.rows.length, skipped: false }
  })
}

async function materialise(tx: Queryable, canary: CanaryRow, logger?: Logger): Promise<void> {
  const startedAt = new Date()
  const problems: string[] = []
  const validation = CanarySpecSchema.safeParse(canary.spec)
  if (!validation.success) {
    problems.push(...validation.error.issues.map((issue) => `spec.${formatPath(issue.path)}: ${issue.message}`.replace('spec.: ', 'spec: ')))
  }
  const scheduleText = scheduleTextOf(canary.spec ?? {})
  let schedule: Schedule | null = null
  if (scheduleText) {
    try {
      schedule = parseSchedule(scheduleText)
    } catch (error) {
      problems.push(`spec.schedule: ${(error as Error).message}`)
    }
  }
  const suspended = canary.annotations?.suspend === 'true' || canary.spec?.replicas === 0
  const entries = checksOfSpec(canary)
  const { rows: checkRows } = await tx.query<{ id: string }>(
    `INSERT INTO checks (canary_id, agent_id, type, name, namespace, description, icon, spec, labels, owner, severity, transformed, created_at, updated_at)
     SELECT $1, $2, x.type, x.name, x.namespace, x.description, x.icon, x.spec, x.labels, x.owner, x.severity, false, now(), now()
     FROM jsonb_to_recordset($3::jsonb) AS x(type text, name text, namespace text, description text, icon text, spec jsonb, labels jsonb, owner text, severity text)
     ON CONFLICT (canary_id, type, name, agent_id) DO UPDATE SET
       namespace = EXCLUDED.namespace, description = EXCLUDED.description, icon = EXCLUDED.icon, spec = EXCLUDED.spec,
       labels = EXCLUDED.labels, owner = EXCLUDED.owner, severity = EXCLUDED.severity, deleted_at = NULL
     RETURNING id`,
    [canary.id, LOCAL_AGENT_ID, JSON.stringify(entries)],
  )
  const ids = checkRows.map((row) => row.id)
  await tx.query(
    `UPDATE checks SET deleted_at = now()
     WHERE canary_id = $1 AND deleted_at IS NULL AND transformed IS NOT TRUE AND NOT (id = ANY($2::uuid[]))`,
    [canary.id, ids],
  )
  await tx.query(
    `INSERT INTO checks_unlogged (check_id, canary_id) SELECT id, $1 FROM unnest($2::uuid[]) AS id ON CONFLICT (check_id) DO NOTHING`,
    [canary.id, ids],
  )
  const runnable = schedule !== null && schedule.kind !== 'never' && !suspended && problems.length === 0
  if (runnable) {
    // A new check runs at once; a check whose schedule is unchanged keeps its place on the grid.
    await tx.query(
      `INSERT INTO lookout.check_schedule (check_id, canary_id, schedule, next_run_at)
       SELECT id, $1, $3, now() FROM unnest($2::uuid[]) AS id
       ON CONFLICT (check_id) DO UPDATE SET schedule = EXCLUDED.schedule,
         next_run_at = CASE WHEN lookout.check_schedule.schedule = EXCLUDED.schedule
                            THEN lookout.check_schedule.next_run_at ELSE now() END`,
      [canary.id, ids, scheduleText],
    )
    await tx.query('DELETE FROM lookout.check_schedule WHERE canary_id = $1 AND NOT (check_id = ANY($2::uuid[]))', [canary.id, ids])
  } else {
    await tx.query('DELETE FROM lookout.check_schedule WHERE canary_id = $1', [canary.id])
    await tx.query('UPDATE checks_unlogged SET next_runtime = NULL WHERE canary_id = $1', [canary.id])
    await tx.query('UPDATE checks SET next_runtime = NULL WHERE canary_id = $1 AND deleted_at IS NULL', [canary.id])
    if (!scheduleText) logger?.warn({ canary: `${canary.namespace}/${canary.name}` }, 'canary has neither schedule nor interval; it will not run')
  }
  await tx.query(
    `INSERT INTO lookout.canary_sync (canary_id, fingerprint, schedule, error, synced_at) VALUES ($1, $2, $3, $4, now())
     ON CONFLICT (canary_id) DO UPDATE SET fingerprint = EXCLUDED.fingerprint, schedule = EXCLUDED.schedule, error = EXCLUDED.error, synced_at = now()`,
    [canary.id, canary.fingerprint, runnable ? scheduleText : null, problems.length > 0 ? problems.join('; ') : null],
  )
  const finishedAt = new Date()
  await tx.query(
    `INSERT INTO job_history (name, success_count, error_count, details, hostname, duration_millis, resource_type, resource_id, status, time_start, time_end)
     VALUES ('SyncCanary', $1, $2, $3, $4, $5, 'canary', $6, $7, $8, $9)`,
    [
      problems.length > 0 ? 0 : entries.length,
      problems.length,
      JSON.stringify(problems.length > 0 ? { errors: problems } : { checks: entries.length, schedule: runnable ? scheduleText : null }),
      hostname(),
      finishedAt.getTime() - startedAt.getTime(),
      canary.id,
      problems.length > 0 ? 'FAILED' : 'SUCCESS',
      startedAt,
      finishedAt,
    ],
  )
  if (problems.length > 0) logger?.warn({ canary: `${canary.namespace}/${canary.name}`, problems }, 'canary spec is invalid; not scheduled')
}
