import { queryLoki, queryOpenSearch, openSearchClause } from '#server/backend/logs/log-http-backends.ts'
import { LogInputError } from '#server/backend/logs/log-line.ts'
import { structureLines } from '#server/backend/logs/log-line-parsers.ts'
import { dedupeLines, matchLines } from '#server/backend/logs/log-post-processing.ts'
import { DEFAULT_LOG_LIMIT, MAX_LOG_LIMIT, type LogQueryContext, type LogWindow } from '#server/backend/logs/log-query-context.ts'
import type { ActionContext, ActionOutcome } from '../playbook-model.ts'
import { actionTargets, ActionInputError, objectOf, playbookNamespace, timeOf } from './action-access.ts'

/**
 * `logs` (resource-specs §2.5): one backend, `loki {query}` or `opensearch {index, query}`, read
 * over its HTTP API with `start`, `end` (RFC 3339 or date math; default the last hour) and
 * `limit` (default 100), then `match` (CEL per line: every expression must yield true) and
 * `dedupe {fields, window}` (lines alike in those fields within the window kept once, with a
 * count). `cloudwatch` and `kubernetes` need an AWS or cluster identity this Lookout does not run
 * with, and fail saying so. The result is `{logs: [{timestamp, message, labels, count?}], total}`.
 */

function limitOf(value: unknown): number {
  if (value === undefined || value === null || value === '') return DEFAULT_LOG_LIMIT
  const limit = Number(value)
  if (!Number.isInteger(limit) || limit < 1) throw new ActionInputError(`logs.limit must be a positive whole number (got ${String(value)})`)
  return Math.min(limit, MAX_LOG_LIMIT)
}

function windowOf(backend: Record<string, unknown>, spec: Record<string, unknown>): LogWindow {
  const now = new Date()
  const pick = (key: string) => backend[key] ?? spec[key]
  const end = timeOf(pick('end'), now, 'logs.end', now)
  const start = timeOf(pick('start'), new Date(end.getTime() - 3_600_000), 'logs.start', now)
  if (start > end) throw new ActionInputError('logs.start is after logs.end')
  return { start, end, limit: limitOf(pick('limit')) }
}

export async function runLogsAction(spec: Record<string, unknown>, context: ActionContext): Promise<ActionOutcome> {
  const backends = ['loki', 'opensearch', 'cloudwatch', 'kubernetes'].filter((key) => spec[key] !== undefined && spec[key] !== null)
  if (backends.length !== 1) throw new ActionInputError(`logs needs exactly one backend of loki, opensearch, cloudwatch or kubernetes${backends.length ? ` (got ${backends.join(', ')})` : ''}`)
  const kind = backends[0]!
  if (kind === 'cloudwatch') return { result: {}, error: 'logs.cloudwatch needs AWS CloudWatch Logs access, which this Lookout does not run; use loki or opensearch' }
  if (kind === 'kubernetes') return { result: {}, error: 'logs.kubernetes reads pod logs from a Kubernetes cluster, which this Lookout does not run; use loki or opensearch' }
  const backend = objectOf(spec[kind])
  const window = windowOf(backend, spec)
  const logContext: LogQueryContext = { db: context.db, signal: context.signal, targets: actionTargets(context), namespace: playbookNamespace(context) }
  try {
    let lines =
      kind === 'loki'
        ? await queryLoki(backend, typeof backend.query === 'string' ? backend.query : '', window, logContext, 'logs.loki')
        : await queryOpenSearch(backend, [openSearchClause(backend.query)].filter((clause) => clause !== null), window, logContext, 'logs.opensearch')
    lines = dedupeLines(matchLines(structureLines(lines, spec.parse, spec.mapping), spec.match), spec.dedupe)
    return { result: { logs: lines, total: lines.length } }
  } catch (error) {
    if (error instanceof LogInputError) throw new ActionInputError(error.message)
    throw error
  }
}
