import express from 'express'
import type { Db } from '#server/db/client.ts'

/** Process-level facts served next to the database's properties, as the platform does. */
export type ProcessProperty = { name: string; value: string; description?: string }

export function createSettingsRouter(options: {
  db: Db
  appVersion: string
  processProperties?: ProcessProperty[]
}): express.Router {
  const router = express.Router()

  router.get('/about', (_req, res) => {
    res.json({ appVersion: options.appVersion, chartVersion: '', Version: options.appVersion })
  })

  // Bare array: process-level properties first, then database ones not already listed.
  router.get('/properties', async (_req, res, next) => {
    try {
      const fromProcess = (options.processProperties ?? []).map((property) => ({
        name: property.name,
        value: property.value,
        source: 'local',
        type: '',
        description: property.description ?? '',
      }))
      const { rows } = await options.db.query<{ name: string; value: string }>(
        'SELECT name, value FROM properties WHERE deleted_at IS NULL ORDER BY name',
      )
      const seen = new Set(fromProcess.map((property) => property.name))
      const fromDb = rows
        .filter((row) => !seen.has(row.name))
        .map((row) => ({ name: row.name, value: row.value, source: 'db', type: '', description: '' }))
      res.json([...fromProcess, ...fromDb])
    } catch (error) {
      next(error)
    }
  })

  return router
}
