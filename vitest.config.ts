import { defineConfig } from 'vitest/config'

// Kept apart from vite.config.ts: the Remix plugin builds the app and has no place in unit runs.
export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts', 'tests/**/*.test.tsx'],
    exclude: ['tests/e2e/**', 'node_modules/**'],
    environment: 'node',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    setupFiles: ['tests/support/setup.ts'],
  },
})
