/**
 * bench/js-size — how much JavaScript a browser downloads to show each page, from the
 * production build (run `npm run build` first).
 *
 *   npm run bench:js-size             (every page route; exit code 1 when any is over budget)
 *   BENCH_JSON=1                      (also print the figures as JSON, for the closing note)
 *
 * Reads the Remix manifest the build writes to build/client/assets/manifest-*.js and, for every
 * route a browser can land on, sums the gzip size (level 9) of every chunk the document
 * preloads: the client entry, root, the layouts above the route, the route, and all their
 * static imports. Chunks reached only through dynamic import() load on demand and are not
 * counted. Resource routes (no component: their client chunk is empty) and layouts that only
 * wrap other routes are not pages and are left out.
 *
 * Budget (issue 13): ≤ 100 KB gzip for every page, 0 KB for the kiosk views (`routes/view.*`),
 * which are wall boards with nothing to hydrate.
 *
 * A route whose `handle` says `hydrate: false` gets a document without <Scripts>, modulepreload
 * links or inlined loader data (app/root.tsx, decision 014), so it loads 0 KB whatever the
 * manifest lists for it. The handles are read from the server build (build/server/index.js),
 * the same objects root reads at render; tests/e2e/health.spec.ts checks the HTML itself.
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { gzipSync } from 'node:zlib'

type ManifestRoute = { id: string; parentId?: string; path?: string; index?: boolean; module: string; imports?: string[] }
type RemixManifest = { entry: { module: string; imports?: string[] }; routes: Record<string, ManifestRoute> }

const CLIENT_DIR = path.resolve('build', 'client')
export const BUDGET_KB = 100
export const KIOSK_BUDGET_KB = 0

export function readManifest(): RemixManifest {
  const assets = path.join(CLIENT_DIR, 'assets')
  const file = readdirSync(assets).find((name) => /^manifest-[\w-]+\.js$/.test(name))
  if (!file) throw new Error('no Remix manifest in build/client/assets: run `npm run build` first')
  const text = readFileSync(path.join(assets, file), 'utf8')
  const json = text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1)
  return JSON.parse(json) as RemixManifest
}

/** The route and every layout above it, root first. */
function routeChain(manifest: RemixManifest, routeId: string): ManifestRoute[] {
  const chain: ManifestRoute[] = []
  let current: ManifestRoute | undefined = manifest.routes[routeId]
  if (!current) {
    const known = Object.keys(manifest.routes).filter((id) => id.includes(routeId.split('.').at(-1) ?? routeId))
    throw new Error(`route ${routeId} is not in the build (similar: ${known.join(', ') || 'none'})`)
  }
  while (current) {
    chain.unshift(current)
    current = current.parentId ? manifest.routes[current.parentId] : undefined
  }
  return chain
}

const sizes = new Map<string, { raw: number; gzip: number }>()
function sizeOf(file: string): { raw: number; gzip: number } {
  let size = sizes.get(file)
  if (!size) {
    const bytes = readFileSync(path.join(CLIENT_DIR, file))
    size = { raw: bytes.byteLength / 1024, gzip: gzipSync(bytes, { level: 9 }).byteLength / 1024 }
    sizes.set(file, size)
  }
  return size
}

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

export function measureRoute(routeId: string, manifest = readManifest()) {
  const files = new Set<string>([manifest.entry.module, ...(manifest.entry.imports ?? [])])
  for (const route of routeChain(manifest, routeId)) {
    files.add(route.module)
    for (const file of route.imports ?? []) files.add(file)
  }
  const rows = [...files].map((file) => ({ file, ...sizeOf(file) })).sort((a, b) => b.gzip - a.gzip)
  const lazy = [...dynamicChunks(files, files)].map((file) => ({ file, ...sizeOf(file) })).sort((a, b) => b.gzip - a.gzip)
  return { rows, lazy, totalGzip: rows.reduce((sum, row) => sum + row.gzip, 0), totalRaw: rows.reduce((sum, row) => sum + row.raw, 0) }
}

/** A resource route has no component, so Vite emits an empty client chunk with no imports. */
function isResourceRoute(route: ManifestRoute): boolean {
  return (route.imports ?? []).length === 0 && sizeOf(route.module).raw * 1024 < 16
}

/** The URL pattern of a route: its path and its layouts' paths. */
function urlOf(manifest: RemixManifest, routeId: string): string {
  const parts = routeChain(manifest, routeId)
    .map((route) => route.path)
    .filter((part): part is string => Boolean(part))
  return `/${parts.join('/')}`
}

/**
 * The routes a browser can land on: leaf routes, plus layouts with a path of their own and no
 * index child (their URL renders the layout alone). Root and pathless layouts only wrap.
 */
export function pageRoutes(manifest = readManifest()): ManifestRoute[] {
  const routes = Object.values(manifest.routes)
  const children = (id: string) => routes.filter((route) => route.parentId === id)
  return routes.filter((route) => {
    if (route.id === 'root' || isResourceRoute(route)) return false
    const kids = children(route.id)
    return kids.length === 0 || (route.path !== undefined && !kids.some((kid) => kid.index))
  })
}

export const isKiosk = (routeId: string) => routeId.startsWith('routes/view.')

type ServerBuild = { routes: Record<string, { parentId?: string; module: { handle?: unknown } }> }

/** Routes rendered as documents without client JavaScript: a `hydrate: false` handle on the route or a layout above it. */
export async function staticDocumentRoutes(): Promise<Set<string>> {
  const build = (await import(pathToFileURL(path.resolve('build', 'server', 'index.js')).href)) as ServerBuild
  const optsOut = (id: string | undefined): boolean => {
    const route = id ? build.routes[id] : undefined
    if (!route) return false
    const handle = route.module.handle as { hydrate?: unknown } | undefined
    return handle?.hydrate === false || optsOut(route.parentId)
  }
  return new Set(Object.keys(build.routes).filter((id) => optsOut(id)))
}

export async function measureAllRoutes() {
  const manifest = readManifest()
  const staticRoutes = await staticDocumentRoutes()
  return pageRoutes(manifest)
    .map((route) => {
      const budget = isKiosk(route.id) ? KIOSK_BUDGET_KB : BUDGET_KB
      const url = urlOf(manifest, route.id)
      if (staticRoutes.has(route.id)) return { id: route.id, url, gzip: 0, raw: 0, chunks: 0, budget, over: false, hydrates: false }
      const { totalGzip, totalRaw, rows } = measureRoute(route.id, manifest)
      return { id: route.id, url, gzip: totalGzip, raw: totalRaw, chunks: rows.length, budget, over: totalGzip > budget, hydrates: true }
    })
    .sort((a, b) => b.gzip - a.gzip || a.id.localeCompare(b.id))
}

if (path.basename(process.argv[1] ?? '') === 'js-size.ts') {
  const results = await measureAllRoutes()
  const entry = readManifest().entry
  const shared = [entry.module, ...(entry.imports ?? [])].reduce((sum, file) => sum + sizeOf(file).gzip, 0)
  const table = [
    ['route', 'URL', 'gzip KB', 'raw KB', 'chunks', 'budget', 'verdict'],
    ...results.map((result) => [
      result.id,
      result.url,
      result.gzip.toFixed(2),
      result.raw.toFixed(1),
      String(result.chunks),
      `≤ ${result.budget}`,
      result.over ? `OVER by ${(result.gzip - result.budget).toFixed(2)}` : result.hydrates ? 'ok' : 'ok (no scripts)',
    ]),
  ]
  const widths = table[0]!.map((_, column) => Math.max(...table.map((row) => row[column]!.length)))
  console.log(`client JS preloaded per page route (build/client, gzip -9); the client entry alone is ${shared.toFixed(1)} KB gzip`)
  for (const [index, row] of table.entries()) {
    console.log(`  ${row.map((cell, column) => (column < 2 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ')}`)
    if (index === 0) console.log(`  ${widths.map((width) => '-'.repeat(width)).join('  ')}`)
  }
  const over = results.filter((result) => result.over)
  console.log(
    `${results.length} page routes; ${over.length} over budget (≤ ${BUDGET_KB} KB gzip per page, ${KIOSK_BUDGET_KB} KB for kiosk views routes/view.*)`,
  )
  if (process.env.BENCH_JSON) console.log(JSON.stringify(results))
  if (over.length > 0) process.exitCode = 1
}
