import { headersOf } from '#server/backend/health/checks/check-inputs.ts'
import { httpRequest } from '#server/backend/health/checks/http-client.ts'
import type { ActionContext, ActionOutcome } from '../playbook-model.ts'
import { actionTargets, ActionInputError, basicAuthorization, envVarValue, objectOf, resolveActionAccess, stringOf } from './action-access.ts'

/**
 * `http` (resource-specs §2.5): the HTTP connection fields (`connection`, `url`, `username`,
 * `password`, `bearer`, `headers`, `insecureTLS`, `tls {ca, cert, key, insecureSkipVerify}`), `method` (GET), `body` (templated only with
 * `templateBody: true`). The result is `{code, headers, content}` whatever the status: a non-2xx
 * answer does not fail the action, only a request that gets no answer does. Playbooks nobody with
 * the exec right wrote are fenced off this server's own addresses (action-access.ts).
 */
const MAX_CONTENT_BYTES = 5 * 1024 * 1024

export async function runHttpAction(spec: Record<string, unknown>, context: ActionContext): Promise<ActionOutcome> {
  const access = await resolveActionAccess(spec, context, { urlKeys: ['url', 'endpoint'], connectionIsUrl: true })
  if (!access.url) throw new ActionInputError('http.url or http.connection is required')
  let url: URL
  try {
    url = new URL(access.url)
  } catch {
    throw new ActionInputError(`http.url "${access.url}" is not a URL`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ActionInputError(`http.url must be http:// or https:// (got ${url.protocol})`)
  let headers: Record<string, string>
  try {
    headers = headersOf(spec.headers)
  } catch (error) {
    throw new ActionInputError(`http.${(error as Error).message}`)
  }
  const has = (name: string) => Object.keys(headers).some((key) => key.toLowerCase() === name)
  const bearer = envVarValue(spec.bearer, 'http.bearer') ?? (typeof access.properties.bearer === 'string' ? access.properties.bearer : undefined)
  const authorization = bearer ? `Bearer ${bearer}` : basicAuthorization(access.username, access.password)
  if (authorization && !has('authorization')) headers.Authorization = authorization
  const method = (stringOf(spec.method) || 'GET').toUpperCase()
  let body: string | undefined
  if (spec.body !== undefined && spec.body !== null && spec.body !== '') {
    body = typeof spec.body === 'string' ? spec.body : JSON.stringify(spec.body)
    if (!has('content-type') && typeof spec.body !== 'string') headers['Content-Type'] = 'application/json'
  }
  for (const key of ['oauth', 'awsSigV4', 'ntlm', 'ntlmv2', 'digest']) {
    if (spec[key]) throw new ActionInputError(`http.${key} is not supported here; put the credential in headers or bearer`)
  }
  const tlsSpec = objectOf(spec.tls)
  const tls = {
    // Not the connection's insecure_tls: the column defaults to true (data model), which would
    // turn verification off for every stored connection nobody set it on.
    rejectUnauthorized: !(spec.insecureTLS === true || tlsSpec.insecureSkipVerify === true),
    ca: envVarValue(tlsSpec.ca, 'http.tls.ca'),
    cert: envVarValue(tlsSpec.cert, 'http.tls.cert'),
    key: envVarValue(tlsSpec.key, 'http.tls.key'),
  }
  const response = await httpRequest(url.toString(), {
    method,
    headers,
    body,
    signal: context.signal,
    maxBodyBytes: MAX_CONTENT_BYTES,
    targets: actionTargets(context),
    tls,
  })
  return { result: { code: response.status, headers: response.headers, content: response.body.toString('utf8') } }
}
