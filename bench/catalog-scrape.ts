/**
 * bench/catalog-scrape — a file scraper of 10,000 documents on a fresh PostgreSQL database
 * (issue 14): the first run (every item inserted), an unchanged re-run (target: zero row writes
 * to the catalog tables, counted from pg_stat_user_tables), and a run where 1% of the files
 * changed (diff changes). Peak RSS of this process is reported (the engine runs in it).
 *
 *   npx tsx bench/catalog-scrape.ts        (needs PostgreSQL on 127.0.0.1:5432, user postgres)
 *   BENCH_DOCUMENTS=10000 BENCH_DB=postgres|pglite   (PGlite in memory: the embedded default, for comparison)
 *
 * Targets: first run ≤ 10 s; unchanged re-run ≤ 3 s with 0 row writes. Exits 1 when one is missed.
 * `runScrapeBench()` is exported for a caller that prints it with other catalog figures.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { pino } from 'pino'
import { createPGliteDb, createPostgresDb, type Db } from '../server/db/client.ts'
import { migrate } from '../server/db/migrate.ts'
import { createScrapeEngine } from '../server/backend/catalog/scrape-engine.ts'
import { recordSpecTrust } from '../server/backend/health/check-trust.ts'
import { scratchDatabase } from './support/scratch-database.ts'

const DOCUMENTS = Number(process.env.BENCH_DOCUMENTS ?? 10_000)
const TARGET_FIRST_MS = 10_000
const TARGET_RERUN_MS = 3_000
const CATALOG_TABLES = [
  'config_items', 'config_changes', 'config_analysis', 'config_relationships', 'config_locations',
  'config_items_last_scraped_time', 'config_item_scrape_hashes',
]

export type ScrapeBenchFigures = {
  documents: number
  firstRunMs: number
  rerunMs: number
  rerunRowWrites: number
  changedRunMs: number
  changedRunChanges: number
  peakRssMb: number
}

function documentFor(index: number, revision = 0) {
  return {
    id: `host-${String(index).padStart(5, '0')}`,
    name: `host ${index}`,
    region: ['eu-west-1', 'us-east-1', 'ap-south-1'][index % 3],
    team: `team-${index % 20}`,
    state: index % 50 === 0 ? 'degraded' : 'running',
    spec: { cpus: 2 + (index % 8), memoryGiB: 4 * (1 + (index % 4)), disks: [{ size: 100, kind: 'ssd' }], revision },
    packages: Array.from({ length: 5 }, (_, p) => ({ name: `pkg-${p}`, version: `1.${(index + p) % 10}.0` })),
  }
}

/** Rows inserted, updated or deleted in the catalog tables since the stats were last read. */
async function rowWrites(db: Db): Promise<number> {
  // One connection (the pool's only one): its pending statistics go out before they are read.
  await db.query('SELECT pg_stat_force_next_flush()')
  const { rows } = await db.query<{ writes: string }>(
    `SELECT COALESCE(sum(n_tup_ins + n_tup_upd + n_tup_del), 0)::text AS writes FROM pg_stat_user_tables WHERE relname = ANY($1::text[])`,
    [CATALOG_TABLES],
  )
  return Number(rows[0]!.writes)
}

export async function runScrapeBench(documents = DOCUMENTS, engine: 'postgres' | 'pglite' = 'postgres'): Promise<ScrapeBenchFigures> {
  const database = engine === 'postgres' ? await scratchDatabase('lookout_bench_scrape', true) : undefined
  const folder = mkdtempSync(path.join(tmpdir(), 'lookout-bench-scrape-'))
  const db = database ? await createPostgresDb(database.url, { max: 1 }) : await createPGliteDb(undefined)
  try {
    await migrate(db)
    for (let index = 0; index < documents; index += 1) {
      writeFileSync(path.join(folder, `host-${index}.json`), JSON.stringify(documentFor(index)))
    }
    const spec = {
      schedule: '@every 1h',
      file: [{
        type: 'Bench::Host', class: 'VirtualMachine', id: '$.id', name: '$.name', status: '$.state',
        labels: { region: '$.region' }, tags: [{ name: 'team', jsonpath: '$.team' }],
        paths: [path.join(folder, '*.json')],
      }],
    }
    const { rows: [scraper] } = await db.query<{ id: string }>(
      `INSERT INTO config_scrapers (name, namespace, spec, source) VALUES ('bench-files', 'default', $1::jsonb, 'UI') RETURNING id`,
      [JSON.stringify(spec)],
    )
    // File scrapers read this server's files: they run for specs an exec holder wrote, as this one is.
    await recordSpecTrust(db, spec, 'server')
    const engine = createScrapeEngine({ db, logger: pino({ level: 'silent' }) })
    const timed = async () => {
      const started = performance.now()
      const outcome = await engine.runNow(scraper!.id)
      if (!outcome || outcome.status !== 'SUCCESS') throw new Error(`scrape did not succeed: ${JSON.stringify(outcome)}`)
      return { ms: performance.now() - started, summary: outcome.summary! }
    }
    const first = await timed()
    if (first.summary.added !== documents) throw new Error(`first run added ${first.summary.added} of ${documents}`)
    const before = await rowWrites(db)
    const rerun = await timed()
    const rerunRowWrites = (await rowWrites(db)) - before
    if (rerun.summary.unchanged !== documents) throw new Error(`re-run saw ${rerun.summary.unchanged} unchanged of ${documents}`)
    const changedCount = Math.max(1, Math.floor(documents / 100))
    for (let index = 0; index < changedCount; index += 1) {
      writeFileSync(path.join(folder, `host-${index}.json`), JSON.stringify(documentFor(index, 1)))
    }
    const changed = await timed()
    const { rows: [changes] } = await db.query<{ count: string }>("SELECT count(*)::text AS count FROM config_changes WHERE change_type = 'diff'")
    return {
      documents,
      firstRunMs: Math.round(first.ms),
      rerunMs: Math.round(rerun.ms),
      rerunRowWrites,
      changedRunMs: Math.round(changed.ms),
      changedRunChanges: Number(changes!.count),
      peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    }
  } finally {
    await db.close()
    await database?.drop()
    rmSync(folder, { recursive: true, force: true })
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const load = () => loadavg().map((value) => value.toFixed(2)).join(' ')
  process.stdout.write(`load average at start: ${load()}\n`)
  const engine = process.env.BENCH_DB === 'pglite' ? 'pglite' : 'postgres'
  const figures = await runScrapeBench(DOCUMENTS, engine)
  const lines = [
    `file scraper, ${figures.documents} documents, ${engine === 'pglite' ? 'PGlite (in memory)' : 'PostgreSQL'}`,
    `  first run:            ${figures.firstRunMs} ms (target ≤ ${TARGET_FIRST_MS} ms)`,
    `  unchanged re-run:     ${figures.rerunMs} ms (target ≤ ${TARGET_RERUN_MS} ms), ${figures.rerunRowWrites} row writes (target 0)`,
    `  1% changed:           ${figures.changedRunMs} ms, ${figures.changedRunChanges} diff changes stored`,
    `  peak RSS:             ${figures.peakRssMb} MB`,
    `load average at end: ${load()}`,
  ]
  process.stdout.write(`${lines.join('\n')}\n`)
  // The targets are the PostgreSQL server's; PGlite's figures are for comparison.
  const missed = figures.firstRunMs > TARGET_FIRST_MS || figures.rerunMs > TARGET_RERUN_MS || figures.rerunRowWrites !== 0
  process.exitCode = missed && engine === 'postgres' ? 1 : 0
}
