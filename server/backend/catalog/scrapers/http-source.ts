import { setTimeout as sleep } from 'node:timers/promises'
import type { EnvVar } from '#contract/canary/canary-spec.schema.ts'
import { parseDurationMs } from '#contract/canary/duration.ts'
import { envValue, findConnection, headersOf, resolveAccess } from '#server/backend/health/checks/check-inputs.ts'
import { httpRequest, type HttpRequestOptions, type HttpResponse } from '#server/backend/health/checks/http-client.ts'
import { evaluateCel } from '#server/backend/health/expressions.ts'
import { renderGoTemplate } from '#server/backend/health/go-template.ts'
import { abortReason, type ScrapedDocument, type ScrapeRunContext, type ScraperSource } from './scraper-source.ts'

/**
 * The `http` scraper (resource-specs §3.7): one request (connection fields, method, body,
 * headers, `env` for the URL template), or a chain of pages driven by `pagination.nextPageExpr`.
 * Pages are merged into one document (a list, through `reduceExpr` or the default merge) or, with
 * `perPage`, kept as one document each. Requests go through the check engine's client and
 * connection rules, so a scraper reaches exactly what a check with the same fields would.
 */

/** Largest response body read per page; a larger one fails the run rather than parsing a truncated body. */
const MAX_BODY_BYTES = 64 * 1024 * 1024
/** Error bodies quoted in job history are cut here. */
const ERROR_BODY_CHARS = 500
/** A 429 answer is retried this many times, waiting Retry-After (at most RETRY_AFTER_CAP_MS) or 1 s, 2 s, 4 s. */
const MAX_RETRIES_ON_429 = 3
const RETRY_AFTER_CAP_MS = 60_000

type PageRequest = { url: string; method: string; body?: string; headers: Record<string, string> }

type Pagination = { nextPageExpr: string; reduceExpr?: string; perPage: boolean; maxPages: number; delayMs: number }

type PageResponse = { url: string; status: number; headers: Record<string, string>; body: unknown }

export class HttpScrapeError extends Error {}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined
}

function record(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
}

/** The URL with any embedded credentials removed, for messages and document sources. */
function redacted(url: string): string {
  try {
    const parsed = new URL(url)
    parsed.username = ''
    parsed.password = ''
    return parsed.toString()
  } catch {
    return url
  }
}

function paginationOf(entry: Record<string, unknown>): Pagination | null {
  const spec = record(entry.pagination)
  if (!spec) return null
  const nextPageExpr = text(spec.nextPageExpr)
  if (!nextPageExpr) throw new HttpScrapeError('pagination.nextPageExpr is required when pagination is set')
  const maxPages = spec.maxPages === undefined || spec.maxPages === null ? 0 : Number(spec.maxPages)
  if (!Number.isInteger(maxPages) || maxPages < 0) throw new HttpScrapeError(`pagination.maxPages must be a whole number ≥ 0 (0 = unlimited), got ${JSON.stringify(spec.maxPages)}`)
  let delayMs = 0
  if (spec.delay !== undefined && spec.delay !== null && spec.delay !== '') {
    const parsed = parseDurationMs(spec.delay)
    if (parsed === null) throw new HttpScrapeError(`pagination.delay: invalid duration ${JSON.stringify(spec.delay)} (e.g. 500ms, 2s)`)
    delayMs = parsed
  }
  return { nextPageExpr, reduceExpr: text(spec.reduceExpr), perPage: spec.perPage === true, maxPages, delayMs }
}

/**
 * A stored connection's `properties.headers`: a JSON list of EnvVars (as the platform stores
 * them) or the list itself.
 */
function storedHeaders(value: unknown): Record<string, string> {
  if (value === undefined || value === null || value === '') return {}
  let list = value
  if (typeof value === 'string') {
    try {
      list = JSON.parse(value)
    } catch {
      throw new HttpScrapeError('connection properties.headers is not a JSON list of {name, value}')
    }
  }
  return headersOf(list)
}

function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((key) => key.toLowerCase() === name)
}

/** Header names compared case-insensitively: a later source replaces an earlier one of the same name. */
function mergeHeaders(...sources: Record<string, string>[]): Record<string, string> {
  const merged = new Map<string, [string, string]>()
  for (const source of sources) {
    for (const [name, value] of Object.entries(source)) merged.set(name.toLowerCase(), [name, value])
  }
  return Object.fromEntries(merged.values())
}

/** OAuth2 client-credentials grant: the access token, or an error naming the token URL. */
async function oauthToken(
  oauth: { clientID?: string; clientSecret?: string; tokenURL: string; scopes: string[]; params: Record<string, string> },
  options: Pick<HttpRequestOptions, 'signal' | 'targets' | 'tls'>,
): Promise<string> {
  const form = new URLSearchParams({ grant_type: 'client_credentials' })
  if (oauth.clientID) form.set('client_id', oauth.clientID)
  if (oauth.clientSecret) form.set('client_secret', oauth.clientSecret)
  if (oauth.scopes.length > 0) form.set('scope', oauth.scopes.join(' '))
  for (const [key, value] of Object.entries(oauth.params)) form.set(key, value)
  let response: HttpResponse
  try {
    response = await httpRequest(oauth.tokenURL, {
      ...options,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
    })
  } catch (error) {
    throw new HttpScrapeError(`oauth token request to ${redacted(oauth.tokenURL)} failed: ${(error as Error).message}`)
  }
  const body = response.body.toString('utf8')
  if (response.status < 200 || response.status > 299) {
    throw new HttpScrapeError(`oauth token request to ${redacted(oauth.tokenURL)} returned HTTP ${response.status}: ${body.slice(0, ERROR_BODY_CHARS)}`)
  }
  let token: unknown
  try {
    token = (JSON.parse(body) as { access_token?: unknown }).access_token
  } catch {
    token = new URLSearchParams(body).get('access_token')
  }
  if (typeof token !== 'string' || token === '') throw new HttpScrapeError(`oauth token response from ${redacted(oauth.tokenURL)} has no access_token`)
  return token
}

/** `first` is the scraper's own request; `headers` what every later page carries too (auth, connection and inline headers). */
type ResolvedRequest = { first: PageRequest; headers: Record<string, string>; tls: HttpRequestOptions['tls'] }

/**
 * URL, credentials, headers and TLS from the entry and its stored connection. URL and
 * credentials follow the shared connection rules (§0.3: an inline URL overrides the stored one,
 * inline credentials only fill what the connection lacks); bearer, OAuth and headers follow the
 * platform's HTTP connection (inline values win, headers merged by name).
 */
async function resolveRequest(entry: Record<string, unknown>, context: ScrapeRunContext): Promise<ResolvedRequest> {
  for (const unsupported of ['ntlm', 'ntlmv2', 'digest'] as const) {
    if (entry[unsupported] === true) throw new HttpScrapeError(`${unsupported} authentication is not supported by this console's http scraper`)
  }
  if (entry.awsSigV4) throw new HttpScrapeError('awsSigV4 request signing is not supported by this console\'s http scraper')
  if (text(entry.url) && text(entry.endpoint)) throw new HttpScrapeError('url and endpoint are mutually exclusive')
  const access = await resolveAccess(entry, {
    resolveConnection: (ref, namespace) => findConnection(context.db, ref, namespace),
    canary: { namespace: context.namespace },
    templatesEnabled: true,
    targets: context.targets,
  }, { urlKeys: ['url', 'endpoint'] })
  const properties = access.properties
  const stored = (key: string): string | undefined => (access.connection ? text(properties[key]) : undefined)

  const env: Record<string, unknown> = {}
  const envList = Array.isArray(entry.env) ? (entry.env as EnvVar[]) : []
  envList.forEach((variable, index) => {
    if (typeof variable === 'object' && variable?.name) env[variable.name] = envValue(variable, `env[${index}]`) ?? ''
  })
  let url = access.url
  if (url.includes('{{')) {
    try {
      url = renderGoTemplate(url, { ...env, username: access.username ?? '', password: access.password ?? '' })
    } catch (error) {
      throw new HttpScrapeError(`url template: ${(error as Error).message}`)
    }
  }
  if (!url) throw new HttpScrapeError('url is empty: set url, or a connection with a URL')
  let parsed: URL
  try {
    parsed = new URL(url)
    if (!/^https?:$/.test(parsed.protocol) || !parsed.hostname) throw new Error('no scheme or host')
  } catch {
    throw new HttpScrapeError(`invalid url "${redacted(url)}": must have an http(s) scheme and a host`)
  }
  let username = access.username
  let password = access.password
  if (parsed.username || parsed.password) {
    username ??= decodeURIComponent(parsed.username)
    password ??= decodeURIComponent(parsed.password)
    parsed.username = ''
    parsed.password = ''
  }

  // TLS settings come from the entry only: a stored connection's insecure_tls defaults to true in
  // the platform's schema, and honouring it would turn verification off for nearly every one
  // (the platform itself applies it only together with a CA, cert and key).
  const tlsSpec = record(entry.tls) ?? record(entry.tlsConfig)
  const tls: HttpRequestOptions['tls'] = {
    rejectUnauthorized: !(tlsSpec?.insecureSkipVerify === true),
    ca: envValue(tlsSpec?.ca as EnvVar | undefined, 'tls.ca'),
    cert: envValue(tlsSpec?.cert as EnvVar | undefined, 'tls.cert'),
    key: envValue(tlsSpec?.key as EnvVar | undefined, 'tls.key'),
  }
  if ((tls.cert === undefined) !== (tls.key === undefined)) throw new HttpScrapeError('tls.cert and tls.key must be set together')

  // Authorization as the platform builds it: basic auth first, else a bearer token, else OAuth2.
  let authorization: string | undefined
  const bearer = envValue(entry.bearer as EnvVar | undefined, 'bearer') ?? stored('bearer')
  const oauth = record(entry.oauth)
  const clientID = envValue(oauth?.clientID as EnvVar | undefined, 'oauth.clientID') ?? stored('clientID')
  const clientSecret = envValue(oauth?.clientSecret as EnvVar | undefined, 'oauth.clientSecret') ?? stored('clientSecret')
  const tokenURL = text(oauth?.tokenURL) ?? stored('tokenURL')
  if (username || password) {
    authorization = `Basic ${Buffer.from(`${username ?? ''}:${password ?? ''}`).toString('base64')}`
  } else if (bearer) {
    authorization = `Bearer ${bearer}`
  } else if (clientID || clientSecret || tokenURL) {
    if (!tokenURL) throw new HttpScrapeError('oauth.tokenURL is required for the OAuth2 client-credentials grant')
    // As for the URL (check-inputs.ts): a stored client secret goes only to the stored token URL
    // unless an exec holder wrote the scraper, or anyone who may write one could collect it.
    const storedClient = Boolean(stored('clientID') || stored('clientSecret'))
    if (storedClient && tokenURL !== stored('tokenURL') && (await context.targets?.isRestricted())) {
      throw new HttpScrapeError('oauth.tokenURL: a stored connection\'s client credentials go only to its own token URL; another one needs a scraper written by someone with the exec permission')
    }
    const scopes = Array.isArray(oauth?.scopes) ? (oauth.scopes as unknown[]).map(String)
      : Array.isArray(oauth?.scope) ? (oauth.scope as unknown[]).map(String)
        : (stored('scopes')?.split(',') ?? [])
    const params: Record<string, string> = {}
    const inlineParams = record(oauth?.params)
    const storedParams = stored('params')
    if (inlineParams) for (const [key, value] of Object.entries(inlineParams)) params[key] = String(value)
    else if (storedParams) {
      try {
        for (const [key, value] of Object.entries(JSON.parse(storedParams) as Record<string, unknown>)) params[key] = String(value)
      } catch {
        throw new HttpScrapeError('connection properties.params is not a JSON object')
      }
    }
    const token = await oauthToken({ clientID, clientSecret, tokenURL, scopes, params }, { signal: context.signal, targets: context.targets, tls })
    authorization = `Bearer ${token}`
  }

  const headers = mergeHeaders(
    authorization ? { Authorization: authorization } : {},
    access.connection ? storedHeaders(properties.headers) : {},
    headersOf(entry.headers),
  )
  const method = (text(entry.method) ?? 'GET').toUpperCase()
  const body = entry.body === undefined || entry.body === null ? undefined
    : typeof entry.body === 'string' ? entry.body : JSON.stringify(entry.body)
  const firstHeaders = body !== undefined && typeof entry.body !== 'string' && !hasHeader(headers, 'content-type')
    ? { ...headers, 'Content-Type': 'application/json' }
    : headers
  return { first: { url: parsed.toString(), method, body, headers: firstHeaders }, headers, tls }
}

/** A JSON body as a value (object, list or scalar); anything else as its text, as the platform does. */
function parseBody(response: HttpResponse): unknown {
  const content = response.body.toString('utf8')
  const isJson = /\bjson\b/i.test(response.headers['content-type'] ?? '')
  const trimmed = content.trim()
  if (isJson || /^[[{]/.test(trimmed)) {
    if (trimmed === '') return isJson ? null : content
    try {
      return JSON.parse(trimmed)
    } catch (error) {
      if (isJson) throw new HttpScrapeError(`${redacted(response.url)} answered ${response.headers['content-type']} that does not parse: ${(error as Error).message}`)
      return content
    }
  }
  return content
}

async function fetchPage(request: PageRequest, page: number, tls: HttpRequestOptions['tls'], context: ScrapeRunContext): Promise<PageResponse> {
  const label = `${request.method} ${redacted(request.url)}${page > 1 ? ` (page ${page})` : ''}`
  for (let attempt = 0; ; attempt += 1) {
    let response: HttpResponse
    try {
      response = await httpRequest(request.url, {
        method: request.method,
        headers: request.headers,
        body: request.body,
        signal: context.signal,
        targets: context.targets,
        tls,
        maxBodyBytes: MAX_BODY_BYTES,
      })
    } catch (error) {
      const reason = context.signal.aborted ? abortReason(context.signal) : (error as Error).message
      throw new HttpScrapeError(`${label}: ${reason}`)
    }
    if (response.status === 429 && attempt < MAX_RETRIES_ON_429) {
      const wait = retryAfterMs(response.headers['retry-after']) ?? 1_000 * 2 ** attempt
      context.logger.warn({ url: redacted(request.url), attempt: attempt + 1, waitMs: wait }, 'http scraper: 429, retrying')
      try {
        await sleep(wait, undefined, { signal: context.signal })
      } catch {
        throw new HttpScrapeError(`${label}: ${abortReason(context.signal)} while waiting to retry after HTTP 429`)
      }
      continue
    }
    if (response.status < 200 || response.status > 299) {
      throw new HttpScrapeError(`${label} returned HTTP ${response.status}: ${response.body.toString('utf8').slice(0, ERROR_BODY_CHARS)}`)
    }
    const declared = Number(response.headers['content-length'])
    if (declared > MAX_BODY_BYTES || response.body.length >= MAX_BODY_BYTES) {
      throw new HttpScrapeError(`${label}: response is larger than ${MAX_BODY_BYTES / 1_048_576} MB`)
    }
    return { url: request.url, status: response.status, headers: response.headers, body: parseBody(response) }
  }
}

function retryAfterMs(value: string | undefined): number | null {
  if (!value) return null
  if (/^\d+$/.test(value.trim())) return Math.min(Number(value) * 1_000, RETRY_AFTER_CAP_MS)
  const at = Date.parse(value)
  return Number.isNaN(at) ? null : Math.min(Math.max(0, at - Date.now()), RETRY_AFTER_CAP_MS)
}

/**
 * What `nextPageExpr` returned, as the next request: a URL (relative ones against the current
 * page), a map `{url, method, body, headers}` (headers added to the scraper's own), or null /
 * empty to stop. The scraper's credentials and headers go only to the first request's origin: a
 * next link elsewhere (the answer chooses it) gets just the headers the request map names.
 */
function nextRequest(value: unknown, current: PageRequest, baseHeaders: Record<string, string>, origin: string): PageRequest | null {
  if (value === null || value === undefined || value === '' || value === false) return null
  const resolve = (url: string) => {
    let parsed: URL
    try {
      parsed = new URL(url, current.url)
    } catch {
      throw new HttpScrapeError(`pagination.nextPageExpr returned an invalid URL "${url}"`)
    }
    if (!/^https?:$/.test(parsed.protocol)) throw new HttpScrapeError(`pagination.nextPageExpr returned "${redacted(parsed.toString())}": only http(s) URLs are followed`)
    return parsed.toString()
  }
  const carried = (url: string) => (new URL(url).origin === origin ? baseHeaders : {})
  if (typeof value === 'string') {
    const url = resolve(value)
    return { url, method: 'GET', headers: carried(url) }
  }
  const map = record(value)
  if (!map) throw new HttpScrapeError(`pagination.nextPageExpr must return a URL, a request map or null, got ${JSON.stringify(value)}`)
  const given = text(map.url)
  if (!given) return null
  const url = resolve(given)
  const extra: Record<string, string> = {}
  for (const [name, header] of Object.entries(record(map.headers) ?? {})) extra[name] = typeof header === 'string' ? header : JSON.stringify(header)
  const headers = mergeHeaders(carried(url), extra)
  let body: string | undefined
  if (typeof map.body === 'string') body = map.body === '' ? undefined : map.body
  else if (map.body !== undefined && map.body !== null) {
    body = JSON.stringify(map.body)
    if (!hasHeader(headers, 'content-type')) headers['Content-Type'] = 'application/json'
  }
  return { url, method: (text(map.method) ?? 'GET').toUpperCase(), body, headers }
}

/** The platform's default merge: lists are concatenated, `value`/`items`/`Items` lists unwrapped, anything else appended. */
function defaultReduce(acc: unknown[], page: unknown): unknown[] {
  if (Array.isArray(page)) return acc.concat(page)
  const map = record(page)
  if (map) {
    for (const key of ['value', 'items', 'Items']) {
      if (Array.isArray(map[key])) return acc.concat(map[key] as unknown[])
    }
  }
  acc.push(page)
  return acc
}

function reduce(pagination: Pagination, acc: unknown[], page: unknown, pageNumber: number): unknown[] {
  if (!pagination.reduceExpr) return defaultReduce(acc, page)
  let out: unknown
  try {
    out = evaluateCel(pagination.reduceExpr, { acc, page })
  } catch (error) {
    throw new HttpScrapeError(`pagination.reduceExpr failed on page ${pageNumber}: ${(error as Error).message}`)
  }
  if (!Array.isArray(out)) throw new HttpScrapeError(`pagination.reduceExpr must return a list, got ${out === null ? 'null' : typeof out} on page ${pageNumber}`)
  return out
}

function requestKey(request: PageRequest): string {
  return JSON.stringify([request.method, request.url, request.body ?? null, Object.entries(request.headers).sort()])
}

export const httpSource: ScraperSource = {
  kind: 'http',
  async fetch(entry, context): Promise<ScrapedDocument[]> {
    const pagination = paginationOf(entry)
    const { first, headers, tls } = await resolveRequest(entry, context)
    let response = await fetchPage(first, 1, tls, context)
    if (!pagination) return [{ config: response.body, source: `${first.method} ${redacted(first.url)}` }]

    const documents: ScrapedDocument[] = []
    let acc: unknown[] = []
    const take = (page: PageResponse, request: PageRequest, pageNumber: number) => {
      if (pagination.perPage) documents.push({ config: page.body, source: `${request.method} ${redacted(request.url)} (page ${pageNumber})` })
      else acc = reduce(pagination, acc, page.body, pageNumber)
    }
    take(response, first, 1)
    // Every request made so far: a next page equal to any of them would loop forever.
    const seen = new Set([requestKey(first)])
    let current = first
    for (let pageNumber = 2; ; pageNumber += 1) {
      if (pagination.maxPages > 0 && pageNumber > pagination.maxPages) {
        context.logger.info({ scraperId: context.scraperId, maxPages: pagination.maxPages }, 'http scraper: pagination stopped at maxPages')
        break
      }
      const page = { body: response.body, headers: response.headers, status: response.status, url: response.url }
      let value: unknown
      try {
        // Both spellings users write: bare `body`/`headers` and the platform's `response.body`.
        value = evaluateCel(pagination.nextPageExpr, { ...page, response: page })
      } catch (error) {
        throw new HttpScrapeError(`pagination.nextPageExpr failed on page ${pageNumber - 1}: ${(error as Error).message}`)
      }
      const next = nextRequest(value, current, headers, new URL(first.url).origin)
      if (!next) break
      const key = requestKey(next)
      if (seen.has(key)) {
        context.logger.warn({ scraperId: context.scraperId, url: redacted(next.url), page: pageNumber }, 'http scraper: nextPageExpr repeated a request already made; pagination stopped')
        break
      }
      seen.add(key)
      if (pagination.delayMs > 0) {
        try {
          await sleep(pagination.delayMs, undefined, { signal: context.signal })
        } catch {
          throw new HttpScrapeError(`${next.method} ${redacted(next.url)} (page ${pageNumber}): ${abortReason(context.signal)}`)
        }
      }
      response = await fetchPage(next, pageNumber, tls, context)
      take(response, next, pageNumber)
      current = next
    }
    if (pagination.perPage) return documents
    return [{ config: acc, source: `${first.method} ${redacted(first.url)}` }]
  },
}
