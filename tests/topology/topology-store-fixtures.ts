import type { Db, Queryable } from '#server/db/client.ts'
import { createPostgresDb } from '#server/db/client.ts'
import type { EvaluatedComponent, TopologyRow } from '#server/backend/topology/topology-model.ts'
import type { TestDb } from '../support/test-db.ts'

/** An EvaluatedComponent with nothing linked; `extra` sets any field. */
export function component(name: string, type: string, extra: Partial<EvaluatedComponent> = {}, children: EvaluatedComponent[] = []): EvaluatedComponent {
  return {
    name,
    type,
    externalId: extra.externalId ?? name,
    inlineCanaries: [],
    links: { checks: [], configs: [], components: [], teams: [] },
    children,
    ...extra,
  }
}

export async function insertTopology(db: Queryable, name: string, spec: Record<string, unknown> = {}): Promise<TopologyRow> {
  const { rows } = await db.query<TopologyRow>(
    `INSERT INTO topologies (name, namespace, spec, labels) VALUES ($1, 'default', $2::jsonb, '{}') RETURNING id, name, namespace, labels, spec, agent_id, created_by`,
    [name, JSON.stringify(spec)],
  )
  return rows[0]!
}

/**
 * Counts what a database does: write statements issued (INSERT/UPDATE/DELETE, also inside
 * transactions) and the rows they touched, so a PGlite run can prove it wrote nothing.
 */
export function countingDb(db: Db): { db: Db; writes: { statements: number; rows: number } } {
  const writes = { statements: 0, rows: 0 }
  const counted = (target: Queryable): Queryable => ({
    async query(text, params) {
      const result = await target.query(text, params)
      if (/^\s*(WITH\b[\s\S]*?\b)?(INSERT|UPDATE|DELETE)\b/i.test(text)) {
        writes.statements += 1
        writes.rows += result.rowCount
      }
      return result as never
    },
    exec: (text) => target.exec(text),
  })
  const wrapped: Db = {
    engine: db.engine,
    query: (text, params) => counted(db).query(text, params),
    exec: (text) => db.exec(text),
    transaction: (fn) => db.transaction((tx) => fn(counted(tx))),
    poolStats: () => db.poolStats(),
    close: () => db.close(),
  }
  return { db: wrapped, writes }
}

/** Every table a topology store may write (the migrations' own writes elsewhere may reach the statistics late). */
export const STORE_TABLES = [
  'components', 'component_hashes', 'component_relationships', 'config_component_relationships', 'check_component_relationships',
  'team_components', 'canaries', 'checks', 'checks_unlogged', 'check_spec_trust', 'canary_sync', 'check_schedule', 'job_history',
]

/**
 * A Db with one connection on PostgreSQL (the same one in PGlite), whose table statistics
 * (pg_stat_user_tables) can be flushed before reading: rows inserted, updated and deleted in
 * every table of the database.
 */
export async function statsDb(testDb: TestDb): Promise<{ db: Db; tupleWrites(): Promise<number>; close(): Promise<void> }> {
  const db = testDb.url ? await createPostgresDb(testDb.url, { max: 1 }) : testDb.db
  return {
    db,
    async tupleWrites() {
      await db.query('SELECT pg_stat_force_next_flush()')
      const { rows } = await db.query<{ writes: string }>(
        'SELECT COALESCE(sum(n_tup_ins + n_tup_upd + n_tup_del), 0)::text AS writes FROM pg_stat_user_tables WHERE relname = ANY($1::text[])',
        [STORE_TABLES],
      )
      return Number(rows[0]!.writes)
    },
    close: async () => {
      if (db !== testDb.db) await db.close()
    },
  }
}
