// Builds what `npm start` serves when it is missing or older than its sources, so `npm start` on
// a fresh clone works and a second start does not rebuild: the console (remix vite:build), the
// server bundle and the migrated PGlite template (scripts/build-server.mjs). Runs as the
// `prepare` lifecycle script too, so `npm ci` leaves a ready build behind; scripts/start.mjs
// calls ensureBuild() in its own process.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

const root = path.resolve(import.meta.dirname, '..')
const consoleOutput = path.join(root, 'build', 'server', 'index.js')
const consoleSources = ['app', 'vite.config.ts', 'package-lock.json', 'tsconfig.json']
export const SERVER_BUNDLE_DIR = path.join(root, 'build', 'lookout')
const serverOutput = path.join(SERVER_BUNDLE_DIR, 'server.js')
const serverSources = ['server', 'server.ts', 'contract', 'package-lock.json', 'tsconfig.json', 'scripts/build-server.mjs']

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

const isStale = (output, sources) => {
  const built = existsSync(output) ? statSync(output).mtimeMs : 0
  return sources.some((source) => newestMtime(source) > built)
}

function run(script, args) {
  const result = spawnSync(process.execPath, [script, ...args], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'production' },
  })
  if (result.status !== 0) process.exit(result.status ?? 1)
}

export async function ensureBuild() {
  if (!existsSync(path.join(root, 'node_modules', '@remix-run', 'dev'))) {
    // A production install without dev dependencies cannot build; the image builds in an earlier stage.
    return
  }
  // remix vite:build empties build/, so the server bundle and template follow it.
  const consoleStale = isStale(consoleOutput, consoleSources)
  if (consoleStale) {
    console.log('Building the console (remix vite:build)…')
    run(path.join(root, 'node_modules', '@remix-run', 'dev', 'dist', 'cli.js'), ['vite:build'])
  }
  if (consoleStale || isStale(serverOutput, serverSources)) {
    console.log('Building the server bundle…')
    run(path.join(root, 'scripts', 'build-server.mjs'), [])
    return
  }
  // The template is keyed by the migrations' digest, so this only checks when it is current.
  const { buildTemplate, findTemplate } = await import(pathToFileURL(path.join(SERVER_BUNDLE_DIR, 'pglite-template.js')).href)
  if (!(await findTemplate())) {
    console.log('Building the PGlite template…')
    await buildTemplate()
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await ensureBuild()
