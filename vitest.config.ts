import { defineConfig } from 'vitest/config'

// Kept apart from vite.config.ts: the Remix plugin builds the app and has no place in unit runs.
export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts', 'tests/**/*.test.tsx'],
    exclude: ['tests/e2e/**', 'node_modules/**'],
    environment: 'node',
    testTimeout: 30_000,
    // As in Playwright's CI setting: one retry absorbs a timing hiccup on a loaded 2-core runner;
    // a test that fails twice still fails the run.
    retry: process.env.CI ? 1 : 0,
    hookTimeout: 60_000,
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    setupFiles: ['tests/support/setup.ts'],
  },
})
