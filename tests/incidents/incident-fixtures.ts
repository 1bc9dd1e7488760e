import express from 'express'
import type { Db } from '#server/db/client.ts'
import { createPostgrestRouter } from '#server/backend/postgrest/router.ts'
import { incidentWriteValidator } from '#server/backend/incidents/incident-write-validator.ts'

/**
 * The /api/db engine with the incident write validator plugged in, as the backend mounts it;
 * used until the backend wires the hook (then createTestApp serves the same behaviour).
 */
export function createDbApp(db: Db) {
  const app = express()
  app.use('/api/db', createPostgrestRouter({ db, validateWrite: incidentWriteValidator }))
  return app
}

let counter = 0

export async function insertPerson(db: Db, name = 'person'): Promise<string> {
  counter += 1
  const { rows } = await db.query<{ id: string }>('INSERT INTO people (name, email) VALUES ($1, $2) RETURNING id', [
    `${name} ${counter}`,
    `${name.replace(/\W/g, '')}.${counter}.${Date.now()}@example.test`,
  ])
  return String(rows[0]!.id)
}

export async function insertTeam(db: Db, createdBy: string, name = 'team'): Promise<string> {
  counter += 1
  const { rows } = await db.query<{ id: string }>('INSERT INTO teams (name, created_by) VALUES ($1, $2) RETURNING id', [`${name} ${counter}`, createdBy])
  return String(rows[0]!.id)
}

export async function insertIncident(db: Db, createdBy: string, title = 'incident'): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO incidents (title, description, type, severity, status, created_by) VALUES ($1, '', 'availability', 'high', 'open', $2) RETURNING id`,
    [title, createdBy],
  )
  return String(rows[0]!.id)
}

export async function insertHypothesis(db: Db, incidentId: string, createdBy: string, type: 'root' | 'factor' | 'solution' = 'root', parentId: string | null = null): Promise<string> {
  const { rows } = await db.query<{ id: string }>(
    `INSERT INTO hypotheses (incident_id, title, type, status, created_by, parent_id) VALUES ($1, $2, $3, 'possible', $4, $5) RETURNING id`,
    [incidentId, `${type} hypothesis`, type, createdBy, parentId],
  )
  return String(rows[0]!.id)
}

/** A canary with one http check, written the way the health engine stores them. */
export async function insertCheck(db: Db, name = 'api-health', labels: Record<string, string> = {}): Promise<{ canaryId: string; checkId: string }> {
  counter += 1
  const { rows: canaries } = await db.query<{ id: string }>(
    `INSERT INTO canaries (name, namespace, spec) VALUES ($1, 'default', '{}') RETURNING id`,
    [`canary-${counter}`],
  )
  const canaryId = String(canaries[0]!.id)
  const { rows: checks } = await db.query<{ id: string }>(
    `INSERT INTO checks (canary_id, type, name, namespace, labels, created_at) VALUES ($1, 'http', $2, 'default', $3, now()) RETURNING id`,
    [canaryId, name, JSON.stringify(labels)],
  )
  const checkId = String(checks[0]!.id)
  await db.query('INSERT INTO checks_unlogged (check_id, canary_id) VALUES ($1, $2)', [checkId, canaryId])
  return { canaryId, checkId }
}

/** Stores a run result the way the health engine's result store does (which fires the status triggers). */
export async function setCheckStatus(db: Db, checkId: string, healthy: boolean, message = healthy ? 'ok' : 'connection refused') {
  await db.transaction(async (tx) => {
    await tx.query('INSERT INTO check_statuses (check_id, time, status, message, duration) VALUES ($1, clock_timestamp(), $2, $3, 5)', [checkId, healthy, message])
    const status = healthy ? 'healthy' : 'unhealthy'
    await tx.query('UPDATE checks SET status = $2, last_runtime = now() WHERE id = $1', [checkId, status])
    await tx.query('UPDATE checks_unlogged SET status = $2, last_runtime = now() WHERE check_id = $1', [checkId, status])
  })
}
