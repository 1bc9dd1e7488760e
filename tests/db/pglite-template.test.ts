import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { createPGliteDb } from '#server/db/client.ts'
import { migrate } from '#server/db/migrate.ts'
import { buildTemplate, copyTemplate, copyTemplateInBackground, findTemplate } from '#server/db/pglite-template.ts'

describe('PGlite template', () => {
  it('starts an empty data directory already migrated, and is ignored for an existing one', async () => {
    await buildTemplate()
    const template = await findTemplate()
    expect(template).toBeDefined()
    const root = mkdtempSync(path.join(os.tmpdir(), 'lookout-template-'))
    const dir = path.join(root, 'pglite')
    try {
      // The server creates the directory before it looks for a database in it.
      mkdirSync(dir)
      expect(copyTemplate(template!, dir)).toBe(true)
      // Only the database is left: the copy went through a sibling that was renamed into place.
      expect(readdirSync(root)).toEqual(['pglite'])
      const db = await createPGliteDb(dir)
      expect((await migrate(db)).applied).toEqual([])
      await db.query(`INSERT INTO properties (name, value) VALUES ('kept', 'yes')`)
      await db.close()

      expect(copyTemplate(template!, dir)).toBe(false)
      const reopened = await createPGliteDb(dir)
      const { rows } = await reopened.query<{ value: string }>(`SELECT value FROM properties WHERE name = 'kept'`)
      expect(rows).toEqual([{ value: 'yes' }])
      await reopened.close()
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  }, 120_000)

  it('refuses a data directory that holds something other than a database', async () => {
    const template = await buildTemplate()
    const root = mkdtempSync(path.join(os.tmpdir(), 'lookout-template-'))
    const dir = path.join(root, 'pglite')
    try {
      mkdirSync(dir)
      writeFileSync(path.join(dir, 'notes.txt'), 'not a database')
      expect(() => copyTemplate(template, dir)).toThrow()
      expect(readdirSync(dir)).toEqual(['notes.txt'])
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  }, 120_000)

  it('copies in the background (npm start) into a missing or empty directory, never over a database', async () => {
    await buildTemplate()
    const root = mkdtempSync(path.join(os.tmpdir(), 'lookout-template-'))
    const dir = path.join(root, 'data', 'pglite')
    try {
      // The data directory need not exist yet: npm start runs before the server creates it.
      expect(await copyTemplateInBackground(dir)).toBe(true)
      expect(readdirSync(path.join(root, 'data'))).toEqual(['pglite'])
      const db = await createPGliteDb(dir)
      expect((await migrate(db)).applied).toEqual([])
      await db.query(`INSERT INTO properties (name, value) VALUES ('kept', 'yes')`)
      await db.close()
      // A second start, in the background or in the server, leaves the database alone.
      expect(await copyTemplateInBackground(dir)).toBe(false)
      expect(copyTemplate((await findTemplate())!, dir)).toBe(false)
      const reopened = await createPGliteDb(dir)
      expect((await reopened.query<{ value: string }>(`SELECT value FROM properties WHERE name = 'kept'`)).rows).toEqual([{ value: 'yes' }])
      await reopened.close()

      const other = path.join(root, 'other')
      mkdirSync(other)
      writeFileSync(path.join(other, 'notes.txt'), 'not a database')
      await expect(copyTemplateInBackground(other)).rejects.toThrow()
      expect(readdirSync(other)).toEqual(['notes.txt'])
      expect(readdirSync(root).sort()).toEqual(['data', 'other'])
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  }, 120_000)
})
