/**
 * bench/gateway — what the gateway costs. The same /api/db read is sent straight to the
 * backend process (`npm run backend`) and through a console process in upstream mode pointed
 * at it, alternating rounds in one run so both see the same machine state.
 *
 *   npm run bench:gateway            (PostgreSQL server if reachable, else PGlite)
 *   BENCH_SECONDS=10 BENCH_ROUNDS=3  (per round and number of rounds)
 *
 * Prints requests/s at saturation and p50/p99 at a fixed moderate rate, with the ratios the
 * issue targets: throughput ratio ≥ 0.9 and added p99 ≤ 2 ms.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import autocannon from 'autocannon'
import { scratchDatabase } from './support/scratch-database.ts'
import { startProcess } from '../tests/support/processes.ts'

const TOKEN = 'bench-bootstrap-token-0123456789abcdefgh'
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16)
const FIXED_RATE = Number(process.env.BENCH_RATE ?? 200)
const QUERY = '/db/checks?select=id,name,status,namespace,labels&deleted_at=is.null&order=name.asc&limit=25'

type Figures = { rps: number; p50: number; p99: number; errors: number }

async function load(url: string, options: { connections: number; rate?: number; seconds: number }): Promise<Figures> {
  const result = await autocannon({
    url,
    connections: options.connections,
    duration: options.seconds,
    overallRate: options.rate,
    headers: { authorization: `Bearer ${TOKEN}`, accept: 'application/json' },
  })
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

async function main(): Promise<void> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'lookout-bench-'))
  const database = await scratchDatabase('lookout_bench')
  const backend = await startProcess('server/backend-server.ts', {
    LOOKOUT_BOOTSTRAP_TOKEN: TOKEN,
    LOOKOUT_DATA_DIR: path.join(scratch, 'backend'),
    LOG_LEVEL: 'warn',
    ...(database ? { DATABASE_URL: database.url } : {}),
  })
  const gateway = await startProcess('server.ts', {
    NODE_ENV: 'production',
    LOOKOUT_MODE: 'upstream',
    BACKEND_URL: backend.url,
    LOOKOUT_BOOTSTRAP_TOKEN: TOKEN,
    LOOKOUT_DATA_DIR: path.join(scratch, 'gateway'),
    LOOKOUT_DEMO_DATA: 'false',
    LOG_LEVEL: 'warn',
  })
  const direct = `${backend.url}${QUERY}`
  const through = `${gateway.url}/api${QUERY}`
  try {
    for (const url of [direct, through]) {
      const response = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } })
      if (!response.ok) throw new Error(`${url} answered ${response.status}: ${await response.text()}`)
    }
    // Warm both paths (JIT, connection pools, caches) before measuring.
    await load(direct, { connections: CONNECTIONS, seconds: 2 })
    await load(through, { connections: CONNECTIONS, seconds: 2 })

    const saturated = { direct: [] as Figures[], gateway: [] as Figures[] }
    const fixed = { direct: [] as Figures[], gateway: [] as Figures[] }
    for (let round = 0; round < ROUNDS; round++) {
      saturated.direct.push(await load(direct, { connections: CONNECTIONS, seconds: SECONDS }))
      saturated.gateway.push(await load(through, { connections: CONNECTIONS, seconds: SECONDS }))
      fixed.direct.push(await load(direct, { connections: 4, rate: FIXED_RATE, seconds: SECONDS }))
      fixed.gateway.push(await load(through, { connections: 4, rate: FIXED_RATE, seconds: SECONDS }))
    }
    const pick = (runs: Figures[], key: keyof Figures) => median(runs.map((run) => run[key]))
    const directRps = pick(saturated.direct, 'rps')
    const gatewayRps = pick(saturated.gateway, 'rps')
    const directP99 = pick(fixed.direct, 'p99')
    const gatewayP99 = pick(fixed.gateway, 'p99')
    const errors = [...saturated.direct, ...saturated.gateway, ...fixed.direct, ...fixed.gateway].reduce((sum, run) => sum + run.errors, 0)

    console.log(`bench/gateway — GET ${QUERY}`)
    console.log(`engine: ${database ? 'PostgreSQL server' : 'PGlite'}; ${ROUNDS} rounds × ${SECONDS} s; medians`)
    console.log(`saturation (${CONNECTIONS} connections):  direct ${directRps.toFixed(0)} req/s   via gateway ${gatewayRps.toFixed(0)} req/s`)
    console.log(
      `fixed ${FIXED_RATE} req/s:  direct p50 ${pick(fixed.direct, 'p50')} ms p99 ${directP99} ms   via gateway p50 ${pick(fixed.gateway, 'p50')} ms p99 ${gatewayP99} ms`,
    )
    console.log(`throughput ratio (gateway / direct): ${(gatewayRps / directRps).toFixed(3)}   (target ≥ 0.9)`)
    console.log(`added p99: ${(gatewayP99 - directP99).toFixed(2)} ms   (target ≤ 2 ms)`)
    console.log(`errors and non-2xx answers: ${errors}`)
  } finally {
    await gateway.stop()
    await backend.stop()
    await database?.drop()
    rmSync(scratch, { recursive: true, force: true })
  }
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
