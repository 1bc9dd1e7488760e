import { mkdtempSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { defineConfig } from '@playwright/test'

/**
 * Browser tests against the real built server on a fresh database: a new PGlite directory,
 * or (LOOKOUT_E2E_DATABASE_URL, created by scripts/run-tests.mjs) a new PostgreSQL database.
 * Every spec runs twice: with JavaScript and without it (projects js and no-js). `npm test` runs
 * both on PostgreSQL and, on PGlite, only the tests tagged `{ tag: '@smoke' }` with JavaScript on
 * (`--project=js --grep @smoke`): one main journey per domain. `npm run test:e2e` runs them all.
 * Which tests carry the tag and why: docs/decisions/009-test-shape.md.
 */
export const E2E_PORT = Number(process.env.LOOKOUT_E2E_PORT ?? 4311)
export const E2E_TOKEN = 'e2e-bootstrap-token-0123456789abcdefghij'
/** The first identity, created by the server on its first start (identity e2e tests sign in with it). */
export const E2E_ADMIN = { email: 'admin@e2e.example.com', password: 'e2e-Admin-passw0rd!' }
/** WebAuthn needs a domain as relying party id, so the browser talks to localhost, not 127.0.0.1. */
export const E2E_ORIGIN = `http://localhost:${E2E_PORT}`
/**
 * Where specs run a loopback receiver for notification deliveries. The dispatcher fences this
 * server's own addresses like an untrusted check (background-workers.ts), so the server is started
 * allowing this one port (LOOKOUT_CHECK_ALLOWED_TARGETS), not loopback as a whole; the port is
 * fixed because the allowance must be known before the server starts.
 */
export const E2E_HOOK_PORT = Number(process.env.LOOKOUT_E2E_HOOK_PORT ?? E2E_PORT + 1)
const dataDir = process.env.LOOKOUT_E2E_DATA_DIR ?? mkdtempSync(path.join(os.tmpdir(), 'lookout-e2e-'))
process.env.LOOKOUT_E2E_DATA_DIR = dataDir

const chromium = {
  executablePath: process.env.LOOKOUT_CHROMIUM ?? '/usr/bin/chromium',
  // Without these, Chromium keeps trying to reach Google's services on this closed network.
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
}

export default defineConfig({
  testDir: 'tests/e2e',
  outputDir: 'test-results/playwright',
  fullyParallel: false,
  workers: 1,
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  reporter: [['list'], ['json']],
  use: {
    baseURL: E2E_ORIGIN,
    launchOptions: chromium,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
  },
  projects: [
    { name: 'js', use: { javaScriptEnabled: true } },
    { name: 'no-js', use: { javaScriptEnabled: false } },
  ],
  webServer: {
    command: `node ${path.join('node_modules', 'tsx', 'dist', 'cli.mjs')} server.ts`,
    url: `http://127.0.0.1:${E2E_PORT}/readyz`,
    timeout: 120_000,
    reuseExistingServer: false,
    stdout: 'pipe',
    env: {
      NODE_ENV: 'production',
      PORT: String(E2E_PORT),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      LOOKOUT_DATA_DIR: dataDir,
      LOOKOUT_BOOTSTRAP_TOKEN: E2E_TOKEN,
      LOOKOUT_PUBLIC_URL: E2E_ORIGIN,
      LOOKOUT_ADMIN_EMAIL: E2E_ADMIN.email,
      LOOKOUT_ADMIN_PASSWORD: E2E_ADMIN.password,
      LOOKOUT_REGISTRATION: 'open',
      LOOKOUT_CHECK_ALLOWED_TARGETS: `127.0.0.1:${E2E_HOOK_PORT}`,
      // A render that joins two Tailwind utilities for one property fails the page (app/lib/cn.ts).
      LOOKOUT_CLASS_CONFLICTS: process.env.LOOKOUT_CLASS_CONFLICTS ?? 'throw',
      ...(process.env.LOOKOUT_E2E_DATABASE_URL ? { DATABASE_URL: process.env.LOOKOUT_E2E_DATABASE_URL } : {}),
    },
  },
})
