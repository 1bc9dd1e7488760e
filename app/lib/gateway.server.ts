import { redirect, type AppLoadContext } from '@remix-run/node'
import { Agent, request as sendRequest, type Dispatcher } from 'undici'

/**
 * How loaders and actions reach the API: always through the gateway's own /api, over
 * loopback, with the browser's credentials. That keeps one path for embedded and upstream
 * mode and one place (the gateway) that knows where each sub-base lives.
 */
export type GatewayContext = {
  gatewayBaseUrl: string
  gatewayTimeoutMs: number
  /**
   * Headers that prove a loopback call is this console's and name the browser's address, so the
   * API's rate limits and sessions see the browser rather than the loopback socket. Set by the
   * server per request (load context); never sent to the browser.
   */
  clientHeaders?: Record<string, string>
}

/**
 * The process's cache of what every page's shell needs (server/gateway/shared-data-cache.ts,
 * created by server.ts): this shape is all the console knows of it.
 */
export type SharedDataCache = { remember<T>(key: string, load: () => Promise<T>): Promise<T> }

declare module '@remix-run/node' {
  interface AppLoadContext {
    gateway: GatewayContext
    cspNonce: string
    publicEnv: PublicEnv
    /** Absent in tests and tools that build a context by hand: every call then goes to the API. */
    sharedData?: SharedDataCache
  }
}

export type PublicEnv = { frontendVersion: string; mode: 'embedded' | 'upstream' }

/** A failed API call, classified once here so screens never match on message text. */
export class GatewayError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly kind: 'http' | 'timeout' | 'network',
    readonly body?: unknown,
  ) {
    super(message)
    this.name = 'GatewayError'
  }
}

export const TIMEOUT_MESSAGE = 'Request timed out. Please try again.'
export const NETWORK_MESSAGE = 'Network Error. Please try again.'

const FORWARDED_HEADERS = ['cookie', 'authorization', 'x-request-id', 'x-flanksource-scope']

export type ApiArgs = { request: Request; context: AppLoadContext }

/**
 * The browser-facing origin to vouch for on a loopback call, only for an unsafe request: the
 * server's console guard has then already refused any Origin but the console's own. A loader
 * (GET) vouches for nothing, so a link from another site cannot make it change anything.
 */
export function checkedOrigin(request: Request): string | undefined {
  return ['GET', 'HEAD', 'OPTIONS'].includes(request.method.toUpperCase()) ? undefined : new URL(request.url).origin
}

export type ApiInit = { method?: string; json?: unknown; form?: URLSearchParams; headers?: Record<string, string> }

export async function apiFetch({ request, context }: ApiArgs, path: string, init: ApiInit = {}): Promise<Response> {
  const headers = new Headers(init.headers)
  let body: string | undefined
  if (init.json !== undefined) {
    headers.set('content-type', 'application/json')
    body = JSON.stringify(init.json)
  } else if (init.form) {
    headers.set('content-type', 'application/x-www-form-urlencoded')
    body = init.form.toString()
  }
  const url = `${context.gateway.gatewayBaseUrl}/api${path.startsWith('/') ? path : `/${path}`}`
  return sendToGateway({ request, context }, url, { method: init.method ?? 'GET', headers, body })
}

/**
 * The one transport of every loopback call (apiFetch and the data client): the browser's
 * credentials and request id, the console's client headers, the gateway timeout, and transport
 * failures classified as GatewayError. `url` is an absolute URL under the gateway's /api.
 */
export async function sendToGateway(
  { request, context }: ApiArgs,
  url: string,
  init: { method: string; headers: Headers; body?: string; signal?: AbortSignal },
): Promise<Response> {
  const headers = new Headers(init.headers)
  for (const name of FORWARDED_HEADERS) {
    const value = request.headers.get(name)
    if (value && !headers.has(name)) headers.set(name, value)
  }
  headers.set('accept', headers.get('accept') ?? 'application/json')
  const origin = checkedOrigin(request)
  if (origin && !headers.has('origin')) headers.set('origin', origin)
  // The identity service builds the links in its flows from the host the browser used, which
  // a loopback call would otherwise hide.
  const incoming = new URL(request.url)
  if (!headers.has('x-forwarded-host')) headers.set('x-forwarded-host', request.headers.get('host') ?? incoming.host)
  if (!headers.has('x-forwarded-proto')) headers.set('x-forwarded-proto', incoming.protocol.replace(':', ''))
  for (const [name, value] of Object.entries(context.gateway.clientHeaders ?? {})) headers.set(name, value)
  const timeout = AbortSignal.timeout(context.gateway.gatewayTimeoutMs)
  try {
    // undici's request() rather than fetch(): a loopback answer is read whole anyway, and fetch's
    // WHATWG streams cost about twice the client CPU per call (0.50–0.65 ms against 0.18–0.35 ms
    // for /api/about, docs/decisions/019). No redirect is followed, as with `redirect: 'manual'`.
    const answer = await sendRequest(url, {
      method: init.method as Dispatcher.HttpMethod,
      headers: Object.fromEntries(headers),
      body: init.body,
      signal: init.signal ? AbortSignal.any([timeout, init.signal]) : timeout,
      dispatcher: loopback,
    })
    const body = await answer.body.arrayBuffer()
    return new Response(BODYLESS_STATUSES.has(answer.statusCode) ? null : body, { status: answer.statusCode, headers: responseHeaders(answer.headers) })
  } catch (error) {
    const name = (error as Error).name
    if (name === 'TimeoutError' || name === 'AbortError' || timeout.aborted || init.signal?.aborted) throw new GatewayError(504, TIMEOUT_MESSAGE, 'timeout')
    throw new GatewayError(502, NETWORK_MESSAGE, 'network')
  }
}

/** Keep-alive connections to the gateway, shared by every loopback call of this process. */
const loopback = new Agent({ keepAliveTimeout: 10_000, connections: 256 })
const BODYLESS_STATUSES = new Set([101, 103, 204, 205, 304])

function responseHeaders(raw: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers()
  for (const [name, value] of Object.entries(raw)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item)
    else if (value !== undefined) headers.append(name, value)
  }
  return headers
}

/**
 * Where an unauthenticated browser goes, with the page it wanted to see: spec 000 §8 sends
 * every 401 to the auth state checker, which forwards to sign-in.
 */
export function signInRedirect(request: Request): Response {
  const url = new URL(request.url)
  const returnTo = `${url.pathname}${url.search}`
  return redirect(`/auth-state-checker?return_to=${encodeURIComponent(returnTo)}`)
}

/** The message an API error body carries (`error` or `message`), or the fallback. */
export function messageOf(body: unknown, fallback: string): string {
  if (typeof body === 'string' && body.trim()) return body
  if (body && typeof body === 'object') {
    const record = body as Record<string, unknown>
    for (const key of ['error', 'message']) {
      if (typeof record[key] === 'string' && record[key]) return record[key] as string
    }
  }
  return fallback
}

/**
 * Calls the API and returns parsed JSON. A 401 becomes a redirect to sign-in (thrown, so
 * loaders need no special case); any other failure becomes a thrown GatewayError.
 */
export async function apiJson<T>(
  args: ApiArgs,
  path: string,
  init?: ApiInit,
): Promise<{ data: T; headers: Headers; status: number }> {
  const response = await apiFetch(args, path, init)
  if (response.status === 401) throw signInRedirect(args.request)
  const text = await response.text()
  let body: unknown = text
  try {
    body = text ? JSON.parse(text) : null
  } catch {
    // A non-JSON body (plain-text errors from some upstreams) is kept as text.
  }
  if (!response.ok) {
    throw new GatewayError(response.status, messageOf(body, `Request failed with status ${response.status}`), 'http', body)
  }
  return { data: body as T, headers: response.headers, status: response.status }
}
