import { connectionFailureDetails, connectionFailureOf } from '#server/db/outage.ts'

/**
 * PostgREST-shaped errors: every failure leaves the engine as `{code, message, details, hint}`
 * with the HTTP status PostgREST 12 would use, so clients that branch on `code` keep working.
 */
export type PostgrestErrorBody = {
  code: string
  message: string
  details: string | null | unknown
  hint: string | null
}

export class PostgrestError extends Error {
  readonly status: number
  readonly code: string
  readonly details: unknown
  readonly hint: string | null

  constructor(status: number, code: string, message: string, details: unknown = null, hint: string | null = null) {
    super(message)
    this.status = status
    this.code = code
    this.details = details
    this.hint = hint
  }

  toBody(): PostgrestErrorBody {
    return { code: this.code, details: this.details ?? null, hint: this.hint, message: this.message }
  }
}

/** PGRST100: the query string does not parse. */
export function parseError(message: string, details: string | null = null): PostgrestError {
  return new PostgrestError(400, 'PGRST100', message, details)
}

/** PGRST102: the request body is not usable. */
export function bodyError(message: string): PostgrestError {
  return new PostgrestError(400, 'PGRST102', message)
}

export function unknownColumn(relation: string, column: string): PostgrestError {
  return new PostgrestError(400, '42703', `column ${relation}.${column} does not exist`)
}

/**
 * PostgREST's answers when the database cannot be used (v12 Error.hs): PGRST000 when no
 * connection opens, PGRST001 when one breaks under the request, PGRST003 (504) when the pool
 * stays busy past its checkout wait. A restart shows as 503 until the server is back.
 */
export function connectionError(error: unknown): PostgrestError | null {
  const kind = connectionFailureOf(error)
  if (!kind) return null
  const details = connectionFailureDetails(error)
  if (kind === 'connect') return new PostgrestError(503, 'PGRST000', 'Database connection error. Retrying the connection.', details)
  if (kind === 'lost') return new PostgrestError(503, 'PGRST001', 'Database client error. Retrying the connection.', details)
  return new PostgrestError(504, 'PGRST003', 'Timed out acquiring connection from connection pool.')
}

type DatabaseErrorLike = { code?: unknown; message?: unknown; detail?: unknown; hint?: unknown }

function isDatabaseError(error: unknown): error is DatabaseErrorLike & { code: string } {
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as DatabaseErrorLike).code === 'string' &&
    /^[0-9A-Z]{5}$/.test((error as DatabaseErrorLike).code as string)
  )
}

/** PostgREST's SQLSTATE → HTTP table (v12): exact codes first, then two-character classes. */
export function statusForSqlState(code: string, authenticated: boolean): number {
  switch (code) {
    case '23503':
    case '23505':
      return 409
    case '25006':
      return 405
    case '53400':
      return 500
    case '42883':
    case '42P01':
      return 404
    case '42P17':
      return 500
    case '42501':
      return authenticated ? 403 : 401
    case 'P0001':
      return 400
  }
  const klass = code.slice(0, 2)
  switch (klass) {
    case '08':
    case '53':
      return 503
    case '0L':
    case '0P':
    case '28':
      return 403
    case '09':
    case '25':
    case '2D':
    case '38':
    case '39':
    case '3B':
    case '40':
    case '54':
    case '55':
    case '57':
    case '58':
    case 'F0':
    case 'HV':
    case 'P0':
    case 'XX':
      return 500
  }
  return 400
}

/**
 * Turns anything thrown while serving a request into a PostgREST error. Database errors keep
 * their SQLSTATE and text (as PostgREST does); anything else is an internal failure whose
 * details are not leaked.
 */
export function toPostgrestError(error: unknown, authenticated: boolean): PostgrestError {
  if (error instanceof PostgrestError) return error
  const connection = connectionError(error)
  if (connection) return connection
  if (isDatabaseError(error)) {
    const message = typeof error.message === 'string' ? error.message : 'database error'
    const detail = typeof error.detail === 'string' ? error.detail : null
    const hint = typeof error.hint === 'string' ? error.hint : null
    return new PostgrestError(statusForSqlState(error.code, authenticated), error.code, message, detail, hint)
  }
  return new PostgrestError(500, 'PGRSTX00', 'Internal server error', null, null)
}
