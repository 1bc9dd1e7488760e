import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { ensureConsoleBuild } from './console-build.ts'
import { startProcess, type RunningProcess } from './processes.ts'
import { createEmptyPostgresDatabase, TEST_ENGINE } from './test-db.ts'

export type ProductionConsole = RunningProcess & { close(): Promise<void> }

/**
 * The real production server (built console, engine off, no demo data) as a child process on
 * the test run's engine: PGlite in a fresh data directory, or a fresh PostgreSQL database.
 * `close()` stops it and removes its database.
 */
export async function startProductionConsole(label: string, env: Record<string, string>): Promise<ProductionConsole> {
  await ensureConsoleBuild()
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `lookout-${label}-`))
  const database = TEST_ENGINE === 'postgres' ? await createEmptyPostgresDatabase() : undefined
  const server = await startProcess(
    'server.ts',
    {
      NODE_ENV: 'production',
      LOOKOUT_DATA_DIR: dataDir,
      LOOKOUT_DEMO_DATA: 'false',
      LOOKOUT_ENGINE: 'off',
      ...(database ? { DATABASE_URL: database.url } : {}),
      ...env,
    },
    { timeoutMs: 120_000 },
  )
  return {
    ...server,
    async close() {
      await server.stop()
      await database?.drop()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
