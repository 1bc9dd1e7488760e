import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { createPGliteDb } from '#server/db/client.ts'
import { migrate } from '#server/db/migrate.ts'
import { buildTemplate, findTemplate } from '#server/db/pglite-template.ts'

describe('PGlite template', () => {
  it('starts an empty data directory already migrated, and is ignored for an existing one', async () => {
    await buildTemplate()
    const template = await findTemplate()
    expect(template).toBeDefined()
    const dir = mkdtempSync(path.join(os.tmpdir(), 'lookout-template-'))
    try {
      const db = await createPGliteDb(dir, template)
      expect((await migrate(db)).applied).toEqual([])
      await db.query(`INSERT INTO properties (name, value) VALUES ('kept', 'yes')`)
      await db.close()

      const reopened = await createPGliteDb(dir, template)
      const { rows } = await reopened.query<{ value: string }>(`SELECT value FROM properties WHERE name = 'kept'`)
      expect(rows).toEqual([{ value: 'yes' }])
      await reopened.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)
})
