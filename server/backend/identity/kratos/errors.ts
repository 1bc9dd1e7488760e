const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  410: 'Gone',
  422: 'Unprocessable Entity',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
}

const DEFAULT_MESSAGE: Record<number, string> = {
  400: 'The request was malformed or contained invalid parameters',
  401: 'The request could not be authorized',
  403: 'The requested action was forbidden',
  404: 'The requested resource could not be found',
  410: 'The requested resource is no longer available because it has expired or is otherwise invalid.',
  429: 'The request was rate limited',
  500: 'An internal server error occurred, please contact the system administrator',
}

export type ErrorBody = {
  id?: string
  code: number
  status: string
  reason?: string
  message: string
  details?: Record<string, unknown>
}

/** Extra top-level keys next to `error` (location changes, replaced flows). */
export type ErrorExtras = { redirect_browser_to?: string; use_flow_id?: string; expired_at?: string; since?: number }

/** A Kratos error envelope on its way to the client; thrown from handlers and rendered once. */
export class KratosError extends Error {
  readonly code: number
  readonly id?: string
  readonly reason?: string
  readonly details?: Record<string, unknown>
  readonly extras: ErrorExtras
  readonly headers: Record<string, string>

  constructor(
    code: number,
    options: { id?: string; reason?: string; message?: string; details?: Record<string, unknown>; extras?: ErrorExtras; headers?: Record<string, string> } = {},
  ) {
    super(options.message ?? DEFAULT_MESSAGE[code] ?? 'Error')
    this.code = code
    this.id = options.id
    this.reason = options.reason
    this.details = options.details
    this.extras = options.extras ?? {}
    this.headers = options.headers ?? {}
  }

  body(): ErrorBody {
    return {
      ...(this.id ? { id: this.id } : {}),
      code: this.code,
      status: STATUS_TEXT[this.code] ?? 'Error',
      ...(this.reason ? { reason: this.reason } : {}),
      message: this.message,
      ...(this.details ? { details: this.details } : {}),
    }
  }

  envelope(): { error: ErrorBody } & ErrorExtras {
    return { error: this.body(), ...this.extras }
  }
}

export const errors = {
  badRequest: (reason: string) => new KratosError(400, { reason }),
  notFound: (reason = 'Unable to locate the resource') => new KratosError(404, { reason }),
  csrf: (rejectReason: string) =>
    new KratosError(403, {
      id: 'security_csrf_violation',
      reason: 'Please retry the flow and optionally clear your cookies. The request was rejected to protect you from Cross-Site-Request-Forgery (CSRF) which could cause account takeover, leaking personal information, and other serious security issues.',
      message: 'the request was rejected to protect you from Cross-Site-Request-Forgery',
      details: {
        reject_reason: rejectReason,
        hint: 'The CSRF token of the flow must be sent in the body field "csrf_token" together with the CSRF cookie set when the flow was created.',
        docs: 'https://www.ory.sh/kratos/docs/debug/csrf',
      },
    }),
  sessionInactive: () => new KratosError(401, { id: 'session_inactive', reason: 'No active session was found in this request.', message: 'request does not have a valid authentication session' }),
  sessionAlreadyAvailable: () =>
    new KratosError(400, { id: 'session_already_available', reason: 'A valid session was detected and thus login is not possible. Did you forget to set `?refresh=true`?', message: 'session is already available' }),
  aal1Required: () =>
    new KratosError(401, { id: 'session_aal1_required', reason: 'You can not requested a higher AAL (AAL2/AAL3) without an active session.', message: 'aal1 session is required' }),
  aal2Required: (redirectTo: string) =>
    new KratosError(403, {
      id: 'session_aal2_required',
      reason: 'An active session was found but it does not fulfil the Authenticator Assurance Level, implying that the session must use a second factor or the identity has no second factor set up.',
      message: 'Session does not fulfill the requested Authenticator Assurance Level',
      extras: { redirect_browser_to: redirectTo },
    }),
  refreshRequired: (redirectTo: string) =>
    new KratosError(403, {
      id: 'session_refresh_required',
      reason: 'The login session is too old and thus not allowed to update these fields. Please re-authenticate.',
      message: 'The login session is too old and thus not allowed to update these fields. Please re-authenticate.',
      extras: { redirect_browser_to: redirectTo },
    }),
  identityMismatch: () =>
    new KratosError(403, { id: 'security_identity_mismatch', reason: 'The flow was interrupted because the identity changed.', message: 'the requested action was forbidden' }),
  returnToForbidden: () =>
    new KratosError(400, { id: 'self_service_flow_return_to_forbidden', reason: 'The requested return_to URL is not allowed.', message: 'the return_to address is not allowed' }),
  flowDisabled: (kind: string) =>
    new KratosError(400, { id: 'self_service_flow_disabled', reason: `${kind} is not allowed because it was disabled.`, message: `${kind} flow disabled` }),
  locationChange: (redirectTo: string) =>
    new KratosError(422, {
      id: 'browser_location_change_required',
      reason: 'In order to complete this flow please redirect the browser to: ' + redirectTo,
      message: 'browser location change required',
      extras: { redirect_browser_to: redirectTo },
    }),
  rateLimited: (retryAfterSeconds: number, reason = `Too many failed sign-in attempts. Try again in ${retryAfterSeconds} seconds.`) =>
    new KratosError(429, {
      id: 'self_service_rate_limited',
      reason,
      message: 'too many requests',
      headers: { 'Retry-After': String(retryAfterSeconds) },
    }),
}
