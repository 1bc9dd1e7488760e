import path from 'node:path'
import { defineConfig } from 'vitest/config'
import { engineDependentTestFiles } from './tests/support/engine-dependent.ts'

const root = import.meta.dirname
// `npm test` runs vitest once per database engine. Files that never reach tests/support/test-db.ts
// do the same work on both, so the PostgreSQL pass runs only the files that depend on the engine
// (docs/decisions/009-test-shape.md); the PGlite pass, and a plain `vitest run`, run everything.
const engineFilesOnly = process.env.LOOKOUT_TEST_ENGINE === 'postgres'

// Kept apart from vite.config.ts: the Remix plugin builds the app and has no place in unit runs.
export default defineConfig({
  test: {
    include: engineFilesOnly ? engineDependentTestFiles(root) : ['tests/**/*.test.ts', 'tests/**/*.test.tsx'],
    exclude: ['tests/e2e/**', 'node_modules/**'],
    environment: 'node',
    testTimeout: 30_000,
    // As in Playwright's CI setting: one retry absorbs a timing hiccup on a loaded 2-core runner;
    // a test that fails twice still fails the run.
    retry: process.env.CI ? 1 : 0,
    hookTimeout: 60_000,
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    setupFiles: [path.join('tests', 'support', 'setup.ts')],
  },
})
