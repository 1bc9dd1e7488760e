import { createHash } from 'node:crypto'
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { Worker } from 'node:worker_threads'
import path from 'node:path'
import { createPGliteDb } from './client.ts'
import { migrate, readMigrations } from './migrate.ts'

/**
 * A PGlite data directory with every migration applied, made at build time. The first start
 * of an empty embedded database copies it instead of running initdb and the migrations, which
 * is most of a cold start. It is kept unpacked: copying ~1,000 files is about three times
 * faster than PGlite unpacking a gzipped tarball of them (`loadDataDir`). The directory name
 * carries a digest of the migrations and of the PGlite version, so a stale template is simply
 * not found and the slow path runs instead.
 */
export const TEMPLATE_DIR = path.resolve('build', 'pglite')
const TEMPLATE_FORMAT = 'lookout-pglite-template 2 (postgres only)'

function pgliteVersion(): string {
  const manifest = path.resolve('node_modules', '@electric-sql', 'pglite', 'package.json')
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version
}

export async function templateDigest(): Promise<string> {
  const migrations = await readMigrations()
  // TEMPLATE_FORMAT changes when buildTemplate makes a different directory from the same migrations.
  const hash = createHash('sha256').update(`${TEMPLATE_FORMAT}\n`).update(pgliteVersion())
  for (const migration of migrations) hash.update(`${migration.file}:${migration.checksum}\n`)
  return hash.digest('hex').slice(0, 16)
}

export async function templatePath(): Promise<string> {
  return path.join(TEMPLATE_DIR, `template-${await templateDigest()}`)
}

const hasDatabase = (dir: string) => existsSync(path.join(dir, 'PG_VERSION'))

/** The template directory for the current migrations, if the build made one. */
export async function findTemplate(): Promise<string | undefined> {
  const dir = await templatePath()
  return hasDatabase(dir) ? dir : undefined
}

/** Moves a finished copy into place; anything but an empty directory at `dataDir` is refused. */
function moveIntoPlace(partial: string, dataDir: string): void {
  try {
    // rename(2) would replace an empty directory only; anything else there (not a database) is refused.
    if (existsSync(dataDir) && readdirSync(dataDir).length === 0) rmSync(dataDir, { recursive: true })
    renameSync(partial, dataDir)
  } catch (error) {
    rmSync(partial, { recursive: true, force: true })
    throw error
  }
}

/**
 * Fills an empty PGlite data directory from the template; false (nothing done) when `dataDir`
 * already holds a database. The copy goes to a sibling first and is renamed into place, so a
 * start killed halfway leaves an empty directory, not half a database.
 */
export function copyTemplate(template: string, dataDir: string): boolean {
  if (hasDatabase(dataDir)) return false
  const partial = `${dataDir}.partial-${process.pid}`
  rmSync(partial, { recursive: true, force: true })
  cpSync(template, partial, { recursive: true })
  moveIntoPlace(partial, dataDir)
  return true
}

/**
 * cpSync on a worker thread: the copy runs on the other core while the caller's thread goes on
 * (a child `cp -R` was slower than cpSync here, and fs.promises.cp slower still).
 */
function copyOnWorker(from: string, to: string): Promise<void> {
  const source = `const { cpSync } = require('node:fs'); const { workerData } = require('node:worker_threads');
    cpSync(workerData.from, workerData.to, { recursive: true })`
  return new Promise((resolve, reject) => {
    const worker = new Worker(source, { eval: true, workerData: { from, to } })
    worker.once('error', reject)
    worker.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`copying ${from} to ${to} stopped with exit code ${code}`))))
  })
}

/**
 * copyTemplate with the copy (~800 files) on a worker thread: `npm start` (scripts/start.mjs)
 * runs it while its own thread loads the server's modules, so on a first start the copy takes no
 * time of its own (docs/decisions/018). The server's copyTemplate then finds the database in
 * place. False when there is no current template or `dataDir` already holds a database.
 */
export async function copyTemplateInBackground(dataDir: string): Promise<boolean> {
  if (hasDatabase(dataDir)) return false
  const template = await findTemplate()
  if (!template) return false
  mkdirSync(path.dirname(dataDir), { recursive: true })
  const partial = `${dataDir}.partial-${process.pid}`
  rmSync(partial, { recursive: true, force: true })
  try {
    await copyOnWorker(template, partial)
  } catch (error) {
    rmSync(partial, { recursive: true, force: true })
    throw error
  }
  if (hasDatabase(dataDir)) {
    rmSync(partial, { recursive: true, force: true })
    return false
  }
  moveIntoPlace(partial, dataDir)
  return true
}

export async function buildTemplate(): Promise<string> {
  const dir = await templatePath()
  if (hasDatabase(dir)) return dir
  mkdirSync(TEMPLATE_DIR, { recursive: true })
  const partial = `${dir}.partial-${process.pid}`
  rmSync(partial, { recursive: true, force: true })
  const db = await createPGliteDb(partial)
  try {
    await migrate(db)
    // initdb's template0 and template1 are two more copies of the catalogs (600 of the 1,400
    // files a first start copies). PGlite serves the one database, postgres, and never creates
    // another, so the template leaves them out.
    await db.query("UPDATE pg_database SET datistemplate = false WHERE datname IN ('template0', 'template1')")
    await db.query('DROP DATABASE template1')
    await db.query('DROP DATABASE template0')
    await db.query('CHECKPOINT')
  } finally {
    await db.close()
  }
  try {
    renameSync(partial, dir)
  } catch (error) {
    // Another process built the same template meanwhile.
    rmSync(partial, { recursive: true, force: true })
    if (!hasDatabase(dir)) throw error
  }
  for (const old of readdirSync(TEMPLATE_DIR)) {
    if (old.startsWith('template-') && !old.includes('.partial-') && old !== path.basename(dir)) {
      rmSync(path.join(TEMPLATE_DIR, old), { recursive: true, force: true })
    }
  }
  return dir
}
