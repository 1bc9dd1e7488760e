// `npm start`: builds what is missing or stale (scripts/ensure-build.mjs), then runs the bundled
// production server (build/lookout/server.js) in this same process: one Node start, no
// TypeScript compiled at run time (docs/decisions/013-start-time.md).
import cluster from 'node:cluster'
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { ensureBuild, SERVER_BUNDLE_DIR } from './ensure-build.mjs'

// Before anything loads React or Remix, which pick their production builds from it.
process.env.NODE_ENV = 'production'
const bundleUrl = (file) => pathToFileURL(path.join(SERVER_BUNDLE_DIR, file)).href

/**
 * A first embedded start copies the migrated PGlite template into the empty data directory; that
 * copy (~800 files, `cp -R` in a child process) runs while this thread loads the packages the
 * server imports and the console build, which the server would load next anyway
 * (docs/decisions/018). Without DATABASE_URL the server opens PGlite in LOOKOUT_DATA_DIR/pglite
 * (server/env.ts pgliteDir) and then finds the database in place. Any other start (a database
 * already there, or DATABASE_URL) goes straight to the server. A bad environment is still
 * reported by the server itself.
 */
async function prepareFirstStart() {
  const dataDir = process.env.LOOKOUT_DATA_DIR ?? './data'
  if (process.env.DATABASE_URL !== undefined || !dataDir) return
  const pgliteDir = path.resolve(dataDir, 'pglite')
  if (existsSync(path.join(pgliteDir, 'PG_VERSION'))) return
  const preload = path.join(SERVER_BUNDLE_DIR, 'preload.json')
  const packages = existsSync(preload) ? JSON.parse(readFileSync(preload, 'utf8')) : []
  const consoleBuild = path.resolve('build', 'server', 'index.js')
  const loads = [...packages.map((name) => import(name)), ...(existsSync(consoleBuild) ? [import(pathToFileURL(consoleBuild).href)] : [])]
  const copy = import(bundleUrl('pglite-template.js')).then(({ copyTemplateInBackground }) => copyTemplateInBackground(pgliteDir))
  // Whatever fails here (a package, a data directory that is not empty) fails the same way in
  // the server, which reports it properly.
  await Promise.all([copy, ...loads].map((step) => step.catch(() => undefined)))
}

// Console workers (LOOKOUT_WORKERS) run this file again; their primary has checked the build and the data directory.
if (cluster.isPrimary) {
  await ensureBuild()
  await prepareFirstStart()
}
await import(bundleUrl('server.js'))
