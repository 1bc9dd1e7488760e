import { PostgrestClient, type PostgrestSingleResponse } from '@supabase/postgrest-js'
import { redirect } from '@remix-run/node'
import {
  GatewayError,
  messageOf,
  NETWORK_MESSAGE,
  sendToGateway,
  signInRedirect,
  TIMEOUT_MESSAGE,
  type ApiArgs,
} from './gateway.server.ts'

/**
 * The console's typed client for the data API (`/api/db`, PostgREST-compatible): query strings
 * are built by `@supabase/postgrest-js`, never by hand, and every request goes through the same
 * loopback transport as apiFetch (browser credentials, request id, client headers, timeout).
 *
 * postgrest-js turns whatever its `fetch` throws into a plain `{ error, status: 0 }`, which
 * would lose the classification screens rely on. So the transport never throws: a timeout, a
 * network failure and a 401 come back as responses with a marker in their body, and
 * `requireData` turns them into the same GatewayError or sign-in redirect apiJson throws.
 */
export type DbClient = PostgrestClient

const MARKER = 'lookout_gateway'
type Marked = { [MARKER]: 'timeout' | 'network' | 'sign-in'; message: string; location?: string }

function markedResponse(status: number, body: Marked): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })
}

/** The data client for this request's browser. Build one per loader or action. */
export function dbClient(args: ApiArgs): DbClient {
  const base = `${args.context.gateway.gatewayBaseUrl}/api/db`
  const transport = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    try {
      const response = await sendToGateway(args, input.toString(), {
        method: init?.method ?? 'GET',
        headers: new Headers(init?.headers),
        body: typeof init?.body === 'string' ? init.body : undefined,
        signal: init?.signal ?? undefined,
      })
      if (response.status !== 401) return response
      await response.body?.cancel()
      const location = signInRedirect(args.request).headers.get('location') ?? '/auth-state-checker'
      return markedResponse(401, { [MARKER]: 'sign-in', message: 'Sign in to continue.', location })
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error
      return markedResponse(error.status, { [MARKER]: error.kind === 'timeout' ? 'timeout' : 'network', message: error.message })
    }
  }
  return new PostgrestClient(base, { fetch: transport })
}

/** The failure of a data call as the screens handle it: a thrown redirect or GatewayError. */
function failureOf(result: { error: unknown; status: number }): Response | GatewayError {
  const body = result.error as Partial<Marked> & Record<string, unknown>
  switch (body?.[MARKER]) {
    case 'sign-in':
      return redirect(body.location ?? '/auth-state-checker')
    case 'timeout':
      return new GatewayError(504, TIMEOUT_MESSAGE, 'timeout')
    case 'network':
      return new GatewayError(502, NETWORK_MESSAGE, 'network')
  }
  // Status 0: postgrest-js could not read the answer (a body that is not JSON, for one).
  if (result.status === 0) return new GatewayError(502, messageOf(body, 'The data API gave an unreadable answer.'), 'http', body)
  return new GatewayError(result.status, messageOf(body, `Request failed with status ${result.status}`), 'http', body)
}

/**
 * The data of a data-API call, or a thrown failure: a 401 becomes the sign-in redirect, any
 * other failure a GatewayError (kind `http`, `timeout` or `network`) — exactly what apiJson
 * throws, so loaders and actions handle both alike.
 */
export function requireData<T>(result: PostgrestSingleResponse<T>): T {
  if (result.error) throw failureOf(result)
  return result.data as T
}

/** Rows with the total from `count: 'exact'` (the row count when the API sent none). */
export function requirePage<T>(result: PostgrestSingleResponse<T[]>): { rows: T[]; total: number } {
  const rows = requireData(result) ?? []
  return { rows, total: result.count ?? rows.length }
}

/** The total of a `count: 'exact'` query, or a thrown failure as with requireData. */
export function requireCount(result: PostgrestSingleResponse<unknown>): number {
  if (result.error) throw failureOf(result)
  if (result.count === null) throw new GatewayError(502, 'The data API sent no row count.', 'http')
  return result.count
}
