import { setTimeout as sleep } from 'node:timers/promises'
import type { Db } from '#server/db/client.ts'
import { createTopologyEngine, type TopologyEngineOptions } from '#server/backend/topology/topology-engine.ts'
import type { TopologyRow, TopologyRunOptions, TopologyRunOutcome } from '#server/backend/topology/topology-model.ts'
import { silentLogger } from '#tests/catalog/scrape-fixtures.ts'

/**
 * A small run function for the engine's tests, in place of evaluate → store: it records each run
 * (who ran it, when it started and ended, whether the spec was trusted) in a table of its own and
 * writes real components — a root named after the topology and one child per name in
 * `spec.components` — soft-deleting children no longer named. `spec.pauseMs` holds the run (on
 * the run's signal), `spec.fail` throws, `spec.warn` reports an error beside the tree.
 */
export const RUNS_TABLE = 'lookout.topology_engine_test_runs'

export async function createRunsTable(db: Db): Promise<void> {
  await db.exec(`CREATE TABLE IF NOT EXISTS ${RUNS_TABLE} (
    id serial PRIMARY KEY, topology_id uuid NOT NULL, owner text NOT NULL,
    started_at timestamptz NOT NULL DEFAULT clock_timestamp(), ended_at timestamptz, trusted boolean)`)
}

export type RecordedRun = { topology_id: string; owner: string; started_at: Date; ended_at: Date | null; trusted: boolean | null }

export async function runsOf(db: Db, topologyId?: string): Promise<RecordedRun[]> {
  const { rows } = await db.query<RecordedRun>(
    `SELECT topology_id, owner, started_at, ended_at, trusted FROM ${RUNS_TABLE} WHERE $1::uuid IS NULL OR topology_id = $1 ORDER BY started_at, id`,
    [topologyId ?? null],
  )
  return rows
}

export function countingRun(owner: string) {
  return async (db: Db, topology: TopologyRow, options: TopologyRunOptions = {}): Promise<TopologyRunOutcome> => {
    const { rows: [run] } = await db.query<{ id: number }>(
      `INSERT INTO ${RUNS_TABLE} (topology_id, owner, trusted) VALUES ($1, $2, $3) RETURNING id`,
      [topology.id, owner, options.trusted ?? null],
    )
    const pauseMs = Number(topology.spec.pauseMs ?? 0)
    if (pauseMs > 0) await sleep(pauseMs, undefined, { signal: options.signal })
    if (typeof topology.spec.fail === 'string') throw new Error(topology.spec.fail)
    const entries: unknown[] = Array.isArray(topology.spec.components) ? topology.spec.components : []
    const wanted = entries.map((entry) => (typeof entry === 'string' ? entry : String((entry as { name?: unknown }).name)))
    let created = 0
    let deleted = 0
    let root = (await db.query<{ id: string }>('SELECT id FROM components WHERE topology_id = $1 AND parent_id IS NULL AND deleted_at IS NULL', [topology.id])).rows[0]?.id
    if (!root) {
      root = (await db.query<{ id: string }>(
        "INSERT INTO components (topology_id, name, type, external_id, status) VALUES ($1, $2, 'Topology', $2, 'healthy') RETURNING id",
        [topology.id, topology.name],
      )).rows[0]!.id
      created += 1
    }
    for (const name of wanted) {
      const { rowCount } = await db.query(
        `INSERT INTO components (topology_id, parent_id, name, type, external_id, status)
         SELECT $1, $2, $3, 'Service', $3, 'healthy'
         WHERE NOT EXISTS (SELECT 1 FROM components WHERE parent_id = $2 AND name = $3 AND deleted_at IS NULL)`,
        [topology.id, root, name],
      )
      created += rowCount
    }
    deleted = (await db.query(
      'UPDATE components SET deleted_at = now() WHERE parent_id = $1 AND deleted_at IS NULL AND NOT (name = ANY($2::text[]))',
      [root, wanted],
    )).rowCount
    const { rows: [live] } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM components WHERE topology_id = $1 AND deleted_at IS NULL', [topology.id])
    await db.query(`UPDATE ${RUNS_TABLE} SET ended_at = clock_timestamp() WHERE id = $1`, [run!.id])
    const components = live!.n
    return {
      summary: { components, created, updated: 0, unchanged: components - created, deleted, rowWrites: created + deleted + 2 },
      errors: typeof topology.spec.warn === 'string' ? [topology.spec.warn] : [],
    }
  }
}

/** An engine with test timings (short leases, fast polls) and the counting run unless told otherwise. */
export function testTopologyEngine(db: Db, overrides: Partial<TopologyEngineOptions> & { processId: string }) {
  return createTopologyEngine({
    db,
    logger: silentLogger,
    leaseMs: 2_000,
    pollIntervalMs: 50,
    syncIntervalMs: 100,
    minIntervalMs: 200,
    stopGraceMs: 5_000,
    run: countingRun(overrides.processId),
    ...overrides,
  })
}

export async function insertTopology(
  db: Db,
  name: string,
  spec: Record<string, unknown>,
  options: { source?: string; agentId?: string } = {},
): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO topologies (name, namespace, spec, source, agent_id)
     VALUES ($1, 'default', $2::jsonb, $3::source, COALESCE($4::uuid, '00000000-0000-0000-0000-000000000000')) RETURNING id`,
    [name, JSON.stringify(spec), options.source ?? 'UI', options.agentId ?? null],
  )
  return rows[0]!.id
}
