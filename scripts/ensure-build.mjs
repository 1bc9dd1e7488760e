// Builds the console when build/ is missing or older than its sources, so `npm start` on a
// fresh clone works and a second start does not rebuild. Runs as the `prepare` lifecycle
// script too, so `npm ci` leaves a ready build behind.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'

const root = path.resolve(import.meta.dirname, '..')
const output = path.join(root, 'build', 'server', 'index.js')
const sources = ['app', 'vite.config.ts', 'package-lock.json', 'tsconfig.json']

function newestMtime(target) {
  const full = path.join(root, target)
  if (!existsSync(full)) return 0
  const stat = statSync(full)
  if (!stat.isDirectory()) return stat.mtimeMs
  let newest = stat.mtimeMs
  for (const entry of readdirSync(full, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(path.join(entry.parentPath, entry.name)).mtimeMs)
  }
  return newest
}

if (!existsSync(path.join(root, 'node_modules', '@remix-run', 'dev'))) {
  // A production install without dev dependencies cannot build; the image builds in an earlier stage.
  process.exit(0)
}
const built = existsSync(output) ? statSync(output).mtimeMs : 0
const stale = sources.some((source) => newestMtime(source) > built)
if (stale) {
  console.log('Building the console (remix vite:build)…')
  const result = spawnSync(process.execPath, [path.join(root, 'node_modules', '@remix-run', 'dev', 'dist', 'cli.js'), 'vite:build'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'production' },
  })
  if (result.status !== 0) process.exit(result.status ?? 1)
}

// The migrated PGlite template makes a cold first start fast; it is keyed by the migrations'
// digest, so this is a no-op when it is current.
const template = spawnSync(process.execPath, [path.join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), 'server/db/pglite-template-cli.ts'], {
  cwd: root,
  stdio: 'inherit',
})
process.exit(template.status ?? 1)
