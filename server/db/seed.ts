import type { Db, Queryable } from './client.ts'
import { buildCatalog } from './seed-data/catalog.ts'
import { createSeedContext, DAY, MINUTE, type Row, type SeedContext } from './seed-data/context.ts'
import { buildHealth, type StatusProfile } from './seed-data/health.ts'
import { buildIncidents } from './seed-data/incidents.ts'
import { buildNotifications } from './seed-data/notifications.ts'
import { buildPeople } from './seed-data/people.ts'
import { buildPlaybooks } from './seed-data/playbooks.ts'
import { buildSettings } from './seed-data/settings.ts'
import { buildTopology } from './seed-data/topology.ts'

/**
 * Deterministic demo data: a realistic operations estate (an e-commerce/SaaS shop on EKS and
 * AWS) so a fresh console has something to show. Every id and value follows from the seed and
 * `now`; the same pair always yields the same database.
 */

export const DEFAULT_SEED = 20_240_601

/** Tables in insertion (foreign key) order. */
const SEED_TABLES = [
  'people',
  'teams',
  'team_members',
  'agents',
  'casbin_rule',
  'properties',
  'connections',
  'config_scrapers',
  'config_items',
  'config_changes',
  'config_analysis',
  'config_relationships',
  'config_locations',
  'topologies',
  'components',
  'component_relationships',
  'config_component_relationships',
  'team_components',
  'canaries',
  'checks',
  'checks_unlogged',
  'check_statuses',
  'check_statuses_1h',
  'check_statuses_1d',
  'check_component_relationships',
  'check_config_relationships',
  'incident_rules',
  'incidents',
  'responders',
  'hypotheses',
  'evidences',
  'comments',
  'playbooks',
  'notifications',
  'notification_send_history',
  'notification_silences',
  'playbook_runs',
  'playbook_run_actions',
  'playbook_approvals',
  'job_history',
  'views',
  'logging_backends',
  'event_queue',
] as const

export type SeedTable = (typeof SEED_TABLES)[number]

export type SeedSummary = {
  seed: number
  /** True when this seed's data was already present and nothing was written. */
  skipped: boolean
  /** Rows written per table by this run (zero everywhere when skipped). */
  counts: Record<SeedTable, number>
  total: number
}

type Estate = { rows: Partial<Record<SeedTable, Row[]>>; profiles: StatusProfile[]; markerAgentId: string }

/** Builds every row in memory first, so a bad reference fails before anything is written. */
function buildEstate(ctx: SeedContext): Estate {
  const people = buildPeople(ctx)
  const catalog = buildCatalog(ctx, people.refs)
  const health = buildHealth(ctx, people.refs, catalog.refs)
  const topology = buildTopology(ctx, people.refs, catalog.refs, health.refs, health.rows.checks ?? [])
  const incidents = buildIncidents(
    ctx,
    people.refs,
    catalog.refs,
    health.refs,
    topology.refs.component,
    catalog.rows.config_changes ?? [],
    catalog.rows.config_analysis ?? [],
  )
  const playbooks = buildPlaybooks(ctx, people.refs, catalog.refs, health.refs)
  const settings = buildSettings(ctx, people.refs, catalog.refs, health.refs, health.rows.canaries ?? [], topology.rows.topologies ?? [])
  const notifications = buildNotifications(ctx, people.refs, catalog.refs, health.refs, incidents.refs.incident, settings.refs.connection)

  const rows: Partial<Record<SeedTable, Row[]>> = {}
  for (const domain of [
    people.rows,
    settings.early,
    catalog.rows,
    topology.rows,
    health.rows,
    incidents.rows,
    playbooks.rows,
    notifications.rows,
    settings.rows,
  ]) {
    for (const [table, tableRows] of Object.entries(domain)) {
      if (!(SEED_TABLES as readonly string[]).includes(table)) throw new Error(`seed builder produced rows for unknown table ${table}`)
      const existing = rows[table as SeedTable] ?? []
      rows[table as SeedTable] = existing.concat(tableRows)
    }
  }
  return { rows, profiles: health.profiles, markerAgentId: people.refs.remoteAgentId }
}

function quoteIdent(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`unexpected identifier in seed data: ${name}`)
  return `"${name}"`
}

/**
 * One statement per table: the rows travel as a single JSON parameter and the table's own row
 * type converts them, which is far cheaper on PGlite than one INSERT per row.
 */
async function insertRows(tx: Queryable, table: SeedTable, rows: Row[]): Promise<number> {
  if (rows.length === 0) return 0
  const columns = Object.keys(rows[0]!)
  for (const row of rows) {
    const keys = Object.keys(row)
    if (keys.length !== columns.length || keys.some((key, index) => key !== columns[index])) {
      throw new Error(`seed rows for ${table} disagree on their columns: [${columns.join(', ')}] vs [${keys.join(', ')}]`)
    }
  }
  const list = columns.map(quoteIdent).join(', ')
  const payload = JSON.stringify(rows, (_key, value: unknown) => (value === undefined ? null : value))
  const result = await tx.query(
    `INSERT INTO ${quoteIdent(table)} (${list})
     SELECT ${list} FROM jsonb_populate_recordset(NULL::${quoteIdent(table)}, $1::jsonb)
     ON CONFLICT DO NOTHING`,
    [payload],
  )
  return result.rowCount
}

const FIFTEEN_MINUTES = 15 * MINUTE
/**
 * Runs every 15 minutes for the most recent days and hourly before that: a full two weeks at
 * 15 minutes is ~87k rows, which alone costs about 2 s of the cold-start budget on PGlite.
 */
const DENSE_DAYS = 3
const HISTORY_DAYS = 14
const DENSE_SLOTS = (DENSE_DAYS * DAY) / FIFTEEN_MINUTES
// One extra hour so the oldest run is always at least HISTORY_DAYS old.
const SPARSE_SLOTS = ((HISTORY_DAYS - DENSE_DAYS) * DAY) / (4 * FIFTEEN_MINUTES) + 1

/**
 * The hourly and daily rollups of the runs just inserted, built from the insert's own RETURNING
 * rows (no second scan of check_statuses) with the buckets and figures the rollup trigger
 * writes (migrations 0140, 0210, 0250): UTC hours and days, the mean duration rounded, passed and
 * failed counted, an hour's exact nearest-rank p99/p97/p95 and a day's run-weighted mean of its
 * hours' percentiles.
 */
const ROLLUPS_OF_INSERTED = `, hourly AS (
       SELECT check_id, date_trunc('hour', time, 'UTC') AS bucket, sum(duration) AS duration_sum, count(*) AS total,
              count(*) FILTER (WHERE status) AS passed, count(*) FILTER (WHERE NOT status) AS failed,
              percentile_disc(ARRAY[0.99, 0.97, 0.95]) WITHIN GROUP (ORDER BY duration) AS p
       FROM inserted GROUP BY 1, 2
     ), hourly_written AS (
       INSERT INTO check_statuses_1h (check_id, created_at, duration, total, passed, failed, p99, p97, p95)
       SELECT check_id, bucket, round(duration_sum::numeric / total)::integer, total, passed, failed, p[1], p[2], p[3] FROM hourly
       RETURNING 1
     ), daily_written AS (
       INSERT INTO check_statuses_1d (check_id, created_at, duration, total, passed, failed, p99, p97, p95)
       SELECT check_id, date_trunc('day', bucket, 'UTC'), round(sum(duration_sum)::numeric / sum(total))::integer,
              sum(total), sum(passed), sum(failed),
              round(sum(p[1]::numeric * total) FILTER (WHERE p[1] IS NOT NULL) / nullif(sum(total) FILTER (WHERE p[1] IS NOT NULL), 0))::integer,
              round(sum(p[2]::numeric * total) FILTER (WHERE p[2] IS NOT NULL) / nullif(sum(total) FILTER (WHERE p[2] IS NOT NULL), 0))::integer,
              round(sum(p[3]::numeric * total) FILTER (WHERE p[3] IS NOT NULL) / nullif(sum(total) FILTER (WHERE p[3] IS NOT NULL), 0))::integer
       FROM hourly GROUP BY 1, 2
       RETURNING 1
     )
     SELECT (SELECT count(*) FROM inserted)::integer AS statuses, (SELECT count(*) FROM hourly_written)::integer AS hourly,
            (SELECT count(*) FROM daily_written)::integer AS daily`

/**
 * Two weeks of runs per check, expanded inside the database (15-minute cadence for the recent
 * days, hourly before, plus every minute of the last hour so 1h summaries look alive). Noise
 * comes from hashtext(check id, slot): deterministic, and far cheaper than parsing md5 hex.
 */
async function insertCheckHistory(
  tx: Queryable,
  ctx: SeedContext,
  profiles: StatusProfile[],
  options: { rollups: boolean },
): Promise<{ statuses: number; hourly: number; daily: number }> {
  const nowMs = ctx.now.getTime()
  const lastMinute = Math.floor(nowMs / MINUTE) * MINUTE - MINUTE
  // Strictly before the minute series starts, so the two never share a timestamp.
  const lastSlot = Math.floor((nowMs - 61 * MINUTE) / FIFTEEN_MINUTES) * FIFTEEN_MINUTES
  const result = await tx.query<{ statuses: number; hourly: number; daily: number }>(
    `WITH profile AS (
       SELECT p.*, p.check_id::text || ':' AS hash_key FROM jsonb_to_recordset($1::jsonb) AS p(
         check_id uuid, base_ms float8, flaky float8, failing_since timestamptz, stop_at timestamptz,
         offset_s integer, ok_message text, errors text[], details jsonb)
     ), runs AS (
       SELECT profile.*, slot.n, slot.t, hash_key || slot.n AS run_key
       FROM profile
       CROSS JOIN LATERAL (
         SELECT s AS n, $2::timestamptz - s * interval '15 minutes' + profile.offset_s * interval '1 second' AS t
         FROM generate_series(0, $3::integer - 1) AS s
         UNION ALL
         SELECT $3::integer + s, $2::timestamptz - $3::integer * interval '15 minutes' - s * interval '1 hour'
                + profile.offset_s * interval '1 second'
         FROM generate_series(0, $5::integer - 1) AS s
         UNION ALL
         SELECT -1 - s, $4::timestamptz - s * interval '1 minute' + profile.offset_s * interval '1 second'
         FROM generate_series(0, 59) AS s
       ) AS slot
       WHERE profile.stop_at IS NULL OR slot.t < profile.stop_at
     ), noise AS (
       SELECT runs.*,
              (hashtext(run_key || 'l') & 1048575) / 1048576.0::float8 AS u_latency,
              (hashtext(run_key || 's') & 1048575) / 1048576.0::float8 AS u_spike,
              (hashtext(run_key || 'f') & 1048575) / 1048576.0::float8 AS u_fail,
              (hashtext(run_key || 'e') & 1048575) / 1048576.0::float8 AS u_error,
              -- One draw per 2-hour window, so failures of a flaky check come in bursts.
              (hashtext(hash_key || 'w' || (n / 8)) & 1048575) / 1048576.0::float8 AS u_window
       FROM runs
     ), decided AS (
       SELECT noise.*,
              CASE
                WHEN failing_since IS NOT NULL AND t >= failing_since THEN false
                -- The newest runs of a healthy check pass, so its status and history agree.
                WHEN n < 0 AND n >= -5 THEN true
                WHEN n >= 0 AND u_window < flaky THEN false
                ELSE u_fail >= 0.002
              END AS pass
       FROM noise
     ), inserted AS (
       INSERT INTO check_statuses (check_id, time, duration, status, invalid, message, error, details, created_at)
       SELECT check_id, t,
              greatest(1, round(base_ms * CASE
                WHEN NOT pass THEN 3 + 5 * u_latency
                WHEN u_spike < 0.02 THEN (0.75 + 0.5 * u_latency) * (2.5 + 250 * u_spike)
                ELSE 0.75 + 0.5 * u_latency END))::integer,
              pass, false,
              CASE WHEN pass THEN nullif(ok_message, '') END,
              CASE WHEN NOT pass THEN errors[CASE WHEN u_error < 0.7 THEN 1 ELSE 2 END] END,
              CASE WHEN pass AND n < 0 THEN details END,
              t
       FROM decided
       RETURNING check_id, time, duration, status
     )${options.rollups ? ROLLUPS_OF_INSERTED : '\n     SELECT (SELECT count(*) FROM inserted)::integer AS statuses, 0 AS hourly, 0 AS daily'}`,
    [JSON.stringify(profiles), new Date(lastSlot).toISOString(), DENSE_SLOTS, new Date(lastMinute).toISOString(), SPARSE_SLOTS],
  )
  return result.rows[0]!
}

/**
 * Turns off, until the transaction or `restore` ends it, what makes the seed's bulk history
 * insert slow: migration 0140's rollup trigger, whose delta upkeep for one 37k-row statement
 * costs more than the insert itself, and where allowed the per-row foreign-key checks too.
 * Replica mode skips both but needs a superuser (PGlite always is); otherwise the trigger alone
 * is disabled, which needs only ownership of the table (the migrating role has it). Both are
 * transactional. Refused both ways, nothing is turned off: 'none', and the trigger keeps the rollups.
 */
async function relaxHistoryWrites(tx: Queryable): Promise<{ mode: 'replica' | 'trigger' | 'none'; restore(): Promise<void> }> {
  const attempt = async (sql: string) => {
    await tx.query('SAVEPOINT seed_relax')
    return tx.exec(sql).then(
      () => true,
      async () => {
        await tx.query('ROLLBACK TO SAVEPOINT seed_relax')
        return false
      },
    )
  }
  if (await attempt('SET LOCAL session_replication_role = replica')) {
    return { mode: 'replica', restore: () => tx.exec('SET LOCAL session_replication_role = DEFAULT') }
  }
  if (await attempt('ALTER TABLE check_statuses DISABLE TRIGGER check_statuses_rollup_insert')) {
    return { mode: 'trigger', restore: () => tx.exec('ALTER TABLE check_statuses ENABLE TRIGGER check_statuses_rollup_insert') }
  }
  return { mode: 'none', restore: async () => undefined }
}

/**
 * The history and its hourly and daily rollups in one statement, with the checks that slow a
 * bulk insert down turned off (relaxHistoryWrites); where they stay on, the trigger writes the rollups.
 */
async function insertHistoryWithRollups(
  tx: Queryable,
  ctx: SeedContext,
  profiles: StatusProfile[],
): Promise<{ statuses: number; hourly: number; daily: number }> {
  const relaxed = await relaxHistoryWrites(tx)
  const counts = await insertCheckHistory(tx, ctx, profiles, { rollups: relaxed.mode !== 'none' })
  await relaxed.restore()
  return counts
}

/**
 * True when the database holds no canaries, checks or config items besides what the
 * migrations seed themselves (the System scraper owns none), i.e. the console would be empty.
 */
export async function isDatabaseEmpty(db: Queryable): Promise<boolean> {
  const { rows } = await db.query<{ occupied: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM canaries)
         OR EXISTS (SELECT 1 FROM checks)
         OR EXISTS (SELECT 1 FROM config_items) AS occupied`,
  )
  return rows[0]?.occupied !== true
}

// Serialises concurrent seeders on one PostgreSQL server; PGlite has a single connection anyway.
const SEED_LOCK_KEY = 7_391_004_212

/**
 * Seeds the demo estate in one transaction. Running it again with the same seed finds its own
 * rows and writes nothing; seeding into a database that already holds other data is refused,
 * because demo rows would then mix with real ones.
 */
export async function seedDemoData(db: Db, options: { seed?: number; now?: Date } = {}): Promise<SeedSummary> {
  const seed = options.seed ?? DEFAULT_SEED
  const ctx = createSeedContext(seed, options.now ?? new Date())
  const estate = buildEstate(ctx)
  const counts = Object.fromEntries(SEED_TABLES.map((table) => [table, 0])) as Record<SeedTable, number>

  const summary = await db.transaction(async (tx): Promise<SeedSummary> => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [SEED_LOCK_KEY])
    const marker = await tx.query('SELECT 1 FROM agents WHERE id = $1', [estate.markerAgentId])
    if (marker.rows.length > 0) return { seed, skipped: true, counts, total: 0 }
    if (!(await isDatabaseEmpty(tx))) {
      throw new Error(
        'refusing to seed demo data: the database already holds canaries, checks or config items that this seed did not write',
      )
    }
    const queuedBefore = await tx.query<{ id: string }>('SELECT id FROM event_queue')

    for (const table of SEED_TABLES) {
      if (table === 'event_queue') continue
      if (table === 'check_statuses') {
        const history = await insertHistoryWithRollups(tx, ctx, estate.profiles)
        counts.check_statuses = history.statuses
        counts.check_statuses_1h = history.hourly
        counts.check_statuses_1d = history.daily
        continue
      }
      if (table === 'check_statuses_1h' || table === 'check_statuses_1d') continue
      counts[table] = await insertRows(tx, table, estate.rows[table] ?? [])
    }

    // The triggers queued an event for every row written above; in a lived-in estate those were
    // handled long ago, so only the few deliberately pending events below stay queued.
    await tx.query('DELETE FROM event_queue WHERE NOT (id = ANY($1::uuid[]))', [queuedBefore.rows.map((row) => row.id)])
    counts.event_queue = await insertRows(tx, 'event_queue', estate.rows.event_queue ?? [])

    // History rows come from the incident triggers and carry the insert time; date them to
    // the moment of the row they describe so the timeline reads like the incident unfolded.
    const incidentIds = (estate.rows.incidents ?? []).map((row) => row.id as string)
    await tx.query(
      `UPDATE incident_histories h
       SET created_at = s.at, updated_at = s.at
       FROM (
         SELECT h2.id, coalesce(e.created_at, c.created_at, r.created_at, hy.created_at, i.created_at) AS at
         FROM incident_histories h2
         JOIN incidents i ON i.id = h2.incident_id
         LEFT JOIN evidences e ON e.id = h2.evidence_id
         LEFT JOIN comments c ON c.id = h2.comment_id
         LEFT JOIN responders r ON r.id = h2.responder_id AND h2.comment_id IS NULL
         LEFT JOIN hypotheses hy ON hy.id = h2.hypothesis_id AND h2.evidence_id IS NULL
         WHERE h2.incident_id = ANY($1::uuid[])
       ) AS s
       WHERE h.id = s.id`,
      [incidentIds],
    )

    const total = Object.values(counts).reduce((sum, count) => sum + count, 0)
    return { seed, skipped: false, counts, total }
  })
  // Fresh planner statistics for what was just written: PGlite has no autovacuum, so without
  // this its plans for the estate's reads (the health summary above all: 8.5 → 5.1 ms at demo
  // scale, docs/decisions/017) are made from no statistics at all; a server's autovacuum would
  // get there in its own time. About 0.2 s on either engine, on the first start only.
  if (!summary.skipped) await db.exec(`ANALYZE ${SEED_TABLES.join(', ')}`)
  return summary
}
