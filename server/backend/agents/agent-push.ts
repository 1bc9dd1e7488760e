import type { Logger } from 'pino'
import type { Db } from '#server/db/client.ts'
import { isConnectionFailure } from '#server/db/outage.ts'
import { LOCAL_AGENT_ID } from '#server/backend/health/canary-sync.ts'
import { PUSH_TABLES, type PushTable } from './upstream-store.ts'

/**
 * Agent mode: this process runs its own checks, scrapers and topologies as usual, and this loop
 * replicates what they wrote to the central Lookout (`POST {url}/upstream/push`).
 *
 * The outbox is the `is_pushed` column the replicated tables already carry (data-model §1.4):
 * a row is pending while it is false, and a BEFORE UPDATE trigger sets it back to false whenever
 * the row changes. So all state is in PostgreSQL and a restart loses nothing — a row pushed but
 * not yet marked is pushed again, which the central store takes as a no-op upsert. A row is
 * marked only if it still equals what was sent, so a change made while its push was in flight
 * stays pending.
 */
export type AgentPushOptions = {
  db: Db
  logger: Logger
  /**
   * The central instance's platform base, as Mission Control's UPSTREAM_HOST: a console's
   * `https://lookout.example.org/api`, or a standalone backend's root. `/upstream/...` is appended.
   */
  url: string
  token: string
  batchSize: number
  intervalMs: number
  /** Longest wait between failed attempts. */
  maxBackoffMs?: number
}

export type PushRound = { rows: number; requests: number; byTable: Record<string, number> }

// The central instance counts an agent online while it was seen in the last 61 s.
const HEARTBEAT_MS = 20_000
const REQUEST_TIMEOUT_MS = 60_000

const ORDER: Record<string, string> = { check_statuses: '"time"', config_analysis: 'first_observed' }

class PushError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message)
  }
}

function pendingSql(table: PushTable): string {
  const order = ORDER[table.name] ?? 'created_at'
  // Rows of the local agent only, less each instance's own seeded System rows (the nil id).
  const local = table.stamped ? `AND t.agent_id = '${LOCAL_AGENT_ID}' AND t.id <> '${LOCAL_AGENT_ID}'` : ''
  return `SELECT to_jsonb(t)::text AS row FROM ${table.name} t WHERE NOT t.is_pushed ${local} ORDER BY t.${order} NULLS FIRST LIMIT $1`
}

function markSql(table: PushTable): string {
  const keys = table.key.map((key) => `t."${key}" = p."${key}"`).join(' AND ')
  return `UPDATE ${table.name} t SET is_pushed = true
            FROM jsonb_array_elements($1::jsonb) r(row), LATERAL jsonb_populate_record(NULL::${table.name}, r.row) p
           WHERE ${keys} AND NOT t.is_pushed AND (to_jsonb(t) - 'is_pushed') = (r.row - 'is_pushed')`
}

export function upstreamEndpoint(url: string, path: string): string {
  return `${url.replace(/\/+$/, '')}/upstream/${path}`
}

export function createAgentPush(options: AgentPushOptions) {
  const { db } = options
  const log = options.logger.child({ component: 'agent-push' })
  const maxBackoffMs = options.maxBackoffMs ?? 60_000
  const headers = { Authorization: `Bearer ${options.token}`, 'Content-Type': 'application/json', Accept: 'application/json' }
  // A table whose rows are too big for the central body limit pushes fewer at a time.
  const batchOf = new Map<string, number>()
  let timer: NodeJS.Timeout | null = null
  let running: Promise<void> | null = null
  let stopped = true
  let failures = 0
  let lastContact = 0

  async function call(path: string, init: RequestInit): Promise<void> {
    const response = await fetch(upstreamEndpoint(options.url, path), { ...init, headers, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) })
    if (!response.ok) {
      const text = await response.text().catch(() => '')
      throw new PushError(`${init.method ?? 'GET'} ${upstreamEndpoint(options.url, path)} answered ${response.status}: ${text.slice(0, 500)}`, response.status)
    }
    await response.arrayBuffer()
    lastContact = Date.now()
  }

  async function pushTable(table: PushTable, round: PushRound): Promise<void> {
    for (;;) {
      const limit = batchOf.get(table.name) ?? options.batchSize
      const { rows } = await db.query<{ row: string }>(pendingSql(table), [limit])
      if (rows.length === 0) return
      const array = `[${rows.map((row) => row.row).join(',')}]`
      try {
        await call('push', { method: 'POST', body: `{"${table.name}":${array}}` })
      } catch (error) {
        if (error instanceof PushError && error.status === 413 && limit > 1) {
          batchOf.set(table.name, Math.max(1, Math.floor(limit / 2)))
          continue
        }
        throw error
      }
      await db.query(markSql(table), [array])
      round.rows += rows.length
      round.requests += 1
      round.byTable[table.name] = (round.byTable[table.name] ?? 0) + rows.length
      if (rows.length < limit) return
    }
  }

  /** Pushes everything pending now, table by table in dependency order; throws on the first failure. */
  async function drain(): Promise<PushRound> {
    const round: PushRound = { rows: 0, requests: 0, byTable: {} }
    for (const table of PUSH_TABLES) await pushTable(table, round)
    if (Date.now() - lastContact >= HEARTBEAT_MS) await call('ping', { method: 'GET' })
    return round
  }

  function schedule(delayMs: number) {
    if (stopped) return
    timer = setTimeout(() => {
      timer = null
      running = drain().then(
        (round) => {
          if (failures > 0) log.info({ afterFailures: failures }, 'agent push recovered')
          failures = 0
          if (round.rows > 0) log.debug(round, 'agent push')
          schedule(options.intervalMs)
        },
        (error: unknown) => {
          failures += 1
          const backoff = Math.min(maxBackoffMs, options.intervalMs * 2 ** Math.min(failures, 16))
          const level = isConnectionFailure(error) || failures > 1 ? 'warn' : 'error'
          log[level]({ err: error, retryInMs: backoff, failures }, 'agent push failed; retrying')
          schedule(backoff)
        },
      )
      running.finally(() => (running = null)).catch(() => undefined)
    }, delayMs)
    timer.unref()
  }

  return {
    drain,
    start() {
      if (!stopped) return
      stopped = false
      log.info({ upstream: options.url }, 'agent mode: pushing results upstream')
      schedule(0)
    },
    async stop() {
      stopped = true
      if (timer) clearTimeout(timer)
      timer = null
      await running?.catch(() => undefined)
    },
  }
}
