import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import { openDatabase } from './client.ts'
import { migrate } from './migrate.ts'
import { DEFAULT_SEED, seedDemoData } from './seed.ts'

/**
 * `npm run seed`: opens the database exactly as the app does (DATABASE_URL, else PGlite under
 * LOOKOUT_DATA_DIR), brings the schema up to date and writes the demo estate. Optional
 * SEED=<integer> picks another estate; re-running with the same seed changes nothing.
 */
function parseSeed(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_SEED
  const seed = Number(raw)
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
    throw new Error(`SEED must be an integer between 0 and ${0xffffffff}, got "${raw}"`)
  }
  return seed
}

async function main(): Promise<void> {
  const seed = parseSeed(process.env.SEED)
  const databaseUrl = process.env.DATABASE_URL || undefined
  const dataDir = path.join(process.env.LOOKOUT_DATA_DIR ?? './data', 'pglite')
  // PGlite does not create missing parent folders; a first `npm run seed` must still work.
  if (!databaseUrl) await mkdir(dataDir, { recursive: true })
  const db = await openDatabase({ databaseUrl, dataDir })
  try {
    const started = performance.now()
    const { applied } = await migrate(db)
    const summary = await seedDemoData(db, { seed })
    const elapsed = Math.round(performance.now() - started)
    const migrations = applied.length ? `${applied.length} migration(s) applied, ` : ''
    if (summary.skipped) {
      process.stdout.write(`seed ${seed}: ${migrations}demo data already present, nothing written (${db.engine}, ${elapsed} ms)\n`)
    } else {
      const { counts } = summary
      process.stdout.write(
        `seed ${seed}: ${migrations}${summary.total} rows written (${db.engine}, ${elapsed} ms): ` +
          `${counts.canaries} canaries, ${counts.checks} checks, ${counts.check_statuses} check runs, ` +
          `${counts.config_items} configs, ${counts.config_changes} changes, ${counts.components} components, ` +
          `${counts.incidents} incidents, ${counts.playbooks} playbooks, ${counts.notifications} notifications\n`,
      )
    }
  } finally {
    await db.close()
  }
}

main().catch((error: unknown) => {
  console.error(`seed failed: ${error instanceof Error ? error.message : String(error)}`)
  process.exitCode = 1
})
