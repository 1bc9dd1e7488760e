import { httpRequest } from '#server/backend/health/checks/http-client.ts'
import { basicAuthorization } from '#server/backend/playbooks/actions/action-access.ts'
import { LogInputError, newestFirst, stringOf, type LogLine } from './log-line.ts'
import { resolveBackendAccess, type LogQueryContext, type LogWindow } from './log-query-context.ts'

/**
 * Loki (`GET /loki/api/v1/query_range`, times in nanoseconds) and OpenSearch / Elasticsearch
 * (`POST /{index}/_search` with a range filter on the timestamp field) over their HTTP APIs.
 * `field` names the block in messages (`logs.loki` in a playbook, `spec.loki` in a backend).
 */

async function getJson(url: string, context: LogQueryContext, options: { headers: Record<string, string>; method?: string; body?: string }, what: string): Promise<unknown> {
  const response = await httpRequest(url, { ...options, signal: context.signal, targets: context.targets })
  const text = response.body.toString('utf8')
  if (response.status < 200 || response.status >= 300) throw new Error(`${what} answered ${response.status}: ${text.slice(0, 500)}`)
  try {
    return JSON.parse(text)
  } catch {
    throw new Error(`${what} answered without JSON: ${text.slice(0, 300)}`)
  }
}

async function baseAndHeaders(block: Record<string, unknown>, context: LogQueryContext, field: string): Promise<{ base: string; headers: Record<string, string> }> {
  const access = await resolveBackendAccess(block, context)
  if (!access.url) throw new LogInputError(`${field} needs a url or a connection`)
  const headers: Record<string, string> = { Accept: 'application/json' }
  const authorization = basicAuthorization(access.username, access.password)
  if (authorization) headers.Authorization = authorization
  return { base: access.url.replace(/\/+$/, ''), headers }
}

type LokiAnswer = { status?: string; data?: { resultType?: string; result?: { stream?: Record<string, string>; values?: [string, string][] }[] } }

export async function queryLoki(block: Record<string, unknown>, query: string, window: LogWindow, context: LogQueryContext, field: string): Promise<LogLine[]> {
  if (!query.trim()) throw new LogInputError(`${field}.query is required`)
  const { base, headers } = await baseAndHeaders(block, context, field)
  const params = new URLSearchParams({
    query,
    start: `${BigInt(window.start.getTime()) * 1_000_000n}`,
    end: `${BigInt(window.end.getTime()) * 1_000_000n}`,
    limit: String(window.limit),
    direction: stringOf(block.direction) || 'backward',
  })
  const answer = (await getJson(`${base}/loki/api/v1/query_range?${params.toString()}`, context, { headers }, 'loki')) as LokiAnswer
  if (answer.status !== 'success') throw new Error(`loki query failed: ${JSON.stringify(answer).slice(0, 300)}`)
  if (answer.data?.resultType !== 'streams') throw new LogInputError(`${field}.query must select log lines; it returned ${answer.data?.resultType ?? 'nothing'} (a metric query)`)
  const lines: LogLine[] = []
  for (const stream of answer.data.result ?? []) {
    for (const [nanoseconds, message] of stream.values ?? []) {
      lines.push({ timestamp: new Date(Number(BigInt(nanoseconds) / 1_000_000n)).toISOString(), message, labels: { ...(stream.stream ?? {}) } })
    }
  }
  return newestFirst(lines).slice(0, window.limit)
}

const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/

/**
 * The LogQL of a search: a full query (`{…} |= …`) is taken as written; otherwise a stream
 * selector from the labels (each value matched exactly), the backend's own query when no label
 * is given, and the text as a line filter.
 */
export function lokiQuery(options: { labels: Record<string, string>; text: string; fallback: string }): string {
  const text = options.text.trim()
  if (text.startsWith('{')) return text
  const matchers = Object.entries(options.labels).map(([name, value]) => {
    if (!LABEL_NAME.test(name)) throw new LogInputError(`label "${name}" is not a Loki label name`)
    // A JSON string is a valid LogQL string literal: quotes and backslashes escaped alike.
    return `${name}=${JSON.stringify(value)}`
  })
  const selector = matchers.length > 0 ? `{${matchers.join(', ')}}` : options.fallback.trim()
  if (!selector) throw new LogInputError('loki needs labels or a query to select log streams')
  return text ? `${selector} |= ${JSON.stringify(text)}` : selector
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

/** A query string is JSON query DSL when it parses as such, Lucene query-string syntax otherwise. */
export function openSearchClause(query: unknown): unknown {
  if (typeof query === 'string' && query.trim() !== '') {
    try {
      return JSON.parse(query)
    } catch {
      return { query_string: { query } }
    }
  }
  if (query && typeof query === 'object') return query
  return null
}

export async function queryOpenSearch(block: Record<string, unknown>, clauses: unknown[], window: LogWindow, context: LogQueryContext, field: string): Promise<LogLine[]> {
  const index = stringOf(block.index)
  if (!index.trim()) throw new LogInputError(`${field}.index is required`)
  const { base, headers } = await baseAndHeaders(block, context, field)
  const timestampField = stringOf(block.timestampField) || '@timestamp'
  const messageField = stringOf(block.messageField) || 'message'
  const must = clauses.length > 0 ? clauses : [{ match_all: {} }]
  const body = {
    size: window.limit,
    sort: [{ [timestampField]: { order: 'desc' } }],
    query: { bool: { must, filter: [{ range: { [timestampField]: { gte: window.start.toISOString(), lte: window.end.toISOString() } } }] } },
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
