/**
 * bench/health-js-size — how much JavaScript a browser downloads to show /health, from the
 * production build (run `npx remix vite:build` first).
 *
 *   npx tsx bench/health-js-size.ts            (or BENCH_ROUTE=routes/view.health)
 *
 * Reads the Remix manifest the build writes to build/client/assets/manifest-*.js and sums the
 * gzip size of every chunk the document preloads for the route: the client entry, root, the
 * layouts above the route, the route, and all their static imports. Chunks reached only through
 * dynamic import() load on demand and are listed separately. Target: ≤ 100 KB gzip.
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { gzipSync } from 'node:zlib'

type ManifestRoute = { id: string; parentId?: string; module: string; imports?: string[] }
type RemixManifest = { entry: { module: string; imports?: string[] }; routes: Record<string, ManifestRoute> }

const CLIENT_DIR = path.resolve('build', 'client')
const TARGET_KB = 100

function readManifest(): RemixManifest {
  const assets = path.join(CLIENT_DIR, 'assets')
  const file = readdirSync(assets).find((name) => /^manifest-[\w-]+\.js$/.test(name))
  if (!file) throw new Error('no Remix manifest in build/client/assets: run `npx remix vite:build` first')
  const text = readFileSync(path.join(assets, file), 'utf8')
  const json = text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1)
  return JSON.parse(json) as RemixManifest
}

/** The route and every layout above it, root first. */
function routeChain(manifest: RemixManifest, routeId: string): ManifestRoute[] {
  const chain: ManifestRoute[] = []
  let current: ManifestRoute | undefined = manifest.routes[routeId]
  if (!current) throw new Error(`route ${routeId} is not in the build (known: ${Object.keys(manifest.routes).filter((id) => id.includes('health')).join(', ')})`)
  while (current) {
    chain.unshift(current)
    current = current.parentId ? manifest.routes[current.parentId] : undefined
  }
  return chain
}

const gzipKb = (file: string) => gzipSync(readFileSync(path.join(CLIENT_DIR, file)), { level: 9 }).byteLength / 1024
const rawKb = (file: string) => readFileSync(path.join(CLIENT_DIR, file)).byteLength / 1024

/** Chunks named in `import("./x.js")` calls of the preloaded files: fetched only when used. */
function dynamicChunks(files: Iterable<string>, loaded: Set<string>): Set<string> {
  const lazy = new Set<string>()
  const queue = [...files]
  while (queue.length > 0) {
    const file = queue.pop()!
    const text = readFileSync(path.join(CLIENT_DIR, file), 'utf8')
    for (const match of text.matchAll(/["'](?:\.\/|\/assets\/)([\w.-]+\.js)["']/g)) {
      const target = `/assets/${match[1]}`
      if (!loaded.has(target) && !lazy.has(target)) {
        lazy.add(target)
        queue.push(target)
      }
    }
  }
  return lazy
}

export function measureRoute(routeId: string) {
  const manifest = readManifest()
  const files = new Set<string>([manifest.entry.module, ...(manifest.entry.imports ?? [])])
  for (const route of routeChain(manifest, routeId)) {
    files.add(route.module)
    for (const file of route.imports ?? []) files.add(file)
  }
  const rows = [...files].map((file) => ({ file, raw: rawKb(file), gzip: gzipKb(file) })).sort((a, b) => b.gzip - a.gzip)
  const lazy = [...dynamicChunks(files, files)].map((file) => ({ file, raw: rawKb(file), gzip: gzipKb(file) })).sort((a, b) => b.gzip - a.gzip)
  return { rows, lazy, totalGzip: rows.reduce((sum, row) => sum + row.gzip, 0), totalRaw: rows.reduce((sum, row) => sum + row.raw, 0) }
}

if (process.argv[1]?.endsWith('health-js-size.ts')) {
  const routeId = process.env.BENCH_ROUTE ?? 'routes/_console.health'
  const { rows, lazy, totalGzip, totalRaw } = measureRoute(routeId)
  console.log(`client JS preloaded for ${routeId}:`)
  for (const row of rows) console.log(`  ${row.gzip.toFixed(1).padStart(6)} KB gzip  ${row.raw.toFixed(1).padStart(6)} KB raw  ${row.file}`)
  console.log(`total: ${totalGzip.toFixed(1)} KB gzip (${totalRaw.toFixed(1)} KB raw), target ≤ ${TARGET_KB} KB gzip: ${totalGzip <= TARGET_KB ? 'met' : 'NOT met'}`)
  if (lazy.length > 0) {
    console.log('loaded on demand (dynamic import):')
    for (const row of lazy) console.log(`  ${row.gzip.toFixed(1).padStart(6)} KB gzip  ${row.file}`)
  }
}
