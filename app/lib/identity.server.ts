import { data, redirect, redirectDocument, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import {
  Configuration,
  FrontendApi,
  type UpdateLoginFlowBody,
  type UpdateRecoveryFlowBody,
  type UpdateRegistrationFlowBody,
  type UpdateSettingsFlowBody,
  type UpdateVerificationFlowBody,
} from '@ory/client'
import { parse as parseCookie } from 'cookie'
import { rawCookies } from '#server/cookies.ts'
import { checkedOrigin, NETWORK_MESSAGE, TIMEOUT_MESSAGE, type ApiArgs } from './gateway.server.ts'
import { FLOW_PAGES, isFlow, noticeText, toConsolePath, type Flow, type FlowKind, type FlowNotice } from './identity-flow.ts'

/**
 * The console's half of the identity flows. Forms post to the page's own action, which sends
 * the fields on through `@ory/client` (a JSON client, so every answer comes back as data, not
 * as a redirect) and turns each answer into what spec 000 §8 asks for. The SDK talks to the
 * gateway's /api/.ory, which is the embedded service or, with KRATOS_PUBLIC_URL, a real Kratos:
 * the screens know only the Kratos contract. Cookies the identity service sets (session, CSRF)
 * are passed on to the browser unchanged.
 */

export type OryErrorBody = {
  error?: { id?: string; code?: number; message?: string; reason?: string; details?: Record<string, unknown> }
  redirect_browser_to?: string
  use_flow_id?: string
}

/** One answer of the identity service, success or not, as the mapping below reads it. */
export type OryAnswer = { status: number; body: unknown; cookies: string[] }

/** Headers of the browser's request that the identity service should see too (never its cookie: that is per call). */
const FORWARDED_HEADERS = ['authorization', 'x-request-id', 'x-flanksource-scope']

type RequestOptions = NonNullable<Parameters<FrontendApi['getLoginFlow']>[1]>
type SdkResponse = { status: number; data: unknown; headers: unknown }

/**
 * The Set-Cookie lines of an SDK answer, one cookie each. A fetch `Headers` object answers
 * `getSetCookie()`; axios (what `@ory/client` uses on Node) hands over Node's own array. Never
 * split a joined header on commas: `Expires=Thu, 01 Jan 1970 …` has one.
 */
export function setCookieLines(headers: unknown): string[] {
  if (headers instanceof Headers) return headers.getSetCookie()
  const value = headers && typeof headers === 'object' ? (headers as Record<string, unknown>)['set-cookie'] : undefined
  const collected = new Headers()
  for (const line of Array.isArray(value) ? value : [value]) if (typeof line === 'string' && line) collected.append('set-cookie', line)
  return collected.getSetCookie()
}

type AxiosLikeError = { isAxiosError: true; code?: string; response?: SdkResponse }

function isAxiosLikeError(error: unknown): error is AxiosLikeError {
  return !!error && typeof error === 'object' && (error as { isAxiosError?: unknown }).isAxiosError === true
}

const TIMEOUT_CODES = new Set(['ECONNABORTED', 'ETIMEDOUT', 'ERR_CANCELED'])

/**
 * The SDK client for one browser request. Its base is the gateway's own /api/.ory over
 * loopback, like every other API call of the console; redirects are not followed (a JSON client
 * gets none from Kratos, and a 303 must reach the mapping as a 303).
 */
export function frontendApi({ request, context }: ApiArgs): FrontendApi {
  const headers: Record<string, string> = { Accept: 'application/json' }
  for (const name of FORWARDED_HEADERS) {
    const value = request.headers.get(name)
    if (value) headers[name] = value
  }
  // Flows build their links from the host the browser used, which a loopback call would hide.
  const incoming = new URL(request.url)
  headers['X-Forwarded-Host'] = request.headers.get('x-forwarded-host') ?? request.headers.get('host') ?? incoming.host
  headers['X-Forwarded-Proto'] = request.headers.get('x-forwarded-proto') ?? incoming.protocol.replace(':', '')
  Object.assign(headers, context.gateway.clientHeaders)
  const origin = checkedOrigin(request)
  if (origin) headers.Origin = origin
  const basePath = `${context.gateway.gatewayBaseUrl}/api/.ory`
  return new FrontendApi(
    new Configuration({ basePath, baseOptions: { headers, timeout: context.gateway.gatewayTimeoutMs, maxRedirects: 0 } }),
    basePath,
  )
}

/**
 * Runs one SDK call and turns whatever happens into an answer: the SDK rejects every non-2xx
 * (its error carries the response), and a call that never got a response is the spec's
 * timeout or network failure (502/504 with its text), never a throw.
 */
export async function oryRequest(
  args: ApiArgs,
  cookie: string | null | undefined,
  call: (api: FrontendApi, options: RequestOptions, cookie: string | undefined) => Promise<SdkResponse>,
): Promise<OryAnswer> {
  const jar = cookie ?? args.request.headers.get('cookie') ?? undefined
  // Some create calls have no cookie parameter; the header goes along on every call so the
  // service always sees the browser's CSRF and session cookies.
  const options: RequestOptions = jar ? { headers: { Cookie: jar } } : {}
  try {
    const response = await call(frontendApi(args), options, jar || undefined)
    return { status: response.status, body: response.data ?? null, cookies: setCookieLines(response.headers) }
  } catch (error) {
    if (!isAxiosLikeError(error)) throw error
    if (error.response) {
      return { status: error.response.status, body: error.response.data ?? null, cookies: setCookieLines(error.response.headers) }
    }
    const timedOut = error.code !== undefined && TIMEOUT_CODES.has(error.code)
    return { status: timedOut ? 504 : 502, body: { error: { message: timedOut ? TIMEOUT_MESSAGE : NETWORK_MESSAGE } }, cookies: [] }
  }
}

/** The create query of a flow, from the page's own URL; `refresh` counts only when it is literally "true". */
export type CreateParams = { returnTo?: string; refresh?: boolean; aal?: string; afterVerificationReturnTo?: string }

export function createParams(kind: FlowKind, request: Request): CreateParams {
  const url = new URL(request.url)
  const params: CreateParams = {}
  const returnTo = url.searchParams.get('return_to')
  if (returnTo) {
    // Relative paths are resolved against this origin so the allow-list can check them.
    params.returnTo = returnTo.startsWith('/') && !returnTo.startsWith('//') ? `${url.origin}${returnTo}` : returnTo
  }
  if (kind === 'login') {
    if (url.searchParams.get('refresh') === 'true') params.refresh = true
    const aal = url.searchParams.get('aal')
    if (aal) params.aal = aal
  }
  if (kind === 'registration' && params.returnTo) params.afterVerificationReturnTo = params.returnTo
  return params
}

export function createFlow(args: ApiArgs, kind: FlowKind, params: CreateParams = createParams(kind, args.request)): Promise<OryAnswer> {
  return oryRequest(args, undefined, (api, options, cookie) => {
    switch (kind) {
      case 'login':
        return api.createBrowserLoginFlow({ refresh: params.refresh, aal: params.aal, returnTo: params.returnTo, cookie }, options)
      case 'registration':
        return api.createBrowserRegistrationFlow({ returnTo: params.returnTo, afterVerificationReturnTo: params.afterVerificationReturnTo }, options)
      case 'recovery':
        return api.createBrowserRecoveryFlow({ returnTo: params.returnTo }, options)
      case 'verification':
        return api.createBrowserVerificationFlow({ returnTo: params.returnTo }, options)
      case 'settings':
        return api.createBrowserSettingsFlow({ returnTo: params.returnTo, cookie }, options)
    }
  })
}

export function getFlow(args: ApiArgs, kind: FlowKind, id: string): Promise<OryAnswer> {
  return oryRequest(args, undefined, (api, options, cookie) => {
    switch (kind) {
      case 'login':
        return api.getLoginFlow({ id, cookie }, options)
      case 'registration':
        return api.getRegistrationFlow({ id, cookie }, options)
      case 'recovery':
        return api.getRecoveryFlow({ id, cookie }, options)
      case 'verification':
        return api.getVerificationFlow({ id, cookie }, options)
      case 'settings':
        return api.getSettingsFlow({ id, cookie }, options)
    }
  })
}

/** Registration's answer per identity service, for a minute: it changes only with the service's configuration. */
const registrationStates = new Map<string, { isOpen: boolean; until: number }>()
const REGISTRATION_STATE_TTL_MS = 60_000

/**
 * Whether self-service registration is open. Kratos publishes no setting for it; creating a
 * registration flow answers 400 `self_service_flow_disabled` when it is closed (identity-flows
 * §3), so that is the question asked — without the browser's cookies, so a signed-in browser
 * does not get `session_already_available` instead. Only the two clear answers are remembered;
 * anything else (service down) keeps offering the link, and the registration page explains.
 */
export async function isRegistrationOpen(args: ApiArgs, now = Date.now()): Promise<boolean> {
  const key = args.context.gateway.gatewayBaseUrl
  const known = registrationStates.get(key)
  if (known && known.until > now) return known.isOpen
  try {
    const answer = await oryRequest(args, '', (api, options) => api.createBrowserRegistrationFlow({}, options))
    const isClosed = answer.status === 400 && errorOf(answer.body).error?.id === 'self_service_flow_disabled'
    if (isClosed || (answer.status === 200 && isFlow(answer.body))) registrationStates.set(key, { isOpen: !isClosed, until: now + REGISTRATION_STATE_TTL_MS })
    return !isClosed
  } catch {
    return true
  }
}

/** Submit buttons and checkboxes that Kratos' method schemas type as booleans. */
const BOOLEAN_FIELDS = new Set(['totp_unlink', 'lookup_secret_regenerate', 'lookup_secret_reveal', 'lookup_secret_confirm', 'lookup_secret_disable'])

/** Which settings method a body without `method` belongs to, as Kratos itself infers it from the buttons. */
function impliedMethod(body: Record<string, unknown>): string | undefined {
  const keys = Object.keys(body)
  if (keys.some((key) => key.startsWith('totp_'))) return 'totp'
  if (keys.some((key) => key.startsWith('lookup_secret_'))) return 'lookup_secret'
  if (keys.some((key) => key.startsWith('webauthn_'))) return 'webauthn'
  if ('traits' in body) return 'profile'
  if ('password' in body) return 'password'
  return undefined
}

const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype'])

/**
 * A posted form as the JSON body of an update call: dotted names (`traits.name.first`) become
 * nested objects, the boolean buttons become booleans, and a repeated name keeps its last
 * value (the button that was pressed comes after the hidden fields).
 */
export function formToUpdateBody(form: URLSearchParams): Record<string, unknown> {
  const body: Record<string, unknown> = {}
  for (const [name, raw] of form) {
    const parts = name.split('.')
    if (parts.some((part) => !part || UNSAFE_KEYS.has(part))) continue
    const value: unknown = BOOLEAN_FIELDS.has(name) ? raw === 'true' || raw === 'on' || raw === '1' : raw
    let target = body
    for (const part of parts.slice(0, -1)) {
      const next = target[part]
      if (!next || typeof next !== 'object') target[part] = {}
      target = target[part] as Record<string, unknown>
    }
    target[parts[parts.length - 1]!] = value
  }
  if (typeof body.method !== 'string') {
    const method = impliedMethod(body)
    if (method) body.method = method
  }
  return body
}

export function updateFlow(args: ApiArgs, kind: FlowKind, flow: string, form: URLSearchParams, cookie?: string): Promise<OryAnswer> {
  const body = formToUpdateBody(form)
  return oryRequest(args, cookie, (api, options, jar) => {
    switch (kind) {
      case 'login':
        return api.updateLoginFlow({ flow, updateLoginFlowBody: body as unknown as UpdateLoginFlowBody, cookie: jar }, options)
      case 'registration':
        return api.updateRegistrationFlow({ flow, updateRegistrationFlowBody: body as unknown as UpdateRegistrationFlowBody, cookie: jar }, options)
      case 'recovery':
        return api.updateRecoveryFlow({ flow, updateRecoveryFlowBody: body as unknown as UpdateRecoveryFlowBody, cookie: jar }, options)
      case 'verification':
        return api.updateVerificationFlow({ flow, updateVerificationFlowBody: body as unknown as UpdateVerificationFlowBody, cookie: jar }, options)
      case 'settings':
        return api.updateSettingsFlow({ flow, updateSettingsFlowBody: body as unknown as UpdateSettingsFlowBody, cookie: jar }, options)
    }
  })
}

/** The error a browser flow parked for the error page (`/error?id=`). */
export function getFlowError(args: ApiArgs, id: string): Promise<OryAnswer> {
  return oryRequest(args, undefined, (api, options) => api.getFlowError({ id }, options))
}

export function createLogoutFlow(args: ApiArgs): Promise<OryAnswer> {
  return oryRequest(args, undefined, (api, options, cookie) => api.createBrowserLogoutFlow({ cookie }, options))
}

export function updateLogoutFlow(args: ApiArgs, token: string, cookie?: string): Promise<OryAnswer> {
  return oryRequest(args, cookie, (api, options, jar) => api.updateLogoutFlow({ token, cookie: jar }, options))
}

/**
 * One Set-Cookie line as RFC 6265 §5.2 reads it: the name and value up to the first ';', then
 * the attributes (parsed by the `cookie` package, so `Expires=Thu, 01 Jan …` stays whole), and
 * whether the line removes the cookie (empty value, `Max-Age` ≤ 0, or an `Expires` already past;
 * `Max-Age` wins over `Expires`).
 */
export function readSetCookie(line: string, now = Date.now()): { name: string; value: string; isRemoval: boolean } | null {
  const semicolon = line.indexOf(';')
  const pair = semicolon < 0 ? line : line.slice(0, semicolon)
  const eq = pair.indexOf('=')
  if (eq <= 0) return null
  const name = pair.slice(0, eq).trim()
  const value = pair.slice(eq + 1).trim()
  if (!name) return null
  const attributes = new Map(
    Object.entries(semicolon < 0 ? {} : parseCookie(line.slice(semicolon + 1), { decode: (raw) => raw })).map(([key, raw]) => [key.toLowerCase(), raw ?? '']),
  )
  const maxAge = attributes.get('max-age')
  const expires = attributes.get('expires')
  let isRemoval = value === ''
  if (maxAge !== undefined && /^-?\d+$/.test(maxAge.trim())) isRemoval ||= Number(maxAge) <= 0
  else if (expires !== undefined && !Number.isNaN(Date.parse(expires))) isRemoval ||= Date.parse(expires) <= now
  return { name, value, isRemoval }
}

/** The browser's cookies with the ones just set applied, for a follow-up call in the same request. */
export function mergeCookies(cookieHeader: string | null, setCookies: string[]): string {
  const jar = new Map<string, string>(Object.entries(rawCookies(cookieHeader)))
  for (const line of setCookies) {
    const cookie = readSetCookie(line)
    if (!cookie) continue
    if (cookie.isRemoval) jar.delete(cookie.name)
    else jar.set(cookie.name, cookie.value)
  }
  return [...jar].map(([name, value]) => `${name}=${value}`).join('; ')
}

export function cookieHeaders(cookies: string[], extra?: HeadersInit): Headers {
  const headers = new Headers(extra)
  for (const cookie of cookies) headers.append('set-cookie', cookie)
  return headers
}

function errorOf(body: unknown): OryErrorBody {
  return body && typeof body === 'object' ? (body as OryErrorBody) : {}
}

export function messageOfAnswer(answer: OryAnswer, fallback: string): string {
  if (typeof answer.body === 'string' && answer.body.trim()) return answer.body.trim()
  const error = errorOf(answer.body).error
  return error?.reason || error?.message || fallback
}

/** What the page should do with an answer that is not a plain success. */
export type FlowOutcome =
  | { kind: 'render'; flow: Flow; status: number }
  | { kind: 'redirect'; to: string; document?: boolean }
  | { kind: 'error'; message: string; status: number }

function pageUrl(kind: FlowKind, query: Record<string, string | undefined>): string {
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(query)) if (value) params.set(key, value)
  const search = params.toString()
  return `${FLOW_PAGES[kind]}${search ? `?${search}` : ''}`
}

/** Start the flow again on its page, keeping where the person wanted to go. */
export function restartUrl(request: Request, kind: FlowKind, notice?: FlowNotice, flowId?: string): string {
  const url = new URL(request.url)
  return pageUrl(kind, {
    return_to: url.searchParams.get('return_to') ?? undefined,
    refresh: kind === 'login' && url.searchParams.get('refresh') === 'true' ? 'true' : undefined,
    aal: kind === 'login' ? (url.searchParams.get('aal') ?? undefined) : undefined,
    flow: flowId,
    notice,
  })
}

function currentPath(request: Request): string {
  const url = new URL(request.url)
  return `${url.pathname}${url.search}`
}

/**
 * Spec 000 §8, error by error (identity-flows §6.3 for the details): ids first, then status.
 * `phase` matters for verification, whose create 400 means "disabled", not "signed in".
 */
export function mapFlowAnswer(request: Request, kind: FlowKind, answer: OryAnswer, phase: 'create' | 'get' | 'submit'): FlowOutcome {
  const origin = new URL(request.url).origin
  const body = errorOf(answer.body)
  const follow = (target: string | undefined, fallback: string): FlowOutcome => {
    if (target) {
      const path = toConsolePath(target, origin, '')
      if (path) return { kind: 'redirect', to: path }
    }
    return { kind: 'redirect', to: fallback }
  }

  if (answer.status === 400 && isFlow(answer.body)) return { kind: 'render', flow: answer.body, status: 400 }
  switch (body.error?.id) {
    case 'session_aal2_required':
      return follow(body.redirect_browser_to, `/login?aal=aal2&return_to=${encodeURIComponent(currentPath(request))}`)
    case 'session_already_available': {
      // Decision: continue to the validated return_to rather than always going home.
      const returnTo = new URL(request.url).searchParams.get('return_to')
      return { kind: 'redirect', to: toConsolePath(returnTo, origin, '/') }
    }
    case 'session_refresh_required':
      return follow(body.redirect_browser_to, `/login?refresh=true&return_to=${encodeURIComponent(currentPath(request))}`)
    case 'self_service_flow_return_to_forbidden':
      return { kind: 'redirect', to: pageUrl(kind, { notice: 'self_service_flow_return_to_forbidden' }) }
    case 'self_service_flow_expired':
      return { kind: 'redirect', to: restartUrl(request, kind, 'self_service_flow_expired', body.use_flow_id) }
    case 'security_csrf_violation':
      return { kind: 'redirect', to: restartUrl(request, kind, 'security_csrf_violation') }
    case 'security_identity_mismatch':
      return { kind: 'redirect', to: restartUrl(request, kind) }
    case 'browser_location_change_required': {
      const target = body.redirect_browser_to
      if (target && /^https?:/i.test(target) && !toConsolePath(target, origin, '')) return { kind: 'redirect', to: target, document: true }
      return follow(target, '/')
    }
    case 'session_inactive':
      return { kind: 'redirect', to: `/login?return_to=${encodeURIComponent(kind === 'settings' ? FLOW_PAGES.settings : currentPath(request))}` }
    default:
      break
  }
  if (answer.status === 410) return { kind: 'redirect', to: restartUrl(request, kind, undefined, body.use_flow_id) }
  if (kind === 'verification' && phase === 'get' && answer.status === 403) return { kind: 'redirect', to: FLOW_PAGES.verification }
  if (phase !== 'create' && (answer.status === 404 || (answer.status === 403 && kind !== 'settings'))) {
    return { kind: 'redirect', to: restartUrl(request, kind) }
  }
  if (answer.status === 401) return { kind: 'redirect', to: `/login?return_to=${encodeURIComponent(currentPath(request))}` }
  if (answer.status === 501 || answer.status === 404) {
    return { kind: 'error', status: 503, message: 'Sign-in with a password is not available on this server yet.' }
  }
  return { kind: 'error', status: answer.status >= 400 ? answer.status : 502, message: messageOfAnswer(answer, 'The identity service could not handle the request.') }
}

export type FlowPageData = { flow: Flow | null; notice: string | null; error: string | null }

/** Redirects are thrown (with the identity service's cookies); anything else becomes page data. */
export function respond(outcome: FlowOutcome, cookies: string[], notice: string | null = null) {
  if (outcome.kind === 'redirect') {
    const headers = cookieHeaders(cookies)
    throw outcome.document ? redirectDocument(outcome.to, { status: 303, headers }) : redirect(outcome.to, { status: 303, headers })
  }
  const body: FlowPageData =
    outcome.kind === 'render' ? { flow: outcome.flow, notice, error: null } : { flow: null, notice, error: outcome.message }
  return data(body, { status: outcome.status, headers: cookieHeaders(cookies) })
}

/**
 * The loader half of every flow page: read the flow named by `?flow=`, or create one and put
 * its id into the URL (keeping `return_to` first, which is where sign-in redirects put it).
 */
export async function loadFlow(args: LoaderFunctionArgs, kind: FlowKind) {
  const url = new URL(args.request.url)
  const notice = noticeText(url.searchParams.get('notice')) ?? null
  const flowId = url.searchParams.get('flow')
  if (flowId) {
    const answer = await getFlow(args, kind, flowId)
    if (answer.status === 200 && isFlow(answer.body)) return respond({ kind: 'render', flow: answer.body, status: 200 }, answer.cookies, notice)
    return respond(mapFlowAnswer(args.request, kind, answer, 'get'), answer.cookies, notice)
  }
  const answer = await createFlow(args, kind)
  if (answer.status === 200 && isFlow(answer.body)) {
    const next = new URLSearchParams()
    const returnTo = url.searchParams.get('return_to')
    if (returnTo) next.set('return_to', returnTo)
    if (kind === 'login' && url.searchParams.get('refresh') === 'true') next.set('refresh', 'true')
    if (kind === 'login' && url.searchParams.get('aal')) next.set('aal', url.searchParams.get('aal')!)
    next.set('flow', answer.body.id)
    if (url.searchParams.get('notice')) next.set('notice', url.searchParams.get('notice')!)
    throw redirect(`${FLOW_PAGES[kind]}?${next.toString()}`, { headers: cookieHeaders(answer.cookies) })
  }
  if (kind === 'verification' && answer.status === 400 && !errorOf(answer.body).error?.id) {
    return respond({ kind: 'error', status: 400, message: messageOfAnswer(answer, 'Verification is not available.') }, answer.cookies, notice)
  }
  return respond(mapFlowAnswer(args.request, kind, answer, 'create'), answer.cookies, notice)
}

/** Only string fields travel on; files have no place in these forms. */
export function formToParams(formData: FormData): URLSearchParams {
  const params = new URLSearchParams()
  for (const [key, value] of formData) if (typeof value === 'string') params.append(key, value)
  return params
}

type SuccessBody = {
  session?: unknown
  return_to?: string
  continue_with?: Array<{ action?: string; redirect_browser_to?: string; flow?: { id?: string; url?: string } }>
}

/** Where a finished login or registration goes: continue_with first, then return_to, then home. */
export function successTarget(request: Request, body: unknown, fallbackReturnTo?: string | null): string {
  const origin = new URL(request.url).origin
  const success = (body && typeof body === 'object' ? body : {}) as SuccessBody
  for (const item of success.continue_with ?? []) {
    if (item.action === 'show_verification_ui' && item.flow?.id) return `/verification?flow=${encodeURIComponent(item.flow.id)}`
    if (item.action === 'redirect_browser_to' && item.redirect_browser_to) return toConsolePath(item.redirect_browser_to, origin, '/')
  }
  return toConsolePath(success.return_to ?? fallbackReturnTo, origin, '/')
}

/** The action half: relay the posted form and answer per spec 000 §8. */
export async function submitFlow(args: ActionFunctionArgs, kind: FlowKind, form?: URLSearchParams, cookie?: string) {
  const url = new URL(args.request.url)
  const flowId = url.searchParams.get('flow')
  if (!flowId) return respond({ kind: 'redirect', to: restartUrl(args.request, kind) }, [])
  const body = form ?? formToParams(await args.request.formData())
  const answer = await updateFlow(args, kind, flowId, body, cookie)
  if (answer.status === 200) {
    if (isFlow(answer.body)) return respond({ kind: 'render', flow: answer.body, status: 200 }, answer.cookies)
    return respond({ kind: 'redirect', to: successTarget(args.request, answer.body, url.searchParams.get('return_to')) }, answer.cookies)
  }
  return respond(mapFlowAnswer(args.request, kind, answer, 'submit'), answer.cookies)
}
