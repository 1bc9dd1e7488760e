import { failResult, invalidResult, newResult, type CheckResult, type CheckRunContext, type CheckRunner } from '../check-result.ts'
import type { EnvVar } from '#contract/canary/canary-spec.schema.ts'
import { envValue, headersOf, resolveAccess } from './check-inputs.ts'
import { httpRequest, type HttpResponse } from './http-client.ts'

/**
 * The checks that talk to an HTTP API: elasticsearch/opensearch (§1.7.9), alertmanager
 * (§1.7.10) and prometheus (§1.7.11). Each speaks just the endpoint the reference uses.
 */

async function apiCall(
  spec: Record<string, unknown>,
  context: CheckRunContext,
  build: (base: string) => { path: string; method?: string; body?: string },
): Promise<{ response: HttpResponse; json: unknown; duration: number } | CheckResult> {
  const result = newResult()
  let access
  let headers: Record<string, string>
  try {
    access = await resolveAccess(spec, context)
    headers = headersOf(spec.headers)
    const bearer = envValue(spec.bearer as EnvVar | undefined, 'bearer')
    if (bearer) headers.Authorization = `Bearer ${bearer}`
  } catch (error) {
    return invalidResult(result, (error as Error).message)
  }
  if (!access.url) return invalidResult(result, 'Must specify a URL')
  if (access.username !== undefined || access.password !== undefined) {
    headers.Authorization ??= `Basic ${Buffer.from(`${access.username ?? ''}:${access.password ?? ''}`).toString('base64')}`
  }
  const base = access.url.replace(/\/+$/, '')
  const request = build(base)
  context.check.endpoint = base
  const started = performance.now()
  try {
    const response = await httpRequest(`${base}${request.path}`, {
      method: request.method ?? 'GET',
      headers: { accept: 'application/json', ...(request.body ? { 'content-type': 'application/json' } : {}), ...headers },
      body: request.body,
      signal: context.signal,
      targets: context.targets,
    })
    const duration = Math.round(performance.now() - started)
    let json: unknown = null
    try { json = JSON.parse(response.body.toString('utf8')) } catch { json = null }
    return { response, json, duration }
  } catch (error) {
    result.duration = Math.round(performance.now() - started)
    return failResult(result, context.signal.aborted ? `timed out after ${context.timeoutMs}ms` : (error as Error).message)
  }
}

export const runElasticsearchCheck: CheckRunner = async (spec, context) => {
  const index = typeof spec.index === 'string' ? spec.index : ''
  const call = await apiCall(spec, context, () => ({
    path: `/${encodeURIComponent(index).replace(/%2C/g, ',')}/_search`,
    method: 'POST',
    body: typeof spec.query === 'string' && spec.query.trim() !== '' ? spec.query : '{}',
  }))
  if ('pass' in call) return [call]
  const result = newResult()
  result.duration = call.duration
  const body = (call.json ?? {}) as { error?: { type?: string; reason?: string } | string; hits?: { total?: { value?: number } | number } }
  result.detail = call.json
  if (call.response.status >= 400 || body.error) {
    const error = typeof body.error === 'object' ? `${body.error.type ?? 'error'}: ${body.error.reason ?? ''}` : String(body.error ?? call.response.statusText)
    return [failResult(result, `search failed (${call.response.status}) ${error}`)]
  }
  const total = typeof body.hits?.total === 'number' ? body.hits.total : Number(body.hits?.total?.value ?? 0)
  result.data = { ...(call.json as object), results: call.json }
  if (total === 0 && spec.markFailOnEmpty) return [failResult(result, 'query returned 0 hits')]
  const expected = Number(spec.results ?? 0)
  // An exact count, unlike SQL's minimum (§5 quirk 5).
  if (total !== expected) failResult(result, `Query returned ${total} results, expected ${expected}`)
  return [result]
}

type Alert = { labels?: Record<string, string>; annotations?: Record<string, string>; fingerprint?: string }
const WORKLOAD_LABELS = ['deployment', 'statefulset', 'daemonset', 'job', 'cronjob', 'replicaset', 'pod']

export function alertmanagerFilters(spec: Record<string, unknown>): string[] {
  const filters: string[] = []
  const alerts = (spec.alerts as string[] | undefined) ?? []
  if (alerts.length > 0) filters.push(`alertname=~"${alerts.join('|')}"`)
  for (const [label, value] of Object.entries((spec.filters as Record<string, string> | undefined) ?? {})) filters.push(`${label}=~"${value}"`)
  const ignore = (spec.ignore as string[] | undefined) ?? []
  if (ignore.length > 0) filters.push(`alertname!~"${ignore.join('|')}"`)
  for (const [label, value] of Object.entries((spec.exclude_filters as Record<string, string> | undefined) ?? {})) filters.push(`${label}!="${value}"`)
  return filters
}

export const runAlertmanagerCheck: CheckRunner = async (spec, context) => {
  const query = alertmanagerFilters(spec).map((filter) => `filter=${encodeURIComponent(filter)}`).join('&')
  const call = await apiCall(spec, context, () => ({ path: `/api/v2/alerts${query ? `?${query}` : ''}` }))
  if ('pass' in call) return [call]
  const result = newResult()
  result.duration = call.duration
  if (call.response.status >= 400 || !Array.isArray(call.json)) {
    return [failResult(result, `alertmanager answered ${call.response.status}: ${call.response.body.toString('utf8').slice(0, 200)}`)]
  }
  const alerts = (call.json as Alert[]).map((alert) => {
    const labels = alert.labels ?? {}
    const annotations = alert.annotations ?? {}
    const workload = WORKLOAD_LABELS.map((key) => labels[key]).find(Boolean)
    const name = [labels.alertname, labels.namespace, labels.node, workload, labels.container].filter(Boolean).join('/')
    return { name, message: annotations.message ?? annotations.description ?? annotations.summary ?? '', labels, annotations, fingerprint: alert.fingerprint ?? '' }
  })
  result.data = { alerts, results: { alerts } }
  result.detail = { alerts }
  result.message = `${alerts.length} alert(s)`
  return [result]
}

type Sample = { metric?: Record<string, string>; value?: [number, string] }

export const runPrometheusCheck: CheckRunner = async (spec, context) => {
  if (spec.host) return [invalidResult(newResult(), 'host is deprecated; use url')]
  const call = await apiCall(spec, context, () => ({ path: `/api/v1/query?query=${encodeURIComponent(String(spec.query ?? ''))}` }))
  if ('pass' in call) return [call]
  const result = newResult()
  result.duration = call.duration
  const body = (call.json ?? {}) as { status?: string; errorType?: string; error?: string; data?: { resultType?: string; result?: unknown } }
  if (call.response.status >= 400 || body.status !== 'success') {
    return [failResult(result, `${body.errorType ?? call.response.status}: ${body.error ?? call.response.statusText}`)]
  }
  const raw = body.data?.result
  const samples: Sample[] = Array.isArray(raw) ? (raw as Sample[]) : body.data?.resultType === 'scalar' && Array.isArray(raw) ? [{ value: raw as unknown as [number, string] }] : []
  const results = samples.map((sample) => ({ ...(sample.metric ?? {}), value: Number(sample.value?.[1]) }))
  const first = results[0]
  result.data = { value: first?.value, firstResult: first ?? {}, results }
  result.detail = results
  if (first) {
    const { value: _value, ...labels } = first
    context.check.labels = { ...context.check.labels, ...labels }
  }
  if (results.length === 0 && spec.markFailOnEmpty) return [failResult(result, 'query returned no results')]
  return [result]
}
