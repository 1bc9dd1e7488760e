import type { Db } from '#server/db/client.ts'
import type { CanaryInput } from '#contract/canary/canary-document.ts'
import { LOCAL_AGENT_ID, syncCanaries } from './canary-sync.ts'
import { recordSpecTrust, type SpecWriter } from './check-trust.ts'
import { isUuid } from '#contract/uuid.ts'

export type CanaryRecord = {
  id: string
  name: string
  namespace: string
  labels: Record<string, string> | null
  annotations: Record<string, string> | null
  spec: Record<string, unknown>
  source: string | null
  created_at: string
  updated_at: string
  created_by: string | null
}

const COLUMNS = 'id, name, namespace, labels, annotations, spec, source, created_at, updated_at, created_by'

/**
 * Creates or updates the live local canary with this namespace/name (whatever its source), then
 * materialises its checks at once, so the caller can read them back in the same request.
 * `trustedWriter` says who vouches for the spec's network targets (check-trust.ts): the server
 * itself for in-process writes, an exec holder, or nobody (null) — never defaulted, so a new
 * caller has to decide.
 */
export async function applyCanary(
  db: Db,
  input: CanaryInput,
  options: { source?: string; createdBy?: string | null; trustedWriter: SpecWriter | null },
): Promise<{ canary: CanaryRecord; created: boolean }> {
  const outcome = await db.transaction(async (tx) => {
    if (options.trustedWriter) await recordSpecTrust(tx, input.spec, options.trustedWriter)
    const existing = await tx.query<{ id: string }>(
      `SELECT id FROM canaries WHERE agent_id = $1 AND namespace = $2 AND name = $3 AND deleted_at IS NULL
       ORDER BY created_at LIMIT 1 FOR UPDATE`,
      [LOCAL_AGENT_ID, input.namespace, input.name],
    )
    const values = [JSON.stringify(input.labels), input.annotations ? JSON.stringify(input.annotations) : null, JSON.stringify(input.spec)]
    if (existing.rows[0]) {
      const { rows } = await tx.query<CanaryRecord>(
        `UPDATE canaries SET labels = $2, annotations = $3, spec = $4 WHERE id = $1 RETURNING ${COLUMNS}`,
        [existing.rows[0].id, ...values],
      )
      return { canary: rows[0]!, created: false }
    }
    const { rows } = await tx.query<CanaryRecord>(
      `INSERT INTO canaries (agent_id, name, namespace, labels, annotations, spec, source, created_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
      [LOCAL_AGENT_ID, input.name, input.namespace, ...values, options.source ?? 'UI', options.createdBy ?? null],
    )
    return { canary: rows[0]!, created: true }
  })
  await syncCanaries(db, { canaryId: outcome.canary.id, wait: true })
  return outcome
}

export async function listCanaries(db: Db, filter: { namespace?: string; name?: string } = {}): Promise<CanaryRecord[]> {
  const { rows } = await db.query<CanaryRecord>(
    `SELECT ${COLUMNS} FROM canaries
     WHERE deleted_at IS NULL AND ($1::text IS NULL OR namespace = $1) AND ($2::text IS NULL OR name = $2)
     ORDER BY namespace, name`,
    [filter.namespace ?? null, filter.name ?? null],
  )
  return rows
}

/** By id, or by `namespace/name` (namespace defaults to `default`). */
export async function findCanary(db: Db, key: string, namespace?: string): Promise<CanaryRecord | null> {
  if (isUuid(key)) {
    const { rows } = await db.query<CanaryRecord>(`SELECT ${COLUMNS} FROM canaries WHERE id = $1 AND deleted_at IS NULL`, [key])
    return rows[0] ?? null
  }
  const { rows } = await db.query<CanaryRecord>(
    `SELECT ${COLUMNS} FROM canaries WHERE agent_id = $1 AND namespace = $2 AND name = $3 AND deleted_at IS NULL ORDER BY created_at LIMIT 1`,
    [LOCAL_AGENT_ID, namespace ?? 'default', key],
  )
  return rows[0] ?? null
}

/** Soft delete (§1.2 of the data model); the database trigger takes the checks along, the sync unschedules them. */
export async function deleteCanary(db: Db, id: string): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE canaries SET deleted_at = now() WHERE id = $1 AND deleted_at IS NULL', [id])
  if (rowCount > 0) await syncCanaries(db, { wait: true })
  return rowCount > 0
}
