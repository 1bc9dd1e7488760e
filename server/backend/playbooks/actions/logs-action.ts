import { parseDurationMs } from '#contract/canary/duration.ts'
import { asBoolean, evaluateCel } from '#server/backend/health/expressions.ts'
import { httpRequest } from '#server/backend/health/checks/http-client.ts'
import type { ActionContext, ActionOutcome } from '../playbook-model.ts'
import { structureLines, type LogLine } from './log-line-parsers.ts'
import { actionTargets, ActionInputError, basicAuthorization, objectOf, resolveActionAccess, stringOf, timeOf } from './action-access.ts'

/**
 * `logs` (resource-specs §2.5): one backend, `loki {query}` or `opensearch {index, query}`, read
 * over its HTTP API with `start`, `end` (RFC 3339 or date math; default the last hour) and
 * `limit` (default 100), then `match` (CEL per line: every expression must yield true) and
 * `dedupe {fields, window}` (lines alike in those fields within the window kept once, with a
 * count). `cloudwatch` and `kubernetes` need an AWS or cluster identity this Lookout does not run
 * with, and fail saying so. The result is `{logs: [{timestamp, message, labels, count?}], total}`.
 */
export type { LogLine }

const DEFAULT_LIMIT = 100
const MAX_LIMIT = 5_000

function limitOf(value: unknown): number {
  if (value === undefined || value === null || value === '') return DEFAULT_LIMIT
  const limit = Number(value)
  if (!Number.isInteger(limit) || limit < 1) throw new ActionInputError(`logs.limit must be a positive whole number (got ${String(value)})`)
  return Math.min(limit, MAX_LIMIT)
}

type Window = { start: Date; end: Date; limit: number }

function windowOf(backend: Record<string, unknown>, spec: Record<string, unknown>): Window {
  const now = new Date()
  const pick = (key: string) => backend[key] ?? spec[key]
  const end = timeOf(pick('end'), now, 'logs.end', now)
  const start = timeOf(pick('start'), new Date(end.getTime() - 3_600_000), 'logs.start', now)
  if (start > end) throw new ActionInputError('logs.start is after logs.end')
  return { start, end, limit: limitOf(pick('limit')) }
}

async function getJson(url: string, context: ActionContext, options: { headers: Record<string, string>; method?: string; body?: string }, what: string): Promise<unknown> {
  const response = await httpRequest(url, { ...options, signal: context.signal, targets: actionTargets(context) })
  const text = response.body.toString('utf8')
  if (response.status < 200 || response.status >= 300) throw new Error(`${what} answered ${response.status}: ${text.slice(0, 500)}`)
  try {
    return JSON.parse(text)
  } catch {
    throw new Error(`${what} answered without JSON: ${text.slice(0, 300)}`)
  }
}

async function authHeaders(backend: Record<string, unknown>, context: ActionContext): Promise<{ base: string; headers: Record<string, string> }> {
  const access = await resolveActionAccess(backend, context, { connectionIsUrl: true })
  if (!access.url) throw new ActionInputError('logs: the backend needs a url or a connection')
  const headers: Record<string, string> = { Accept: 'application/json' }
  const authorization = basicAuthorization(access.username, access.password)
  if (authorization) headers.Authorization = authorization
  return { base: access.url.replace(/\/+$/, ''), headers }
}

type LokiAnswer = { status?: string; data?: { resultType?: string; result?: { stream?: Record<string, string>; values?: [string, string][] }[] } }

async function lokiLines(backend: Record<string, unknown>, window: Window, context: ActionContext): Promise<LogLine[]> {
  const query = stringOf(backend.query)
  if (!query.trim()) throw new ActionInputError('logs.loki.query is required')
  const { base, headers } = await authHeaders(backend, context)
  const params = new URLSearchParams({
    query,
    start: `${BigInt(window.start.getTime()) * 1_000_000n}`,
    end: `${BigInt(window.end.getTime()) * 1_000_000n}`,
    limit: String(window.limit),
    direction: stringOf(backend.direction) || 'backward',
  })
  const answer = (await getJson(`${base}/loki/api/v1/query_range?${params.toString()}`, context, { headers }, 'loki')) as LokiAnswer
  if (answer.status !== 'success') throw new Error(`loki query failed: ${JSON.stringify(answer).slice(0, 300)}`)
  if (answer.data?.resultType !== 'streams') throw new ActionInputError(`logs.loki.query must select log lines; it returned ${answer.data?.resultType ?? 'nothing'} (a metric query)`)
  const lines: LogLine[] = []
  for (const stream of answer.data.result ?? []) {
    for (const [nanoseconds, message] of stream.values ?? []) {
      lines.push({ timestamp: new Date(Number(BigInt(nanoseconds) / 1_000_000n)).toISOString(), message, labels: stream.stream ?? {} })
    }
  }
  return lines.sort((a, b) => (a.timestamp < b.timestamp ? 1 : a.timestamp > b.timestamp ? -1 : 0)).slice(0, window.limit)
}

type OpenSearchAnswer = { hits?: { hits?: { _id?: string; _index?: string; _source?: Record<string, unknown> }[] } }

function flatLabels(source: Record<string, unknown>, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [key, value] of Object.entries(source)) {
    const name = prefix ? `${prefix}.${key}` : key
    if (value && typeof value === 'object' && !Array.isArray(value)) Object.assign(out, flatLabels(value as Record<string, unknown>, name))
    else if (value !== undefined && value !== null) out[name] = typeof value === 'string' ? value : JSON.stringify(value)
  }
  return out
}

async function openSearchLines(backend: Record<string, unknown>, window: Window, context: ActionContext): Promise<LogLine[]> {
  const index = stringOf(backend.index)
  if (!index.trim()) throw new ActionInputError('logs.opensearch.index is required')
  const { base, headers } = await authHeaders(backend, context)
  const timestampField = stringOf(backend.timestampField) || '@timestamp'
  const messageField = stringOf(backend.messageField) || 'message'
  let query: unknown = { match_all: {} }
  if (typeof backend.query === 'string' && backend.query.trim() !== '') {
    try {
      query = JSON.parse(backend.query)
    } catch {
      query = { query_string: { query: backend.query } }
    }
  } else if (backend.query && typeof backend.query === 'object') {
    query = backend.query
  }
  const body = {
    size: window.limit,
    sort: [{ [timestampField]: { order: 'desc' } }],
    query: { bool: { must: [query], filter: [{ range: { [timestampField]: { gte: window.start.toISOString(), lte: window.end.toISOString() } } }] } },
  }
  const answer = (await getJson(`${base}/${encodeURIComponent(index)}/_search`, context, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify(body) }, 'opensearch')) as OpenSearchAnswer
  return (answer.hits?.hits ?? []).map((hit) => {
    const { [timestampField]: timestamp, [messageField]: message, ...rest } = hit._source ?? {}
    return {
      timestamp: stringOf(timestamp),
      message: typeof message === 'string' ? message : JSON.stringify(message ?? hit._source ?? {}),
      labels: flatLabels(rest),
    }
  })
}

/** `match`: CEL expressions over each line (`message`, `timestamp`, `labels`, `severity`, `host`, `id`, or all as `line`); a line is kept when all yield true. */
export function matchLines(lines: LogLine[], expressions: unknown): LogLine[] {
  if (expressions === undefined || expressions === null) return lines
  const list = (Array.isArray(expressions) ? expressions : [expressions]).map(stringOf).filter((text) => text.trim() !== '')
  if (list.length === 0) return lines
  return lines.filter((line) =>
    list.every((expression) => {
      let value: unknown
      try {
        // Parts a line may lack are empty strings, so `line.severity == "error"` asks rather than fails.
        const bound = { severity: '', host: '', id: '', ...line }
        value = evaluateCel(expression, { ...bound, line: bound })
      } catch (error) {
        throw new ActionInputError(`logs.match "${expression}": ${(error as Error).message}`)
      }
      const decided = asBoolean(value)
      if (decided === null) throw new ActionInputError(`logs.match "${expression}" must yield true or false, got ${JSON.stringify(value)}`)
      return decided
    }),
  )
}

/**
 * `dedupe {fields, window}`: lines whose `fields` (`message`, `labels.<name>`, or a label name)
 * are equal are kept once, newest first, with `count`; with a `window` (a duration) only lines
 * that close in time to the kept one merge into it.
 */
export function dedupeLines(lines: LogLine[], dedupe: unknown): LogLine[] {
  if (!dedupe || typeof dedupe !== 'object') return lines
  const spec = dedupe as Record<string, unknown>
  const fields = Array.isArray(spec.fields) && spec.fields.length > 0 ? spec.fields.map(stringOf) : ['message']
  const windowMs = spec.window === undefined || spec.window === '' ? null : parseDurationMs(spec.window)
  if (spec.window !== undefined && spec.window !== '' && windowMs === null) throw new ActionInputError(`logs.dedupe.window "${stringOf(spec.window)}" is not a duration`)
  const fieldValue = (line: LogLine, field: string) =>
    field === 'message' ? line.message : field === 'timestamp' ? line.timestamp : line.labels[field.replace(/^labels\./, '')] ?? ''
  const kept = new Map<string, LogLine>()
  const out: LogLine[] = []
  for (const line of lines) {
    const key = JSON.stringify(fields.map((field) => fieldValue(line, field)))
    const previous = kept.get(key)
    const close = previous && (windowMs === null || Math.abs(Date.parse(previous.timestamp) - Date.parse(line.timestamp)) <= windowMs)
    if (previous && close) {
      previous.count = (previous.count ?? 1) + 1
      continue
    }
    const copy = { ...line, count: 1 }
    kept.set(key, copy)
    out.push(copy)
  }
  return out
}

export async function runLogsAction(spec: Record<string, unknown>, context: ActionContext): Promise<ActionOutcome> {
  const backends = ['loki', 'opensearch', 'cloudwatch', 'kubernetes'].filter((key) => spec[key] !== undefined && spec[key] !== null)
  if (backends.length !== 1) throw new ActionInputError(`logs needs exactly one backend of loki, opensearch, cloudwatch or kubernetes${backends.length ? ` (got ${backends.join(', ')})` : ''}`)
  const kind = backends[0]!
  if (kind === 'cloudwatch') return { result: {}, error: 'logs.cloudwatch needs AWS CloudWatch Logs access, which this Lookout does not run; use loki or opensearch' }
  if (kind === 'kubernetes') return { result: {}, error: 'logs.kubernetes reads pod logs from a Kubernetes cluster, which this Lookout does not run; use loki or opensearch' }
  const backend = objectOf(spec[kind])
  const window = windowOf(backend, spec)
  let lines = kind === 'loki' ? await lokiLines(backend, window, context) : await openSearchLines(backend, window, context)
  lines = dedupeLines(matchLines(structureLines(lines, spec.parse, spec.mapping), spec.match), spec.dedupe)
  return { result: { logs: lines, total: lines.length } }
}
