/**
 * bench/topology-run — the topology store (issue 15) on a fresh PostgreSQL database: one
 * topology of 5,000+ components (root → 50 groups → 100 services, each with properties and
 * labels) stored first, then stored again unchanged (target: zero row writes in any table,
 * counted from pg_stat_user_tables), then with 1% of the services changed.
 *
 *   npx tsx bench/topology-run.ts          (needs PostgreSQL on 127.0.0.1:5432, user postgres)
 *   BENCH_GROUPS=50 BENCH_PER_GROUP=100 BENCH_DB=postgres|pglite
 *
 * Exits 1 when the unchanged re-store writes a row.
 */
import { loadavg } from 'node:os'
import { pathToFileURL } from 'node:url'
import { createPGliteDb, createPostgresDb, type Db } from '../server/db/client.ts'
import { migrate } from '../server/db/migrate.ts'
import { storeTopology } from '../server/backend/topology/topology-store.ts'
import type { EvaluatedComponent, TopologyRow, TopologyStoreSummary } from '../server/backend/topology/topology-model.ts'
import { scratchDatabase } from './support/scratch-database.ts'

const GROUPS = Number(process.env.BENCH_GROUPS ?? 50)
const PER_GROUP = Number(process.env.BENCH_PER_GROUP ?? 100)

function service(group: number, index: number, revision: number): EvaluatedComponent {
  const name = `svc-${group}-${index}`
  return {
    name,
    type: 'Service',
    externalId: `bench/group-${group}/${name}`,
    icon: 'server',
    owner: `team-${group % 10}`,
    labels: { tier: index % 3 === 0 ? 'frontend' : 'backend', region: ['eu', 'us', 'ap'][index % 3]! },
    health: index % 97 === 0 ? 'warning' : 'healthy',
    properties: [
      { name: 'version', text: `1.${index % 10}.${revision}`, headline: true },
      { name: 'cpu', value: 100 + index, unit: 'millicores', max: 1000 },
      { name: 'memory', value: 256 * (1 + (index % 4)), unit: 'bytes', headline: true },
      { name: 'url', text: `https://${name}.example.org`, links: [{ type: 'url', url: `https://${name}.example.org` }] },
    ],
    inlineCanaries: [],
    links: { checks: [], configs: [], components: [], teams: [] },
    children: [],
  }
}

/** The tree; services whose `group * PER_GROUP + index` is below `changed` get a new version. */
function tree(changed = 0): EvaluatedComponent {
  const groups: EvaluatedComponent[] = []
  for (let group = 0; group < GROUPS; group += 1) {
    const children: EvaluatedComponent[] = []
    for (let index = 0; index < PER_GROUP; index += 1) children.push(service(group, index, group * PER_GROUP + index < changed ? 1 : 0))
    groups.push({
      name: `group-${group}`, type: 'Group', externalId: `bench/group-${group}`, icon: 'folder',
      inlineCanaries: [], links: { checks: [], configs: [], components: [], teams: [] }, children,
    })
  }
  return { name: 'bench', type: 'Application', externalId: 'bench', inlineCanaries: [], links: { checks: [], configs: [], components: [], teams: [] }, children: groups }
}

async function tupleWrites(db: Db): Promise<number> {
  // One connection (the pool's only one): its pending statistics go out before they are read.
  await db.query('SELECT pg_stat_force_next_flush()')
  const { rows } = await db.query<{ writes: string }>('SELECT COALESCE(sum(n_tup_ins + n_tup_upd + n_tup_del), 0)::text AS writes FROM pg_stat_user_tables')
  return Number(rows[0]!.writes)
}

export type TopologyRunFigures = {
  components: number
  firstMs: number
  rerunMs: number
  rerunRowWrites: number
  rerunTupleWrites: number
  changedMs: number
  changed: TopologyStoreSummary
}

export async function runTopologyStoreBench(engine: 'postgres' | 'pglite' = 'postgres'): Promise<TopologyRunFigures> {
  const database = engine === 'postgres' ? await scratchDatabase('lookout_bench_topology', true) : undefined
  const db = database ? await createPostgresDb(database.url, { max: 1 }) : await createPGliteDb(undefined)
  try {
    await migrate(db)
    const { rows } = await db.query<TopologyRow>(
      `INSERT INTO topologies (name, namespace, spec) VALUES ('bench', 'default', '{}') RETURNING id, name, namespace, labels, spec, agent_id, created_by`,
    )
    const topology = rows[0]!
    const timed = async (root: EvaluatedComponent) => {
      const started = performance.now()
      const summary = await storeTopology(db, topology, { root, errors: [] }, {})
      return { ms: performance.now() - started, summary }
    }
    const first = await timed(tree())
    const before = await tupleWrites(db)
    const rerun = await timed(tree())
    const rerunTupleWrites = (await tupleWrites(db)) - before
    if (rerun.summary.unchanged !== first.summary.components) throw new Error(`re-run saw ${rerun.summary.unchanged} unchanged of ${first.summary.components}`)
    const changed = await timed(tree(Math.floor((GROUPS * PER_GROUP) / 100)))
    return {
      components: first.summary.components,
      firstMs: Math.round(first.ms),
      rerunMs: Math.round(rerun.ms),
      rerunRowWrites: rerun.summary.rowWrites,
      rerunTupleWrites,
      changedMs: Math.round(changed.ms),
      changed: changed.summary,
    }
  } finally {
    await db.close()
    await database?.drop()
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const load = () => loadavg().map((value) => value.toFixed(2)).join(' ')
  process.stdout.write(`load average at start: ${load()}\n`)
  const engine = process.env.BENCH_DB === 'pglite' ? 'pglite' : 'postgres'
  const figures = await runTopologyStoreBench(engine)
  const lines = [
    `topology store, ${figures.components} components in one topology, ${engine === 'pglite' ? 'PGlite (in memory)' : 'PostgreSQL'}`,
    `  first store:          ${figures.firstMs} ms`,
    `  unchanged re-store:   ${figures.rerunMs} ms, ${figures.rerunTupleWrites} row writes in pg_stat_user_tables (target 0; store counted ${figures.rerunRowWrites})`,
    `  1% changed:           ${figures.changedMs} ms (${figures.changed.updated} components updated, ${figures.changed.rowWrites} row writes)`,
    `  first / unchanged:    ${(figures.firstMs / Math.max(1, figures.rerunMs)).toFixed(1)}×`,
    `load average at end: ${load()}`,
  ]
  process.stdout.write(`${lines.join('\n')}\n`)
  process.exitCode = figures.rerunTupleWrites !== 0 || figures.rerunRowWrites !== 0 ? 1 : 0
}
