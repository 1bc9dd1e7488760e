import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import pino from 'pino'
import type { Db } from '#server/db/client.ts'
import { createScrapeEngine, type ScrapeEngineOptions } from '#server/backend/catalog/scrape-engine.ts'
import { recordSpecTrust } from '#server/backend/health/check-trust.ts'

export const silentLogger = pino({ level: process.env.SCRAPE_TEST_LOG ?? 'silent' })

/**
 * A scraper row as the data API stores it (source UI unless said), its spec trusted as an exec
 * holder's write would make it (`trusted: false`: as if someone without exec had written it).
 */
export async function insertScraper(db: Db, name: string, spec: Record<string, unknown>, source = 'UI', options: { trusted?: boolean } = {}): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    "INSERT INTO config_scrapers (name, namespace, spec, source) VALUES ($1, 'default', $2::jsonb, $3::source) RETURNING id",
    [name, JSON.stringify(spec), source],
  )
  if (options.trusted !== false) await recordSpecTrust(db, spec, 'server')
  return rows[0]!.id
}

export function testScrapeEngine(db: Db, overrides: Partial<ScrapeEngineOptions> = {}) {
  return createScrapeEngine({ db, logger: silentLogger, leaseMs: 2_000, pollIntervalMs: 50, syncIntervalMs: 100, minIntervalMs: 200, stopGraceMs: 5_000, ...overrides })
}

/** A temporary folder with the given files (relative paths → content); removed by `remove()`. */
export function tempFolder(files: Record<string, string> = {}): { dir: string; write(name: string, text: string): void; remove(name: string): void; cleanup(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'lookout-scrape-'))
  const write = (name: string, text: string) => {
    const full = path.join(dir, name)
    mkdirSync(path.dirname(full), { recursive: true })
    writeFileSync(full, text)
  }
  for (const [name, text] of Object.entries(files)) write(name, text)
  return {
    dir,
    write,
    remove: (name) => rmSync(path.join(dir, name), { force: true }),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  }
}

export type ItemRow = {
  id: string
  type: string
  name: string
  config_class: string
  external_id: string[]
  labels: Record<string, string> | null
  tags: Record<string, string> | null
  config: Record<string, unknown>
  health: string | null
  status: string | null
  deleted_at: Date | null
  delete_reason: string | null
  parent_id: string | null
  created_at: Date
}

export async function itemsOf(db: Db, scraperId: string): Promise<ItemRow[]> {
  const { rows } = await db.query<ItemRow>('SELECT * FROM config_items WHERE scraper_id = $1 ORDER BY type, name', [scraperId])
  return rows
}

export async function waitFor<T>(fn: () => Promise<T | undefined | null | false>, timeoutMs = 10_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await fn()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
}
