/**
 * bench/health-js-size — how much JavaScript a browser downloads to show /health, chunk by
 * chunk, from the production build (run `npm run build` first). bench/js-size.ts measures every
 * route; this keeps the per-chunk view of one.
 *
 *   npx tsx bench/health-js-size.ts            (or BENCH_ROUTE=routes/view.health)
 *
 * Target: ≤ 100 KB gzip (0 KB for the kiosk views routes/view.*).
 */
import path from 'node:path'
import { BUDGET_KB, isKiosk, KIOSK_BUDGET_KB, measureRoute } from './js-size.ts'

export { measureRoute }

if (path.basename(process.argv[1] ?? '') === 'health-js-size.ts') {
  const routeId = process.env.BENCH_ROUTE ?? 'routes/_console.health'
  const target = isKiosk(routeId) ? KIOSK_BUDGET_KB : BUDGET_KB
  const { rows, lazy, totalGzip, totalRaw } = measureRoute(routeId)
  console.log(`client JS preloaded for ${routeId}:`)
  for (const row of rows) console.log(`  ${row.gzip.toFixed(1).padStart(6)} KB gzip  ${row.raw.toFixed(1).padStart(6)} KB raw  ${row.file}`)
  console.log(`total: ${totalGzip.toFixed(1)} KB gzip (${totalRaw.toFixed(1)} KB raw), target ≤ ${target} KB gzip: ${totalGzip <= target ? 'met' : 'NOT met'}`)
  if (lazy.length > 0) {
    console.log('loaded on demand (dynamic import):')
    for (const row of lazy) console.log(`  ${row.gzip.toFixed(1).padStart(6)} KB gzip  ${row.file}`)
  }
}
