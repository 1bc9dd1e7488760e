import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { createPGliteDb } from './client.ts'
import { migrate, readMigrations } from './migrate.ts'

/**
 * A PGlite data directory with every migration applied, packed at build time. The first start
 * of an empty embedded database unpacks it instead of running initdb and the migrations, which
 * is most of a cold start. The file name carries a digest of the migrations and of the PGlite
 * version, so a stale template is simply not found and the slow path runs instead.
 */
export const TEMPLATE_DIR = path.resolve('build', 'pglite')

function pgliteVersion(): string {
  const manifest = path.resolve('node_modules', '@electric-sql', 'pglite', 'package.json')
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version
}

export async function templateDigest(): Promise<string> {
  const migrations = await readMigrations()
  const hash = createHash('sha256').update(pgliteVersion())
  for (const migration of migrations) hash.update(`${migration.file}:${migration.checksum}\n`)
  return hash.digest('hex').slice(0, 16)
}

export async function templatePath(): Promise<string> {
  return path.join(TEMPLATE_DIR, `template-${await templateDigest()}.tar.gz`)
}

/** The template for the current migrations, if the build made one. */
export async function findTemplate(): Promise<Blob | undefined> {
  const file = await templatePath()
  return existsSync(file) ? new Blob([readFileSync(file)]) : undefined
}

export async function buildTemplate(): Promise<string> {
  const file = await templatePath()
  if (existsSync(file)) return file
  const db = await createPGliteDb(undefined)
  try {
    await migrate(db)
    const dump = await db.dumpDataDir()
    mkdirSync(TEMPLATE_DIR, { recursive: true })
    for (const old of readdirSync(TEMPLATE_DIR)) {
      if (old.startsWith('template-')) rmSync(path.join(TEMPLATE_DIR, old), { force: true })
    }
    writeFileSync(file, Buffer.from(await dump.arrayBuffer()))
    return file
  } finally {
    await db.close()
  }
}
