import type { Queryable } from '#server/db/client.ts'
import { findConnection } from '#server/backend/health/checks/check-inputs.ts'
import { assertResolvable, openValue, type OpenedConnection } from './connection-secrets.ts'

/**
 * `findConnection` (check-inputs.ts, which opens the sealed values and refuses values kept in
 * Kubernetes) with the certificate added and opened too.
 */
export async function findOpenedConnection(db: Queryable, ref: string, namespace: string): Promise<OpenedConnection | null> {
  const found = await findConnection(db, ref, namespace)
  if (!found) return null
  const { rows } = await db.query<{ certificate: string | null }>('SELECT certificate FROM connections WHERE id = $1', [found.id])
  const sealed = rows[0]?.certificate ?? null
  const opened = { ...found, certificate: sealed === null ? null : await openValue(db, sealed) }
  assertResolvable(opened)
  return opened
}
