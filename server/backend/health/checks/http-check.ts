import { failResult, invalidResult, newResult, type CheckRunner } from '../check-result.ts'
import { renderGoTemplate } from '../go-template.ts'
import { CheckInputError, envValue, headersOf, resolveAccess } from './check-inputs.ts'
import { httpRequest } from './http-client.ts'
import type { EnvVar } from '#contract/canary/canary-spec.schema.ts'

const DAY_MS = 86_400_000

/** `http` (resource-specs §1.7.1), evaluated in the reference's order. */
export const runHttpCheck: CheckRunner = async (spec, context) => {
  const result = newResult()
  const started = performance.now()
  if (spec.url && spec.endpoint) return [invalidResult(result, 'url and endpoint are mutually exclusive')]
  let url: string
  let headers: Record<string, string>
  let body: string | undefined
  let username: string | undefined
  let password: string | undefined
  try {
    const access = await resolveAccess(spec, context, { urlKeys: ['url', 'endpoint'] })
    url = access.url
    username = access.username
    password = access.password
    headers = headersOf(spec.headers)
    body = typeof spec.body === 'string' ? spec.body : undefined
    if (body !== undefined && spec.templateBody && context.templatesEnabled) {
      const env: Record<string, unknown> = {}
      for (const entry of (spec.env as EnvVar[] | undefined) ?? []) {
        if (typeof entry === 'object' && entry.name) env[entry.name] = envValue(entry, `env.${entry.name}`)
      }
      body = renderGoTemplate(body, { ...env, username, password })
    }
  } catch (error) {
    return [invalidResult(result, (error as Error).message)]
  }
  let parsed: URL
  try {
    parsed = new URL(url)
    if (!/^https?:$/.test(parsed.protocol) || !parsed.hostname) throw new Error('no scheme or host')
  } catch {
    return [invalidResult(result, `invalid url "${url}": must have an http(s) scheme and a host`)]
  }
  context.check.endpoint = parsed.toString()
  if (parsed.username || parsed.password) {
    username ??= decodeURIComponent(parsed.username)
    password ??= decodeURIComponent(parsed.password)
    parsed.username = ''
    parsed.password = ''
  }
  if (username !== undefined || password !== undefined) {
    headers.Authorization ??= `Basic ${Buffer.from(`${username ?? ''}:${password ?? ''}`).toString('base64')}`
  }
  const tls = spec.tlsConfig as { insecureSkipVerify?: boolean; ca?: EnvVar; cert?: EnvVar; key?: EnvVar } | undefined
  let response
  try {
    response = await httpRequest(parsed.toString(), {
      method: typeof spec.method === 'string' ? spec.method.toUpperCase() : 'GET',
      headers,
      body,
      signal: context.signal,
      targets: context.targets,
      maxRedirects: typeof spec.maxRedirects === 'number' ? spec.maxRedirects : 10,
      tls: {
        rejectUnauthorized: !tls?.insecureSkipVerify,
        ca: envValue(tls?.ca, 'tlsConfig.ca'),
        cert: envValue(tls?.cert, 'tlsConfig.cert'),
        key: envValue(tls?.key, 'tlsConfig.key'),
      },
    })
  } catch (error) {
    result.duration = Math.round(performance.now() - started)
    if (error instanceof CheckInputError) return [invalidResult(result, error.message)]
    const reason = context.signal.aborted ? `timed out after ${context.timeoutMs}ms` : (error as Error).message
    return [failResult(result, `${spec.method ?? 'GET'} ${parsed.toString()}: ${reason}`)]
  }
  const elapsed = performance.now() - started
  result.duration = Math.round(elapsed)
  const content = response.body.toString('utf8')
  let json: unknown = {}
  const isJson = /\bjson\b/i.test(response.headers['content-type'] ?? '')
  if (isJson) {
    try {
      json = content.trim() === '' ? {} : JSON.parse(content)
    } catch {
      if (!spec.test) return [failResult(result, `invalid json response: ${content.slice(0, 200)}`)]
    }
  } else if (/^\s*[[{]/.test(content)) {
    try { json = JSON.parse(content) } catch { json = {} }
  }
  const sslAge = response.certificateExpiresAt ? response.certificateExpiresAt.getTime() - Date.now() : undefined
  result.data = { code: response.status, headers: response.headers, content, json, elapsed: result.duration, sslAge, results: {} }

  const codes = spec.responseCodes as number[] | undefined
  if (!codes || codes.length === 0) {
    // Without responseCodes the reference records the mismatch and keeps evaluating (§5 quirk 2).
    if (response.status < 200 || response.status > 299) failResult(result, `expected ${response.status} to be 200..299`)
  } else if (!codes.includes(response.status)) {
    return [failResult(result, `response code invalid ${response.status} != ${codes.join(',')}`)]
  }
  const threshold = Number(spec.thresholdMillis ?? 0)
  if (threshold > 0 && elapsed > threshold) {
    failResult(result, `threshold exceeded ${Math.round(elapsed)}ms > ${threshold}ms`)
    return [result]
  }
  if (typeof spec.responseContent === 'string' && spec.responseContent !== '' && !content.includes(spec.responseContent)) {
    failResult(result, `expected ${spec.responseContent}, found ${content.slice(0, 100)}`)
    return [result]
  }
  const maxSslDays = Number(spec.maxSSLExpiry ?? 0)
  if (maxSslDays > 0) {
    if (sslAge === undefined) failResult(result, 'no certificate found: maxSSLExpiry needs an https url')
    else if (sslAge < maxSslDays * DAY_MS) failResult(result, `SSL certificate expires soon ${Math.floor(sslAge / DAY_MS)} days < ${maxSslDays}`)
  }
  return [result]
}
