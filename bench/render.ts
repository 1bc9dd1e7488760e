/**
 * bench/render — what the server render of a console page costs, apart from its loaders (issue 13
 * item 5), and what its HTML is made of.
 *
 *   npx tsx bench/render.ts            (in a tree with a production build: `npm run build` first)
 *   BENCH_REQUESTS=60  BENCH_WARMUP=10  BENCH_PAGES=/health,/incidents  BENCH_DUMP=<dir> (keep each page's HTML)
 *
 * The built console (server.ts, NODE_ENV=production) runs in a child process on a fresh PGlite
 * directory with the demo estate and LOOKOUT_RENDER_TIMING=1, so app/entry.server.tsx answers
 * every document with `Server-Timing: render;dur=…`: React's time from the start of the render
 * to the document's shell being ready (the loaders have run before; their data is fixed for the
 * run, as the demo checks are never executed), and `render-cpu`, the process CPU time meanwhile. The bench signs in with the bootstrap token and
 * requests each page in turn, sequentially. Render time moves with the machine's load: compare
 * runs made one after the other, and read the load average printed with them.
 *
 * HTML breakdown: total bytes, the inline scripts (loader data streamed as turbo-stream and
 * Remix's context), the inline <svg> icons, class attributes, and the body of closed <details>.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { signInWithToken } from './support/sign-in.ts'
import { startProcess, type RunningProcess } from '../tests/support/processes.ts'

const ROOT = process.cwd()
const TOKEN = 'bench-render-bootstrap-token-0123456789'
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 60)
const WARMUP = Number(process.env.BENCH_WARMUP ?? 10)
const PAGES = (process.env.BENCH_PAGES ?? '/health,/incidents,/settings/users,/view/health').split(',')

/** The built console on a fresh PGlite directory, with render timing on. */
const startConsole = (dataDir: string): Promise<RunningProcess> =>
  startProcess(
    'server.ts',
    { NODE_ENV: 'production', DATABASE_URL: '', LOOKOUT_DATA_DIR: dataDir, LOOKOUT_BOOTSTRAP_TOKEN: TOKEN, LOOKOUT_RENDER_TIMING: '1' },
    { timeoutMs: 180_000 },
  )

const signIn = (base: string) => signInWithToken(base, TOKEN)

function timing(header: string | null, name: string): number {
  const match = new RegExp(`(?:^|,)\\s*${name};dur=([\\d.]+)`).exec(header ?? '')
  if (!match) throw new Error(`no ${name} in Server-Timing (${header ?? 'absent'}): is LOOKOUT_RENDER_TIMING honoured by this build?`)
  return Number(match[1])
}

const kb = (text: string) => Buffer.byteLength(text) / 1024
const sumKb = (parts: Iterable<string>) => [...parts].reduce((sum, part) => sum + kb(part), 0)

/** What the bytes of a document are spent on (overlapping: an svg's class counts twice). */
function breakdown(html: string) {
  const scripts = [...html.matchAll(/<script\b[^>]*>[\s\S]*?<\/script>/g)].map((match) => match[0])
  const svgs = [...html.matchAll(/<svg\b[\s\S]*?<\/svg>/g)].map((match) => match[0])
  const classes = [...html.matchAll(/ class="[^"]*"/g)].map((match) => match[0])
  // The body of a <details> that is not open: rendered, sent and hidden until a click.
  const closedDetails = [...html.matchAll(/<details\b(?![^>]*\sopen)[^>]*>[\s\S]*?<\/details>/g)].map((match) => match[0])
  return { total: kb(html), scripts: sumKb(scripts), svgCount: svgs.length, svg: sumKb(svgs), classes: sumKb(classes), closedDetails: sumKb(closedDetails) }
}

const percentile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil(q * values.length) - 1)]!

async function main(): Promise<void> {
  if (!existsSync(path.join(ROOT, 'build', 'server', 'index.js'))) throw new Error('no build/: run `npm run build` first (under /tmp/lookout-e2e.lock)')
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'lookout-bench-render-'))
  const loadAtStart = os.loadavg()
  const server = await startConsole(dataDir)
  try {
    const cookie = await signIn(server.url)
    const rows: string[][] = [['page', 'status', 'render p50', 'render p90', 'CPU p50', 'HTML KB', 'scripts KB', 'svg', 'svg KB', 'class KB', 'closed <details> KB']]
    for (const page of PAGES) {
      const times: number[] = []
      const cpuTimes: number[] = []
      let html = ''
      let status = 0
      for (let i = 0; i < WARMUP + REQUESTS; i++) {
        const response = await fetch(`${server.url}${page}`, { headers: { cookie, accept: 'text/html' }, redirect: 'manual' })
        html = await response.text()
        status = response.status
        if (status !== 200) throw new Error(`${page} answered ${status}`)
        if (i >= WARMUP) {
          times.push(timing(response.headers.get('server-timing'), 'render'))
          cpuTimes.push(timing(response.headers.get('server-timing'), 'render-cpu'))
        }
      }
      const parts = breakdown(html)
      if (process.env.BENCH_DUMP) {
        mkdirSync(process.env.BENCH_DUMP, { recursive: true })
        writeFileSync(path.join(process.env.BENCH_DUMP, `${page.replace(/\W+/g, '_')}.html`), html)
      }
      rows.push([
        page,
        String(status),
        `${percentile(times, 0.5).toFixed(2)} ms`,
        `${percentile(times, 0.9).toFixed(2)} ms`,
        `${percentile(cpuTimes, 0.5).toFixed(2)} ms`,
        parts.total.toFixed(1),
        parts.scripts.toFixed(1),
        String(parts.svgCount),
        parts.svg.toFixed(1),
        parts.classes.toFixed(1),
        parts.closedDetails.toFixed(1),
      ])
    }
    const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)))
    console.log(`bench/render — ${new Date().toISOString()}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}`)
    console.log(`${WARMUP} warm-up + ${REQUESTS} sequential requests per page; load average at the start ${loadAtStart.map((n) => n.toFixed(2)).join(' ')}, at the end ${os.loadavg().map((n) => n.toFixed(2)).join(' ')}`)
    for (const [index, row] of rows.entries()) {
      console.log(`  ${row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ')}`)
      if (index === 0) console.log(`  ${widths.map((width) => '-'.repeat(width)).join('  ')}`)
    }
  } finally {
    await server.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

await main()
