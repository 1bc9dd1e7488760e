import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express'
import type { Logger } from 'pino'
import type { Db } from '#server/db/client.ts'
import type { Principal } from '#server/backend/identity/principal.ts'
import type { Authorizer } from '#server/backend/rbac/authorizer.ts'
import { createRunAuthorization } from '#server/backend/playbooks/run-request.ts'
import { MCP_CORS_HEADERS, MCP_PERMISSION, mcpForbiddenMessage } from '#contract/mcp/mcp-api.ts'

/**
 * `/mcp` (http-api §2.1.11): the MCP streamable-HTTP endpoint, JSON-RPC 2.0 over POST, served
 * statelessly (docs/decisions/027). Callers authenticate as for the rest of the API (bearer
 * token, basic `token:<t>`, a session) and need `mcp:use` on `mcp`.
 */

/**
 * The SDK (and its JSON Schema and HTTP dependencies) takes hundreds of milliseconds to import:
 * it loads on the first MCP request, not at start (docs/decisions/013 keeps start time).
 */
const importMcpModules = () => Promise.all([import('./mcp-server.ts'), import('@modelcontextprotocol/sdk/server/streamableHttp.js')])
let mcpModules: ReturnType<typeof importMcpModules> | undefined
// A failed import is tried again on the next request rather than remembered.
const loadMcpModules = () =>
  (mcpModules ??= importMcpModules().catch((error: unknown) => {
    mcpModules = undefined
    throw error
  }))

/** Most bytes of one JSON-RPC POST: tool arguments are ids, short texts and parameter values. */
const MCP_BODY_LIMIT = '1mb'

/**
 * CORS for MCP clients running in a browser (any origin, no cookies). Mounted ahead of the
 * credential check: a preflight carries no credential and must still be answered.
 */
export function mcpCors(req: Request, res: Response, next: NextFunction): void {
  for (const [name, value] of Object.entries(MCP_CORS_HEADERS)) res.setHeader(name, value)
  if (req.method === 'OPTIONS') {
    res.setHeader('Access-Control-Max-Age', '86400')
    res.status(204).end()
    return
  }
  next()
}

function jsonRpcError(res: Response, status: number, code: number, message: string): void {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null })
}

/**
 * The contract's first-call example sends no Accept header, and the SDK refuses a POST that does
 * not accept both JSON and an event stream. This server only ever answers JSON, so such a POST is
 * read as accepting both. The SDK reads headers from `rawHeaders`, hence the rewrite there.
 */
function acceptJsonAndEventStream(req: Request): void {
  const accept = req.headers.accept ?? ''
  if (accept.includes('application/json') && accept.includes('text/event-stream')) return
  const value = 'application/json, text/event-stream'
  const kept: string[] = []
  for (let index = 0; index + 1 < req.rawHeaders.length; index += 2) {
    if (req.rawHeaders[index]!.toLowerCase() !== 'accept') kept.push(req.rawHeaders[index]!, req.rawHeaders[index + 1]!)
  }
  kept.push('Accept', value)
  req.rawHeaders.splice(0, req.rawHeaders.length, ...kept)
  req.headers.accept = value
}

/**
 * The same example's `initialize` names no `clientInfo`, which the platform's server takes and the
 * SDK's schema requires; an anonymous client is filled in so that call succeeds here too.
 */
function withClientInfo(body: unknown): unknown {
  if (Array.isArray(body)) return body.map(withClientInfo)
  const message = body as { method?: unknown; params?: Record<string, unknown> } | null
  if (!message || typeof message !== 'object' || message.method !== 'initialize') return body
  const params = message.params ?? {}
  if (typeof params !== 'object' || Array.isArray(params)) return body
  return { ...message, params: { capabilities: {}, clientInfo: { name: 'unnamed client', version: '0' }, ...params } }
}

export function createMcpRouter(options: { db: Db; authorizer: Authorizer; logger: Logger; version: string }): express.Router {
  const { db, authorizer, logger } = options
  const runs = createRunAuthorization(db, authorizer)
  const router = express.Router()

  const requireMcpUse: RequestHandler = (req, res, next) => {
    const principal = res.locals.principal as Principal | undefined
    if (!principal) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="lookout"')
      res.status(401).json({ error: 'unauthorized', message: 'Not logged in' })
      return
    }
    authorizer
      .authorize(principal, { area: null, object: MCP_PERMISSION.object, action: MCP_PERMISSION.action })
      .then((decision) => {
        if (decision.allowed) return next()
        req.log?.info({ subject: principal.personId, reason: decision.reason }, 'mcp access denied')
        res.status(403).json({ error: mcpForbiddenMessage(principal.personId) })
      }, next)
  }

  const parseBody = express.json({ limit: MCP_BODY_LIMIT })
  const bodyErrors = (error: unknown, _req: Request, res: Response, next: NextFunction) => {
    const status = (error as { status?: number }).status
    if (status === 413) return jsonRpcError(res, 413, -32600, `Request body larger than ${MCP_BODY_LIMIT}`)
    if (status && status >= 400 && status < 500) return jsonRpcError(res, 400, -32700, 'Parse error: the body is not valid JSON')
    next(error)
  }

  const serve: RequestHandler = (req, res, next) => {
    const caller = { db, authorizer, principal: res.locals.principal as Principal, runs }
    acceptJsonAndEventStream(req)
    loadMcpModules()
      .then(async ([{ createMcpServer }, { StreamableHTTPServerTransport }]) => {
        const server = createMcpServer(caller, { version: options.version, logger: req.log ?? logger })
        // Stateless: no session id, and every answer is one JSON body rather than an event stream.
        const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true })
        res.on('close', () => {
          void transport.close()
          void server.close()
        })
        await server.connect(transport)
        await transport.handleRequest(req, res, withClientInfo(req.body))
      })
      .catch(next)
  }

  router.use(requireMcpUse)
  router.post('/', parseBody, bodyErrors, serve)
  // No server-initiated stream and no session to end: the spec's answer to both is 405.
  router.all('/', (_req, res) => {
    res.setHeader('Allow', 'POST, OPTIONS')
    jsonRpcError(res, 405, -32000, 'Method not allowed: this server is stateless; send JSON-RPC requests with POST')
  })
  router.use((req, res) => {
    res.status(404).json({ error: 'not_found', message: `no API is served at /mcp${req.path}` })
  })
  return router
}
