// `npm start`: builds what is missing or stale (scripts/ensure-build.mjs), then runs the bundled
// production server (build/lookout/server.js) in this same process: one Node start, no
// TypeScript compiled at run time (docs/decisions/013-start-time.md).
import cluster from 'node:cluster'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { ensureBuild, SERVER_BUNDLE_DIR } from './ensure-build.mjs'

// Before anything loads React or Remix, which pick their production builds from it.
process.env.NODE_ENV = 'production'
// Console workers (LOOKOUT_WORKERS) run this file again; their primary has checked the build.
if (cluster.isPrimary) await ensureBuild()
await import(pathToFileURL(path.join(SERVER_BUNDLE_DIR, 'server.js')).href)
