import { data, redirect, redirectDocument, type ActionFunctionArgs, type LoaderFunctionArgs } from '@remix-run/node'
import { apiFetch, GatewayError, type ApiArgs } from './gateway.server.ts'
import { FLOW_PAGES, isFlow, noticeText, toConsolePath, type Flow, type FlowKind, type FlowNotice } from './identity-flow.ts'

/**
 * The console's half of the identity flows. Forms post to the page's own action, which relays
 * the fields to the identity service as a JSON client (so every answer comes back as data,
 * not as a redirect) and turns each answer into what spec 000 §8 asks for. Cookies the
 * identity service sets (session, CSRF) are passed on to the browser unchanged.
 */

const ORY = '/.ory'

export type OryErrorBody = {
  error?: { id?: string; code?: number; message?: string; reason?: string; details?: Record<string, unknown> }
  redirect_browser_to?: string
  use_flow_id?: string
}

export type OryAnswer = { status: number; body: unknown; cookies: string[] }

/** One call to the identity service; network failures come back as 502/504 answers, not throws. */
export async function oryCall(args: ApiArgs, path: string, init: { method?: string; form?: URLSearchParams; cookie?: string } = {}): Promise<OryAnswer> {
  let response: Response
  try {
    response = await apiFetch(args, `${ORY}${path}`, {
      method: init.method,
      form: init.form,
      headers: { accept: 'application/json', ...(init.cookie !== undefined ? { cookie: init.cookie } : {}) },
    })
  } catch (error) {
    if (error instanceof GatewayError) return { status: error.status, body: { error: { message: error.message } }, cookies: [] }
    throw error
  }
  const text = await response.text()
  let body: unknown = text
  try {
    body = text ? JSON.parse(text) : null
  } catch {
    // Plain-text answers (a 429, a proxy error page) are kept as text.
  }
  return { status: response.status, body, cookies: response.headers.getSetCookie() }
}

/** The browser's cookies with the ones just set applied, for a follow-up call in the same request. */
export function mergeCookies(cookieHeader: string | null, setCookies: string[]): string {
  const jar = new Map<string, string>()
  for (const part of (cookieHeader ?? '').split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0) jar.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim())
  }
  for (const line of setCookies) {
    const [pair = ''] = line.split(';')
    const eq = pair.indexOf('=')
    if (eq <= 0) continue
    const name = pair.slice(0, eq).trim()
    const value = pair.slice(eq + 1).trim()
    if (!value || /max-age=0/i.test(line)) jar.delete(name)
    else jar.set(name, value)
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

/** Query for the create endpoint; `refresh` counts only when it is literally "true". */
export function createQuery(kind: FlowKind, request: Request): URLSearchParams {
  const url = new URL(request.url)
  const query = new URLSearchParams()
  const returnTo = url.searchParams.get('return_to')
  if (returnTo) {
    // Relative paths are resolved against this origin so the allow-list can check them.
    const absolute = returnTo.startsWith('/') && !returnTo.startsWith('//') ? `${url.origin}${returnTo}` : returnTo
    query.set('return_to', absolute)
  }
  if (kind === 'login') {
    if (url.searchParams.get('refresh') === 'true') query.set('refresh', 'true')
    const aal = url.searchParams.get('aal')
    if (aal) query.set('aal', aal)
  }
  if (kind === 'registration' && returnTo) query.set('after_verification_return_to', query.get('return_to')!)
  return query
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
    const answer = await oryCall(args, `/self-service/${kind}/flows?id=${encodeURIComponent(flowId)}`)
    if (answer.status === 200 && isFlow(answer.body)) return respond({ kind: 'render', flow: answer.body, status: 200 }, answer.cookies, notice)
    return respond(mapFlowAnswer(args.request, kind, answer, 'get'), answer.cookies, notice)
  }
  const query = createQuery(kind, args.request)
  const answer = await oryCall(args, `/self-service/${kind}/browser${query.size ? `?${query.toString()}` : ''}`)
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
  const answer = await oryCall(args, `/self-service/${kind}?flow=${encodeURIComponent(flowId)}`, { method: 'POST', form: body, cookie })
  if (answer.status === 200) {
    if (isFlow(answer.body)) return respond({ kind: 'render', flow: answer.body, status: 200 }, answer.cookies)
    return respond({ kind: 'redirect', to: successTarget(args.request, answer.body, url.searchParams.get('return_to')) }, answer.cookies)
  }
  return respond(mapFlowAnswer(args.request, kind, answer, 'submit'), answer.cookies)
}
