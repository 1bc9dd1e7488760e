import { createHash } from 'node:crypto'
import { createPatch } from 'diff'
// The package's main entry resolves to its TypeScript source under tsx, which does not ship the
// files that source imports; the compiled CommonJS build is what runs everywhere.
import { compare as jsonPatchOf } from 'fast-json-patch/commonjs/duplex.js'
import type { Db, Queryable } from '#server/db/client.ts'
import { evaluateCel } from '#server/backend/health/expressions.ts'
import type { ScrapedItem } from './scrape-pipeline.ts'

/**
 * Writes one scrape's items (data-model §5): new items inserted, changed items updated with a
 * `diff` change (unified diff and RFC 6902 patches) when their config changed, unchanged items
 * found by hash in one read and not written at all, vanished items soft-deleted, plus
 * relationships, analysis and locations. Multi-row statements over jsonb_to_recordset keep a
 * run of ten thousand items to a few dozen statements.
 */

export type ScrapeCounts = { added: number; updated: number; unchanged: number; deleted: number }
export type ScrapeSummary = ScrapeCounts & { errors: number; by_type: Record<string, ScrapeCounts> }

export type StoreOptions = {
  scraperId: string
  /** Soft-delete stored items this run did not see (false after a partly failed fetch). */
  deleteVanished: boolean
  /** `retention.staleItemAge`: vanished items go only once unseen this long (ms); 0 at once. */
  staleItemAgeMs: number
}

const BATCH = 1_000
/**
 * An unchanged item's last_scraped_time is refreshed only once it is this old (or half the
 * stale age, if less), so an unchanged re-run writes nothing (decision 020).
 */
export const LAST_SCRAPED_HEARTBEAT_MS = 3_600_000

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted)
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const key of Object.keys(value).sort()) out[key] = sorted((value as Record<string, unknown>)[key])
    return out
  }
  return value
}

/** JSON with sorted keys: equal configs give equal text, whatever order the source wrote. */
export function canonicalJson(value: unknown, indent?: number): string {
  return JSON.stringify(sorted(value ?? null), null, indent) ?? 'null'
}

type Row = {
  type: string
  config_class: string
  external_id: string[]
  name: string | null
  status: string | null
  health: string | null
  description: string | null
  icon: string | null
  labels: Record<string, string>
  tags: Record<string, string>
  properties: unknown[] | null
  config: unknown
  source: string
  created_at: string | null
  deleted_at: string | null
  delete_reason: string | null
}

function rowOf(item: ScrapedItem): Row {
  return {
    type: item.type,
    config_class: item.configClass,
    external_id: [item.externalId, ...item.aliases],
    name: item.name,
    status: item.status,
    health: item.health,
    description: item.description,
    icon: item.icon,
    labels: item.labels,
    tags: item.tags,
    properties: item.properties,
    config: item.config ?? null,
    source: item.source,
    created_at: item.createdAt,
    deleted_at: item.deletedAt,
    delete_reason: item.deletedAt ? 'deleted at source' : null,
  }
}

const ROW_COLUMNS = `type text, config_class text, external_id text[], name text, status text, health text, description text,
  icon text, labels jsonb, tags jsonb, properties jsonb, config jsonb, source text, created_at timestamptz, deleted_at timestamptz, delete_reason text`

type Existing = { id: string; key: string; deleted: boolean; hash: string | null; scrapedAgoMs: number | null }

function chunks<T>(list: T[], size = BATCH): T[][] {
  const out: T[][] = []
  for (let index = 0; index < list.length; index += size) out.push(list.slice(index, index + size))
  return out
}

function changeSummary(patches: { op: string; path: string }[]): string {
  const paths = [...new Set(patches.map((patch) => patch.path.split('/').filter(Boolean).slice(0, 3).join('.') || '.'))]
  return paths.length <= 3 ? paths.join(', ') : `${paths.slice(0, 3).join(', ')} and ${paths.length - 3} more`
}

type ChangeRow = { config_id: string; change_type: string; severity: string; source: string; summary: string; patches: unknown; diff: string; details: unknown }

/** `transform.changes`: exclude rules drop a change, the first matching mapping retypes it (or ignores it). */
function applyChangeRules(change: ChangeRow, item: ScrapedItem, errors: string[]): ChangeRow | null {
  const variables = { change, change_type: change.change_type, summary: change.summary, severity: change.severity, patches: change.patches, details: change.details, config: item.config, config_type: item.type }
  try {
    for (const rule of item.changeRules.exclude) {
      if (evaluateCel(rule, variables) === true) return null
    }
    for (const mapping of item.changeRules.mapping) {
      if (mapping.filter && evaluateCel(mapping.filter, variables) !== true) continue
      if (mapping.action === 'ignore' || mapping.action === 'delete') return null
      return {
        ...change,
        change_type: mapping.type || change.change_type,
        severity: mapping.severity || change.severity,
        summary: mapping.summary || change.summary,
      }
    }
  } catch (error) {
    errors.push(`${item.type} ${item.externalId}: transform.changes: ${(error as Error).message}`)
  }
  return change
}

export async function storeScrape(db: Db, items: ScrapedItem[], options: StoreOptions, errors: string[]): Promise<ScrapeSummary> {
  const { scraperId } = options
  const byKey = new Map<string, ScrapedItem>()
  for (const item of items) byKey.set(item.key, item)
  const summary: ScrapeSummary = { added: 0, updated: 0, unchanged: 0, deleted: 0, errors: 0, by_type: {} }
  const count = (type: string, field: keyof ScrapeCounts) => {
    summary[field] += 1
    const counts = (summary.by_type[type] ??= { added: 0, updated: 0, unchanged: 0, deleted: 0 })
    counts[field] += 1
  }

  // One read: every stored item of this scraper with its hash and when it was last scraped.
  const { rows: stored } = await db.query<{ id: string; type: string; external_id: string | null; deleted: boolean; hash: string | null; scraped_ago_ms: number | null }>(
    `SELECT ci.id, ci.type, ci.external_id[1] AS external_id, ci.deleted_at IS NOT NULL AS deleted, h.hash,
            (extract(epoch FROM now() - l.last_scraped_time) * 1000)::float8 AS scraped_ago_ms
     FROM config_items ci
     LEFT JOIN lookout.config_item_scrape_hashes h ON h.config_id = ci.id
     LEFT JOIN config_items_last_scraped_time l ON l.config_id = ci.id
     WHERE ci.scraper_id = $1`,
    [scraperId],
  )
  const existing = new Map<string, Existing>()
  for (const row of stored) {
    if (!row.external_id) continue
    const key = `${row.type}\u0000${row.external_id}`
    const before = existing.get(key)
    // A live item wins over deleted ones of the same identity.
    if (before && !before.deleted) continue
    existing.set(key, { id: row.id, key, deleted: row.deleted, hash: row.hash, scrapedAgoMs: row.scraped_ago_ms === null ? null : Number(row.scraped_ago_ms) })
  }

  const heartbeatMs = options.staleItemAgeMs > 0 ? Math.min(LAST_SCRAPED_HEARTBEAT_MS, options.staleItemAgeMs / 2) : LAST_SCRAPED_HEARTBEAT_MS
  const inserts: { item: ScrapedItem; row: Row; hash: string }[] = []
  const updates: { item: ScrapedItem; row: Row; hash: string; id: string }[] = []
  const refresh: string[] = []
  const ids = new Map<string, string>()
  for (const item of byKey.values()) {
    const row = rowOf(item)
    const hash = createHash('sha1').update(canonicalJson(row)).digest('base64')
    const found = existing.get(item.key)
    if (!found) {
      inserts.push({ item, row, hash })
      continue
    }
    ids.set(item.key, found.id)
    if (found.hash === hash && !found.deleted) {
      count(item.type, 'unchanged')
      if (found.scrapedAgoMs === null || found.scrapedAgoMs > heartbeatMs) refresh.push(found.id)
      continue
    }
    if (found.hash === hash && found.deleted && item.deletedAt) {
      count(item.type, 'unchanged')
      continue
    }
    updates.push({ item, row, hash, id: found.id })
  }
  const vanished = options.deleteVanished
    ? [...existing.values()].filter((one) => !one.deleted && !byKey.has(one.key) && (options.staleItemAgeMs <= 0 || (one.scrapedAgoMs ?? Infinity) > options.staleItemAgeMs))
    : []

  // The row trigger that links aliases (0003) looks items up by external id; planned against
  // statistics of a table that this run is about to outgrow, it scans every live item for each
  // inserted one (quadratic: 10,000 new items took minutes). Statistics taken after the first
  // batch let the planner use the external_id index for the rest.
  let analyzeAfterFirstBatch = false
  if (inserts.length > BATCH) {
    const { rows } = await db.query<{ reltuples: number }>("SELECT reltuples::float8 AS reltuples FROM pg_class WHERE oid = 'config_items'::regclass")
    analyzeAfterFirstBatch = Number(rows[0]?.reltuples ?? 0) < inserts.length
  }

  // One short transaction per batch (an item and its hash, or an item, its hash and its change,
  // commit together): on PGlite a transaction holds the only connection, so pages wait for one
  // batch rather than for the whole scrape. A run that stops half way leaves hashes that match
  // what was written, and the next run carries on from there.
  for (const [index, batch] of chunks(inserts).entries()) {
    await db.transaction(async (tx) => {
      const { rows } = await tx.query<{ id: string; type: string; external_id: string }>(
        `INSERT INTO config_items (scraper_id, type, config_class, external_id, name, status, health, description, icon, labels, tags, properties, config, source, created_at, deleted_at, delete_reason)
         SELECT $1, x.type, x.config_class, x.external_id, x.name, x.status, x.health, x.description, x.icon, x.labels, x.tags, x.properties, x.config, x.source,
                COALESCE(x.created_at, now()), x.deleted_at, x.delete_reason
         FROM jsonb_to_recordset($2::jsonb) AS x(${ROW_COLUMNS})
         RETURNING id, type, external_id[1] AS external_id`,
        [scraperId, JSON.stringify(batch.map((insert) => insert.row))],
      )
      for (const row of rows) ids.set(`${row.type}\u0000${row.external_id}`, row.id)
      await writeHashes(tx, batch.map((insert) => ({ config_id: ids.get(insert.item.key)!, hash: insert.hash })))
    })
    for (const insert of batch) count(insert.item.type, 'added')
    if (index === 0 && analyzeAfterFirstBatch) await db.query('ANALYZE config_items')
  }

  for (const batch of chunks(updates)) {
    // The configs being replaced, for their diffs.
    const { rows: before } = await db.query<{ id: string; config: unknown }>('SELECT id, config FROM config_items WHERE id = ANY($1::uuid[])', [batch.map((update) => update.id)])
    const previous = new Map(before.map((row) => [row.id, row.config]))
    const changes: ChangeRow[] = []
    for (const update of batch) {
      const old = previous.get(update.id)
      if (old === undefined || canonicalJson(old) === canonicalJson(update.item.config)) continue
      const patches = jsonPatchOf((old ?? {}) as object, (update.item.config ?? {}) as object)
      const diff = createPatch(update.item.name ?? update.item.externalId, `${canonicalJson(old, 2)}\n`, `${canonicalJson(update.item.config, 2)}\n`, '', '', { context: 3 })
      const change = applyChangeRules(
        { config_id: update.id, change_type: 'diff', severity: 'info', source: update.item.source, summary: changeSummary(patches), patches, diff, details: null },
        update.item,
        errors,
      )
      if (change) changes.push(change)
    }
    await db.transaction(async (tx) => {
      await tx.query(
        `UPDATE config_items ci SET type = x.type, config_class = x.config_class, external_id = x.external_id, name = x.name, status = x.status,
           health = x.health, description = x.description, icon = x.icon, labels = x.labels, tags = x.tags, properties = x.properties,
           config = x.config, source = x.source, deleted_at = x.deleted_at, delete_reason = x.delete_reason
         FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, ${ROW_COLUMNS})
         WHERE ci.id = x.id`,
        [JSON.stringify(batch.map((update) => ({ ...update.row, id: update.id })))],
      )
      await writeHashes(tx, batch.map((update) => ({ config_id: update.id, hash: update.hash })))
      if (changes.length > 0) {
        await tx.query(
          `INSERT INTO config_changes (config_id, change_type, severity, source, summary, patches, diff, details)
           SELECT x.config_id, x.change_type, x.severity, x.source, x.summary, x.patches, x.diff, x.details
           FROM jsonb_to_recordset($1::jsonb) AS x(config_id uuid, change_type text, severity text, source text, summary text, patches jsonb, diff text, details jsonb)`,
          [JSON.stringify(changes)],
        )
      }
    })
    for (const update of batch) {
      count(update.item.type, 'updated')
      refresh.push(update.id)
    }
  }

  for (const batch of chunks(vanished)) {
    const { rowCount } = await db.query(
      "UPDATE config_items SET deleted_at = now(), delete_reason = 'stale' WHERE id = ANY($1::uuid[]) AND deleted_at IS NULL",
      [batch.map((one) => one.id)],
    )
    summary.deleted += rowCount
    for (const one of batch) {
      const type = one.key.split('\u0000')[0]!
      const counts = (summary.by_type[type] ??= { added: 0, updated: 0, unchanged: 0, deleted: 0 })
      counts.deleted += 1
    }
  }

  for (const batch of chunks(refresh)) {
    await db.query(
      `INSERT INTO config_items_last_scraped_time (config_id, last_scraped_time) SELECT id, now() FROM unnest($1::uuid[]) AS id
       ON CONFLICT (config_id) DO UPDATE SET last_scraped_time = now()`,
      [batch],
    )
  }

  await db.transaction(async (tx) => {
    await storeLocations(tx, byKey, ids)
    await storeAnalysis(tx, scraperId, byKey, ids)
    await storeRelationships(tx, scraperId, byKey, ids, options.deleteVanished)
  })
  summary.errors = errors.length
  return summary
}

async function writeHashes(tx: Queryable, rows: { config_id: string; hash: string }[]): Promise<void> {
  if (rows.length === 0) return
  await tx.query(
    `INSERT INTO lookout.config_item_scrape_hashes (config_id, hash)
     SELECT x.config_id, x.hash FROM jsonb_to_recordset($1::jsonb) AS x(config_id uuid, hash text)
     ON CONFLICT (config_id) DO UPDATE SET hash = EXCLUDED.hash WHERE lookout.config_item_scrape_hashes.hash IS DISTINCT FROM EXCLUDED.hash`,
    [JSON.stringify(rows)],
  )
}

async function storeLocations(tx: Queryable, items: Map<string, ScrapedItem>, ids: Map<string, string>): Promise<void> {
  const rows = [...items.values()].flatMap((item) => item.locations.map((location) => ({ id: ids.get(item.key), location }))).filter((row) => row.id)
  for (const batch of chunks(rows)) {
    await tx.query(
      `INSERT INTO config_locations (id, location) SELECT x.id, x.location FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, location text)
       ON CONFLICT (id, location) DO NOTHING`,
      [JSON.stringify(batch)],
    )
  }
}

/**
 * Findings the scrape reported (a transform's `analysis` list): new ones inserted, known ones
 * (same item and analyzer) updated only when they changed or were last observed an hour ago.
 */
async function storeAnalysis(tx: Queryable, scraperId: string, items: Map<string, ScrapedItem>, ids: Map<string, string>): Promise<void> {
  const rows = [...items.values()].flatMap((item) =>
    item.analysis.map((finding) => ({ config_id: ids.get(item.key), source: item.source, ...finding, status: finding.status ?? 'open', analysis: finding.analysis ?? null })),
  ).filter((row) => row.config_id)
  for (const batch of chunks(rows)) {
    const json = JSON.stringify(batch)
    const columns = 'config_id uuid, source text, analyzer text, analysis_type text, severity text, summary text, message text, status text, analysis jsonb'
    await tx.query(
      `UPDATE config_analysis a SET analysis_type = x.analysis_type, severity = x.severity, summary = x.summary, message = x.message,
         status = x.status, analysis = x.analysis, last_observed = now()
       FROM jsonb_to_recordset($1::jsonb) AS x(${columns})
       WHERE a.config_id = x.config_id AND a.analyzer = x.analyzer AND a.scraper_id = $2
         AND (a.last_observed < now() - interval '1 hour' OR a.status IS DISTINCT FROM x.status OR a.severity IS DISTINCT FROM x.severity
           OR a.summary IS DISTINCT FROM x.summary OR a.message IS DISTINCT FROM x.message OR a.analysis_type IS DISTINCT FROM x.analysis_type
           OR a.analysis IS DISTINCT FROM x.analysis)`,
      [json, scraperId],
    )
    await tx.query(
      `INSERT INTO config_analysis (config_id, scraper_id, source, analyzer, analysis_type, severity, summary, message, status, analysis)
       SELECT x.config_id, $2, x.source, x.analyzer, x.analysis_type, x.severity, x.summary, x.message, x.status, x.analysis
       FROM jsonb_to_recordset($1::jsonb) AS x(${columns})
       WHERE NOT EXISTS (SELECT 1 FROM config_analysis a WHERE a.config_id = x.config_id AND a.analyzer = x.analyzer AND a.scraper_id = $2)`,
      [json, scraperId],
    )
  }
}

/**
 * `transform.relationship` selectors resolved against live items: soft relations (config_id →
 * related_id, the rule's relation name), or the item's parent (the hard relation follows from
 * parent_id by trigger). Links this scraper made that no rule yields any more are soft-deleted.
 */
async function storeRelationships(tx: Queryable, scraperId: string, items: Map<string, ScrapedItem>, ids: Map<string, string>, complete: boolean): Promise<void> {
  const selectors = [...items.values()].flatMap((item) =>
    item.relationships.map((selector) => ({
      source_id: ids.get(item.key),
      id: selector.id ?? null,
      external_id: selector.externalId ?? null,
      type: selector.type ?? null,
      name: selector.name ?? null,
      namespace: selector.namespace ?? null,
      labels: selector.labels ?? null,
      relation: selector.relation,
      parent: selector.parent,
    })),
  ).filter((row) => row.source_id)
  const links: { config_id: string; related_id: string; relation: string }[] = []
  const parents: { id: string; parent_id: string }[] = []
  for (const batch of chunks(selectors)) {
    const { rows } = await tx.query<{ source_id: string; target_id: string; relation: string; parent: boolean }>(
      `SELECT x.source_id, t.id AS target_id, x.relation, x.parent
       FROM jsonb_to_recordset($1::jsonb) AS x(source_id uuid, id text, external_id text, type text, name text, namespace text, labels jsonb, relation text, parent boolean)
       JOIN LATERAL (
         SELECT ci.id FROM config_items ci
         WHERE ci.deleted_at IS NULL AND ci.id <> x.source_id
           AND (x.id IS NULL OR ci.id::text = x.id)
           AND (x.external_id IS NULL OR ci.external_id @> ARRAY[x.external_id])
           AND (x.type IS NULL OR ci.type = x.type)
           AND (x.name IS NULL OR ci.name = x.name)
           AND (x.namespace IS NULL OR ci.tags ->> 'namespace' = x.namespace)
           AND (x.labels IS NULL OR ci.labels @> x.labels)
         ORDER BY ci.id LIMIT 100) t ON true`,
      [JSON.stringify(batch)],
    )
    for (const row of rows) {
      if (row.parent) parents.push({ id: row.source_id, parent_id: row.target_id })
      else links.push({ config_id: row.source_id, related_id: row.target_id, relation: row.relation })
    }
  }
  for (const batch of chunks(links)) {
    await tx.query(
      `INSERT INTO config_relationships (config_id, related_id, relation, scraper_id)
       SELECT x.config_id, x.related_id, x.relation, $2 FROM jsonb_to_recordset($1::jsonb) AS x(config_id uuid, related_id uuid, relation text)
       ON CONFLICT ON CONSTRAINT config_relationships_related_id_config_id_relation_key
       DO UPDATE SET deleted_at = NULL WHERE config_relationships.deleted_at IS NOT NULL`,
      [JSON.stringify(batch), scraperId],
    )
  }
  for (const batch of chunks(parents)) {
    await tx.query(
      `UPDATE config_items ci SET parent_id = x.parent_id, path = concat_ws('.', NULLIF(p.path, ''), p.id::text)
       FROM jsonb_to_recordset($1::jsonb) AS x(id uuid, parent_id uuid) JOIN config_items p ON p.id = x.parent_id
       WHERE ci.id = x.id AND ci.parent_id IS DISTINCT FROM x.parent_id`,
      [JSON.stringify(batch)],
    )
  }
  if (!complete) return
  await tx.query(
    `UPDATE config_relationships r SET deleted_at = now()
     WHERE r.scraper_id = $1 AND r.deleted_at IS NULL
       AND NOT EXISTS (SELECT 1 FROM jsonb_to_recordset($2::jsonb) AS x(config_id uuid, related_id uuid, relation text)
                       WHERE x.config_id = r.config_id AND x.related_id = r.related_id AND x.relation = r.relation)`,
    [scraperId, JSON.stringify(links)],
  )
}
