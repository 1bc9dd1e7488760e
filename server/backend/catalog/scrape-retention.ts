import type { Db } from '#server/db/client.ts'
import { parseDurationMs } from '#contract/canary/duration.ts'

/**
 * `spec.retention` (resource-specs §3.7) applied after each run of a scraper, to its own items:
 * - `changes [{name, age, count}]`: changes of that type older than `age`, and past the newest
 *   `count` per item, are deleted;
 * - `types [{name, createdAge, updatedAge, deletedAge}]`: items of that type created (or last
 *   updated) longer ago are soft-deleted; soft-deleted ones older than `deletedAge` are removed;
 * - `staleAnalysisAge` (48h unless `keep`): open findings not observed for that long resolve.
 * Statements that find nothing write nothing.
 */
export type RetentionOutcome = { changes: number; items: number; purged: number; analyses: number; errors: string[] }

const DEFAULT_STALE_ANALYSIS_MS = 48 * 3_600_000

function ms(value: unknown): number | null {
  const parsed = parseDurationMs(value)
  return parsed === null || parsed <= 0 ? null : parsed
}

export async function applyRetention(db: Db, scraperId: string, retention: unknown): Promise<RetentionOutcome> {
  const spec = (retention && typeof retention === 'object' ? retention : {}) as {
    changes?: { name?: unknown; age?: unknown; count?: unknown }[]
    types?: { name?: unknown; createdAge?: unknown; updatedAge?: unknown; deletedAge?: unknown }[]
    staleAnalysisAge?: unknown
  }
  const outcome: RetentionOutcome = { changes: 0, items: 0, purged: 0, analyses: 0, errors: [] }
  for (const rule of Array.isArray(spec.changes) ? spec.changes : []) {
    if (typeof rule?.name !== 'string') continue
    const age = ms(rule.age)
    if (age !== null) {
      const { rowCount } = await db.query(
        `DELETE FROM config_changes c USING config_items i
         WHERE c.config_id = i.id AND i.scraper_id = $1 AND c.change_type = $2 AND c.created_at < now() - $3 * interval '1 millisecond'`,
        [scraperId, rule.name, age],
      )
      outcome.changes += rowCount
    }
    if (typeof rule.count === 'number' && Number.isInteger(rule.count) && rule.count >= 0) {
      const { rowCount } = await db.query(
        `DELETE FROM config_changes WHERE id IN (
           SELECT id FROM (
             SELECT c.id, row_number() OVER (PARTITION BY c.config_id ORDER BY c.created_at DESC, c.id DESC) AS position
             FROM config_changes c JOIN config_items i ON i.id = c.config_id
             WHERE i.scraper_id = $1 AND c.change_type = $2) ranked
           WHERE position > $3)`,
        [scraperId, rule.name, rule.count],
      )
      outcome.changes += rowCount
    }
  }
  for (const rule of Array.isArray(spec.types) ? spec.types : []) {
    if (typeof rule?.name !== 'string') continue
    for (const [age, column] of [[ms(rule.createdAge), 'created_at'], [ms(rule.updatedAge), 'updated_at']] as const) {
      if (age === null) continue
      const { rowCount } = await db.query(
        `UPDATE config_items SET deleted_at = now(), delete_reason = 'retention'
         WHERE scraper_id = $1 AND type = $2 AND deleted_at IS NULL AND ${column} < now() - $3 * interval '1 millisecond'`,
        [scraperId, rule.name, age],
      )
      outcome.items += rowCount
    }
    const deletedAge = ms(rule.deletedAge)
    if (deletedAge !== null) {
      try {
        const { rowCount } = await db.query(
          `DELETE FROM config_items WHERE scraper_id = $1 AND type = $2 AND deleted_at < now() - $3 * interval '1 millisecond'
             AND NOT EXISTS (SELECT 1 FROM config_items child WHERE child.parent_id = config_items.id)`,
          [scraperId, rule.name, deletedAge],
        )
        outcome.purged += rowCount
      } catch (error) {
        // Another table (a component, an evidence) still points at one of them: kept, and said.
        outcome.errors.push(`retention.types ${rule.name}: deleted items kept: ${(error as Error).message}`)
      }
    }
  }
  if (spec.staleAnalysisAge !== 'keep') {
    const age = ms(spec.staleAnalysisAge) ?? DEFAULT_STALE_ANALYSIS_MS
    const { rowCount } = await db.query(
      `UPDATE config_analysis SET status = 'resolved'
       WHERE scraper_id = $1 AND status = 'open' AND last_observed < now() - $2 * interval '1 millisecond'`,
      [scraperId, age],
    )
    outcome.analyses += rowCount
  }
  return outcome
}
