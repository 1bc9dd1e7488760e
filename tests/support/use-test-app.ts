import { afterAll, beforeAll } from 'vitest'
import type { Db } from '#server/db/client.ts'
import { createTestApp } from './test-app.ts'
import { createTestDb, type TestDb } from './test-db.ts'

export type TestApp = ReturnType<typeof createTestApp> & { db: Db; testDb: TestDb }

/**
 * The usual setup of an HTTP test file: a fresh database on this pass's engine (migrated) and
 * the console app over it. The database is made before the file's own beforeAll hooks and
 * dropped after its afterAll hooks; the app is made on first use, so a file may seed the
 * database (settings the backend reads when it starts) before touching `app`, and a file that
 * needs only the database builds no app. Call it at the top level (or in a describe):
 *
 *   const testApp = useTestApp()
 *   it('…', () => request(testApp.app).get('/api/db/incidents').set(bearer))
 */
export function useTestApp(
  overrides: Record<string, string> = {},
  options: Parameters<typeof createTestApp>[2] = {},
): TestApp {
  let testDb: TestDb | undefined
  let built: ReturnType<typeof createTestApp> | undefined
  beforeAll(async () => {
    testDb = await createTestDb()
  })
  afterAll(async () => {
    await testDb?.drop()
    testDb = undefined
    built = undefined
  })
  const database = (): TestDb => {
    if (!testDb) throw new Error('useTestApp: use the database inside a test or hook, after its beforeAll has run')
    return testDb
  }
  const app = () => (built ??= createTestApp(database().db, overrides, options))
  return {
    get app() {
      return app().app
    },
    get env() {
      return app().env
    },
    get backend() {
      return app().backend
    },
    get db() {
      return database().db
    },
    get testDb() {
      return database()
    },
  }
}
