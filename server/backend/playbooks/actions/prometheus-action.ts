import { parseDurationMs } from '#contract/canary/duration.ts'
import { httpRequest } from '#server/backend/health/checks/http-client.ts'
import type { ActionContext, ActionOutcome } from '../playbook-model.ts'
import { actionTargets, ActionInputError, basicAuthorization, envVarValue, objectOf, resolveActionAccess, stringOf, timeOf } from './action-access.ts'

/**
 * `prometheus` (resource-specs §2.5): connection fields, `query`, and `range {start, end, step}`
 * for a range query (an instant query without it). Over Prometheus' HTTP API
 * (`/api/v1/query`, `/api/v1/query_range`). The result is `{query, resultType, samples}`: one
 * sample `{labels, value, timestamp}` per series of an instant vector, `{labels, values:
 * [{timestamp, value}]}` per series of a range.
 */
type PrometheusAnswer = { status?: string; error?: string; errorType?: string; data?: { resultType?: string; result?: unknown } }
type Point = [number, string]

function point([seconds, value]: Point): { timestamp: string; value: number } {
  return { timestamp: new Date(seconds * 1000).toISOString(), value: Number(value) }
}

function samplesOf(resultType: string, result: unknown): unknown[] {
  if (resultType === 'vector' && Array.isArray(result)) {
    return result.map((series: { metric?: Record<string, string>; value: Point }) => ({ labels: series.metric ?? {}, ...point(series.value) }))
  }
  if (resultType === 'matrix' && Array.isArray(result)) {
    return result.map((series: { metric?: Record<string, string>; values?: Point[] }) => ({ labels: series.metric ?? {}, values: (series.values ?? []).map(point) }))
  }
  if ((resultType === 'scalar' || resultType === 'string') && Array.isArray(result)) return [point(result as Point)]
  return []
}

export async function runPrometheusAction(spec: Record<string, unknown>, context: ActionContext): Promise<ActionOutcome> {
  const access = await resolveActionAccess(spec, context, { connectionIsUrl: true })
  if (!access.url) throw new ActionInputError('prometheus.url or prometheus.connection is required')
  const query = stringOf(spec.query)
  if (query.trim() === '') throw new ActionInputError('prometheus.query is required')
  const base = access.url.replace(/\/+$/, '')
  const params = new URLSearchParams({ query })
  const now = new Date()
  let path = '/api/v1/query'
  if (spec.range !== undefined && spec.range !== null && spec.range !== false) {
    const range = objectOf(spec.range)
    const end = timeOf(range.end, now, 'prometheus.range.end', now)
    const start = timeOf(range.start, new Date(end.getTime() - 3_600_000), 'prometheus.range.start', now)
    if (start > end) throw new ActionInputError('prometheus.range.start is after its end')
    const step = stringOf(range.step) || `${Math.max(1, Math.ceil((end.getTime() - start.getTime()) / 1000 / 250))}s`
    if (parseDurationMs(step) === null && !/^\d+(\.\d+)?$/.test(step)) throw new ActionInputError(`prometheus.range.step "${step}" is not a duration`)
    path = '/api/v1/query_range'
    params.set('start', (start.getTime() / 1000).toString())
    params.set('end', (end.getTime() / 1000).toString())
    params.set('step', step)
  } else if (spec.time !== undefined) {
    params.set('time', (timeOf(spec.time, now, 'prometheus.time', now).getTime() / 1000).toString())
  }
  const headers: Record<string, string> = { Accept: 'application/json' }
  const bearer = envVarValue(spec.bearer, 'prometheus.bearer')
  const authorization = bearer ? `Bearer ${bearer}` : basicAuthorization(access.username, access.password)
  if (authorization) headers.Authorization = authorization
  const response = await httpRequest(`${base}${path}?${params.toString()}`, { headers, signal: context.signal, targets: actionTargets(context) })
  let answer: PrometheusAnswer
  try {
    answer = JSON.parse(response.body.toString('utf8')) as PrometheusAnswer
  } catch {
    return { result: { query }, error: `prometheus answered ${response.status} without JSON: ${response.body.toString('utf8').slice(0, 300)}` }
  }
  if (answer.status !== 'success') return { result: { query }, error: `prometheus query failed (${response.status}): ${answer.errorType ? `${answer.errorType}: ` : ''}${answer.error ?? 'unknown error'}` }
  const resultType = answer.data?.resultType ?? ''
  return { result: { query, resultType, samples: samplesOf(resultType, answer.data?.result) } }
}
