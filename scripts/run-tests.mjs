// `npm test`: the whole suite, as CI runs it. Typecheck and lint; every vitest file on PGlite, then
// again on the PostgreSQL server only the files that depend on the engine (vitest.config.ts); then
// the browser tests (Playwright in Debian's Chromium) against the real built server: all of them,
// JavaScript on and off, on PostgreSQL, and the @smoke journeys on PGlite. The shape and its time
// budget: docs/decisions/009-test-shape.md. Ends with one "N passed, N failed" line; each phase's
// summary line carries its wall time, so the budget can be watched as domains are added.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import pg from 'pg'

const root = path.resolve(import.meta.dirname, '..')
const results = path.join(root, 'test-results')
mkdirSync(results, { recursive: true })
const pgUrl = process.env.LOOKOUT_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const chromium = process.env.LOOKOUT_CHROMIUM ?? '/usr/bin/chromium'
const totals = { passed: 0, failed: 0, skipped: 0 }
let failedRuns = 0

async function postgresReachable() {
  const client = new pg.Client({ connectionString: pgUrl, connectionTimeoutMillis: 3000 })
  try {
    await client.connect()
    await client.query('SELECT 1')
    return true
  } catch {
    return false
  } finally {
    await client.end().catch(() => undefined)
  }
}

let lastSeconds = 0
/** Runs one phase; `report` (if given) is removed first, so a crashed run is never counted from an old one. */
function run(label, command, args, env, report) {
  if (report) rmSync(report, { force: true })
  console.log(`\n=== ${label} ===`)
  const started = performance.now()
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } })
  lastSeconds = Math.round((performance.now() - started) / 1000)
  if (result.status !== 0) failedRuns += 1
  return result.status === 0
}

function countVitest(file, label) {
  if (!existsSync(file)) return `${label}: no report (the run crashed)`
  const report = JSON.parse(readFileSync(file, 'utf8'))
  const passed = report.numPassedTests ?? 0
  const failed = (report.numFailedTests ?? 0) + (report.numFailedTestSuites ?? 0)
  const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0)
  totals.passed += passed
  totals.failed += failed
  totals.skipped += skipped
  return `${label}: ${passed} passed, ${failed} failed, ${skipped} skipped (${lastSeconds} s)`
}

function countPlaywright(file, label) {
  if (!existsSync(file)) return `${label}: no report (the run crashed)`
  const stats = JSON.parse(readFileSync(file, 'utf8')).stats ?? {}
  const passed = (stats.expected ?? 0) + (stats.flaky ?? 0)
  const failed = stats.unexpected ?? 0
  totals.passed += passed
  totals.failed += failed
  totals.skipped += stats.skipped ?? 0
  return `${label}: ${passed} passed, ${failed} failed, ${stats.skipped ?? 0} skipped (${lastSeconds} s)`
}

const vitest = path.join(root, 'node_modules', 'vitest', 'vitest.mjs')
const lines = []

// Types and lint first: they are quick and catch a broken tree before the long runs.
const typesOk = run('typecheck (tsc --noEmit)', process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit'], {})
lines.push(`typecheck: ${typesOk ? 'ok' : 'FAILED'} (${lastSeconds} s)`)
const lintOk = run('lint (eslint)', process.execPath, [path.join(root, 'node_modules', 'eslint', 'bin', 'eslint.js'), '.', '--max-warnings=0'], {})
lines.push(`lint: ${lintOk ? 'ok' : 'FAILED'} (${lastSeconds} s)`)

const pgliteReport = path.join(results, 'vitest-pglite.json')
run('unit and HTTP tests on PGlite (every file)', process.execPath, [vitest, 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${pgliteReport}`], {
  LOOKOUT_TEST_ENGINE: 'pglite',
}, pgliteReport)
lines.push(countVitest(pgliteReport, 'vitest on PGlite (every file)'))

const pgReachable = await postgresReachable()
if (pgReachable) {
  const postgresReport = path.join(results, 'vitest-postgres.json')
  // LOOKOUT_TEST_ENGINE=postgres makes vitest.config.ts select the files that reach
  // tests/support/test-db.ts; the database-free ones ran above and would only repeat.
  run('database tests on the PostgreSQL server (engine-dependent files)', process.execPath, [vitest, 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${postgresReport}`], {
    LOOKOUT_TEST_ENGINE: 'postgres',
    LOOKOUT_TEST_PG_URL: pgUrl,
  }, postgresReport)
  lines.push(countVitest(postgresReport, 'vitest on PostgreSQL (engine-dependent files)'))
} else {
  console.error(`PostgreSQL is not reachable at ${pgUrl}: start it (see README) or set LOOKOUT_TEST_PG_URL.`)
  failedRuns += 1
  totals.failed += 1
  lines.push('vitest on PostgreSQL: not run (server unreachable)')
}

async function createDatabase() {
  const name = `lookout_e2e_${Date.now().toString(36)}`
  const admin = new pg.Client({ connectionString: pgUrl })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  const url = new URL(pgUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: pgUrl })
      await client.connect()
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await client.end()
    },
  }
}

/** Every browser test with JavaScript on and off, or only the @smoke journeys with it on. */
const FULL = { name: 'all, JS on and off', args: [] }
const SMOKE = { name: '@smoke, JS on', args: ['--project=js', '--grep', '@smoke'] }

function runPlaywright(label, selection, engineEnv) {
  const report = path.join(results, `playwright-${label}.json`)
  run(`browser tests on ${label} (Playwright, Chromium, ${selection.name})`, process.execPath, [path.join(root, 'node_modules', '@playwright', 'test', 'cli.js'), 'test', ...selection.args], {
    PLAYWRIGHT_JSON_OUTPUT_NAME: report,
    LOOKOUT_CHROMIUM: chromium,
    ...engineEnv,
  }, report)
  lines.push(countPlaywright(report, `playwright on ${label} (${selection.name})`))
}

if (existsSync(chromium)) {
  const built = run('build the console', process.execPath, [path.join(root, 'scripts', 'ensure-build.mjs')], {})
  lines.push(`build: ${built ? 'ok' : 'FAILED'} (${lastSeconds} s)`)
  // PostgreSQL is what deployments run, so it gets every journey in both modes; PGlite gets the
  // smoke journeys (its own boot, migrations and queries through each domain). Without a
  // PostgreSQL server (already a failure above) PGlite takes the full run, so no coverage is lost.
  runPlaywright('PGlite', pgReachable ? SMOKE : FULL, {})
  if (pgReachable) {
    const database = await createDatabase()
    try {
      runPlaywright('PostgreSQL', FULL, { LOOKOUT_E2E_DATABASE_URL: database.url })
    } finally {
      await database.drop()
    }
  }
} else {
  console.error(`Chromium is not installed at ${chromium}: install Debian's chromium package (apt-get install -y chromium).`)
  failedRuns += 1
  totals.failed += 1
  lines.push('playwright: not run (no chromium)')
}

console.log('\n=== summary ===')
for (const line of lines) console.log(line)
console.log(`${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ''}`)
process.exit(failedRuns === 0 && totals.failed === 0 ? 0 : 1)
