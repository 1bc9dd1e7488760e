import express, { type NextFunction, type Request, type Response } from 'express'
import type { Logger } from 'pino'
import type { Db } from '#server/db/client.ts'
import type { Env } from '#server/env.ts'
import { SUB_BASES } from '#contract/sub-bases.ts'
import {
  createCredentialStore,
  publicHealthResolver,
  requireCredentials,
  sessionCookieResolver,
  sessionDisabledResolver,
  type CredentialStore,
} from './identity/credentials.ts'
import type { CredentialResolver } from './identity/principal.ts'
import { createCredentialCache, type CredentialCache } from './identity/credential-cache.ts'
import { createCanaryRouter } from './health/canary.routes.ts'
import type { TopologyEngine } from './topology/topology-engine.ts'
import { createCatalogRouter, createResourceSearchRouter } from './catalog/catalog.routes.ts'
import { configRowGuard, configVisibility } from './catalog/config-access.ts'
import { componentRowGuard, componentVisibility } from './topology/component-access.ts'
import { historyRowGuard } from './notifications/notification-access.ts'
import { createSnapshotRouter } from './topology/snapshot.routes.ts'
import type { Principal } from './identity/principal.ts'
import type { CheckEngine } from './health/check-engine.ts'
import { createConfigRouter } from './catalog/config.routes.ts'
import type { ScrapeEngine } from './catalog/scrape-engine.ts'
import { createIdentityRouter } from './identity/identity.routes.ts'
import { createInviteRouter } from './identity/invite.routes.ts'
import { assignRole } from './identity/kratos/identities.ts'
import { createKratosRouter } from './identity/kratos/kratos-router.ts'
import { createRateLimits, limitUnauthenticated, rateLimitConfigOf } from './identity/kratos/rate-limit.ts'
import { createOutboxRouter } from './identity/mail/outbox.routes.ts'
import { resolveKratosSession } from './identity/kratos/sessions.ts'
import { createMailer } from './identity/mail/mailer.ts'
import { createPeopleRouter } from './people/people.routes.ts'
import { createPostgrestRouter, type ValidateWriteInput, type ValidateWriteResult } from './postgrest/router.ts'
import { connectionError } from './postgrest/errors.ts'
import { createPermissionWriteValidator } from './rbac/permission-escalation.ts'
import { createTeamMembershipValidator } from './rbac/team-membership-guard.ts'
import { createPeopleWriteValidator } from './people/people-write-guard.ts'
import { createAuthorColumnsValidator } from './author-columns.ts'
import { createExecWriteValidator } from './rbac/exec-permission.ts'
import { recordSpecTrust } from './health/check-trust.ts'
import { incidentWriteValidator } from './incidents/incident-write-validator.ts'
import { resourceSpecValidator } from './resource-spec-validator.ts'
import { createPlaybookWriteGuard, createPlaybookWriteValidator } from './playbooks/playbook-write-guard.ts'
import { createPlaybookRouter, createPlaybookWebhookRouter } from './playbooks/playbook.routes.ts'
import { createAuthorizer, type AccessSubject, type Authorizer } from './rbac/authorizer.ts'
import { createRbacRouter } from './rbac/rbac.routes.ts'
import { createDbAuthorization, requireRouteAccess } from './rbac/rbac-middleware.ts'
import { createTokenRouter } from './rbac/token.routes.ts'
import { createSettingsRouter } from './settings/settings.routes.ts'
import { connectionWriteValidator, createConnectionReadTransform } from './connections/connection-data-access.ts'
import { createConnectionRouter } from './connections/connection.routes.ts'
import { createNotificationRouter } from './notifications/notification.routes.ts'
import { createNotificationUnreadRouter } from './notifications/notification-unread.ts'
import { parseAllowedTargets } from './health/checks/target-guard.ts'
import { createMcpRouter, mcpCors } from './mcp/mcp.routes.ts'
import { createEventQueueWriteValidator } from './events/event-queue-write-guard.ts'
import { SchemaCache } from './postgrest/schema-cache.ts'
import { createViewRouter } from './views/view.routes.ts'
import { viewRowGuard } from './views/view-table.ts'
import { restrictedGuard } from './health/checks/target-guard.ts'
import { createLogBackendWriteValidator } from './logs/log-backend-write-guard.ts'
import { createLogsRouter } from './logs/logs.routes.ts'
import { createAgentRouter, createUpstreamRouter } from './agents/agent.routes.ts'

export type Backend = {
  router: express.Router
  credentials: CredentialStore
  credentialCache: CredentialCache
  authorizer: Authorizer
}

/**
 * The embedded backend: the platform's HTTP contract (Mission Control paths, without /api)
 * served by Lookout's own services on PostgreSQL. The gateway mounts it in process; `npm run
 * backend` serves it alone so upstream mode can be exercised against a second process.
 */
export function createBackend(options: {
  db: Db
  env: Env
  logger: Logger
  appVersion: string
  /** The console's URL as people reach it; identity flows and mailed links are built on it. */
  consoleUrl: () => string
  /** The check engine of this process, for Run Now; absent where no engine runs. */
  engine?: CheckEngine
  /** The scrape engine of this process, for run-now (`POST /config/run/{id}`); absent where no engine runs. */
  scrapeEngine?: ScrapeEngine
  /** The topology engine of this process, for run-now (`POST /canary/run/topology/{id}`); absent where no engine runs. */
  topologyEngine?: TopologyEngine
  /** Extra ways to recognise callers (tried after the Kratos session, before the console session). */
  credentialResolvers?: CredentialResolver[]
}): Backend {
  const { db, env, logger } = options
  const credentialCache = createCredentialCache({
    db,
    ttlMs: env.LOOKOUT_CREDENTIAL_CACHE_TTL_MS,
    maxEntries: env.LOOKOUT_CREDENTIAL_CACHE_MAX,
  })
  const credentials = createCredentialStore({
    db,
    cache: credentialCache,
    bootstrapToken: env.LOOKOUT_BOOTSTRAP_TOKEN,
    sessionTtlHours: env.LOOKOUT_SESSION_TTL_HOURS,
  })
  const authorizer = createAuthorizer(db)
  const dbAuthorization = createDbAuthorization({ db, authorizer, logger })
  // Exec first: a spec that would run a process is refused for who writes it before its shape is judged.
  const trustSpecOfExecHolder = async (spec: unknown, subject: AccessSubject, holdsExec: boolean) => {
    if (holdsExec) await recordSpecTrust(db, spec, subject)
  }
  const execValidator = createExecWriteValidator(authorizer, {
    onCanarySpec: trustSpecOfExecHolder,
    onScraperSpec: trustSpecOfExecHolder,
    onTopologySpec: trustSpecOfExecHolder,
  })
  // Author columns first: the rules after it see the created_by/updated_by that will be stored.
  const writeValidators = [
    createAuthorColumnsValidator(authorizer),
    createPermissionWriteValidator(authorizer),
    createTeamMembershipValidator(authorizer),
    createPeopleWriteValidator(authorizer),
    execValidator,
    createPlaybookWriteValidator(authorizer),
    incidentWriteValidator,
    resourceSpecValidator,
    connectionWriteValidator,
    createEventQueueWriteValidator(authorizer),
    createLogBackendWriteValidator(db, authorizer),
  ]
  const validateDataWrite = async (input: ValidateWriteInput): Promise<ValidateWriteResult> => {
    let rows: Record<string, unknown>[] | undefined
    for (const validate of writeValidators) {
      const verdict = await validate(rows ? { ...input, rows } : input)
      if (!verdict.ok) return verdict
      rows = verdict.rows ?? rows
    }
    return rows ? { ok: true, rows } : { ok: true }
  }
  const router = express.Router()
  const mailer = createMailer({ db, smtpUrl: env.SMTP_URL, from: env.LOOKOUT_MAIL_FROM, logger })
  const identityPublicUrl = () => `${options.consoleUrl()}/api/.ory`
  const rateLimits = createRateLimits(db, rateLimitConfigOf(env))
  const assignRoleOnCreate = async (identity: { id: string }, role: string) => {
    await assignRole(db, identity.id, role)
    authorizer.invalidate()
  }
  const kratosSession = sessionCookieResolver(db, 'ory_kratos_session', async (value) => {
    const session = await resolveKratosSession(db, value, { rollingLifespanSeconds: env.LOOKOUT_SESSION_TTL_HOURS * 3600 })
    return (
      session && {
        personId: session.identityId,
        name: session.name,
        email: session.email,
        renewedForSeconds: session.renewedForSeconds,
        expiresAt: session.expiresAt,
      }
    )
  }, 'kratos-session', credentialCache)

  router.get('/health', (_req, res) => {
    res.type('text').send('OK')
  })
  // The identity service authenticates its own callers (flows, CSRF, session cookie).
  router.use(
    '/kratos',
    createKratosRouter({
      db,
      logger,
      mailer,
      publicBaseUrl: identityPublicUrl,
      uiBaseUrl: options.consoleUrl,
      registration: env.LOOKOUT_REGISTRATION,
      defaultRole: env.LOOKOUT_DEFAULT_ROLE,
      flowLifespanSeconds: env.LOOKOUT_IDENTITY_FLOW_LIFESPAN_SECONDS,
      sessionLifespanSeconds: env.LOOKOUT_SESSION_TTL_HOURS * 3600,
      onIdentityCreated: assignRoleOnCreate,
      rateLimits,
    }),
  )
  // Playbook webhooks check their own credentials (a JWT or basic pair that is no token of ours).
  router.use('/playbook/webhook', limitUnauthenticated(rateLimits), createPlaybookWebhookRouter({ db }))
  // MCP clients in a browser send a preflight without credentials; every /mcp answer carries CORS.
  router.use('/mcp', mcpCors)
  // The public board's resolver goes last and declines any request carrying a credential, so a
  // session or token is always judged as itself.
  router.use(requireCredentials(credentials, {
    resolvers: [
      kratosSession,
      ...(options.credentialResolvers ?? []),
      ...(env.SESSION_DISABLED ? [sessionDisabledResolver(credentials)] : []),
      publicHealthResolver(env.LOOKOUT_PUBLIC_HEALTH),
    ],
  }))
  // Token sign-in, the public board, webhooks: whatever got this far without a credential.
  router.use(limitUnauthenticated(rateLimits))
  // Before the route table: /mcp refuses with its own 403 body (http-api §2.1.11), not the RBAC text.
  router.use('/mcp', createMcpRouter({ db, authorizer, logger, version: options.appVersion }))
  // Every sub-base but /db is checked here; /db is checked per relation by the PostgREST hook.
  router.use(requireRouteAccess(authorizer, logger))
  router.use(createIdentityRouter({ store: credentials, db, authorizer }))
  router.use(createInviteRouter({ db, mailer, publicBaseUrl: options.consoleUrl, uiBaseUrl: options.consoleUrl, authorizer }))
  router.use(createOutboxRouter({ db, authorizer }))
  router.use(createTokenRouter({ db, authorizer, publicUrl: env.LOOKOUT_PUBLIC_URL, onTokenDeleted: credentials.forgetToken }))
  router.use(createRbacRouter({ db, authorizer }))
  router.use(createPeopleRouter({ db, store: credentials, authorizer }))
  router.use(createSettingsRouter({ db, appVersion: options.appVersion }))
  // Connection secrets: opened for the connection's editors, masked for other readers.
  router.use('/db/connections', createConnectionReadTransform({ db, authorizer }))
  // One schema snapshot shared with the views API, which creates view_<ns>_<name> tables at run time.
  const schemaCache = new SchemaCache(db)
  router.use(
    '/db',
    dbAuthorization.guard,
    createPlaybookWriteGuard({ db, authorize: dbAuthorization.authorize }),
    createPostgrestRouter({
      db,
      maxRows: env.LOOKOUT_DB_MAX_ROWS,
      // No statementTimeoutMs: PostgreSQL pools carry LOOKOUT_DB_STATEMENT_TIMEOUT_MS on every
      // connection (boot.ts), and PGlite ignores statement_timeout (no timer in WASM).
      authorize: dbAuthorization.authorize,
      validateWrite: validateDataWrite,
      schemaCache,
      // Row-level access: config items and components (and what hangs off them) a permission's
      // scopes hide; a row carrying both must pass both.
      rowGuard: async (req) => {
        const principal = req.res?.locals.principal as Principal | undefined
        const visibility = await configVisibility(authorizer, principal)
        const components = await componentVisibility(authorizer, principal)
        const guards = [
          configRowGuard(visibility),
          viewRowGuard(visibility),
          componentRowGuard(components),
          historyRowGuard({ configs: visibility, components }),
        ].filter((guard) => guard !== null)
        if (guards.length === 0) return null
        return (relation, kind, alias, params) => {
          const conditions = guards.map((guard) => guard(relation, kind, alias, params)).filter((condition) => condition !== null)
          return conditions.length ? conditions.map((condition) => `(${condition})`).join(' AND ') : null
        }
      },
      isAuthenticated: (req) => Boolean(req.res?.locals.principal),
    }),
  )

  router.use('/canary', createCanaryRouter({ db, engine: options.engine, topologyEngine: options.topologyEngine, logger, authorizer }))
  router.use('/config', createConfigRouter({ db, engine: options.scrapeEngine, logger, authorizer }))
  router.use('/catalog', createCatalogRouter({ db, authorizer, logger }))
  router.use('/resources', createResourceSearchRouter({ db, authorizer }))
  router.use('/snapshot', createSnapshotRouter({ db, authorizer, logger }))
  router.use('/playbook', createPlaybookRouter({ db, authorizer, logger }))
  router.use('/connection', createConnectionRouter({ db, authorizer, logger, allowedTargets: parseAllowedTargets(env.LOOKOUT_CHECK_ALLOWED_TARGETS) }))
  router.use('/notification', createNotificationUnreadRouter({ db, authorizer }))
  router.use(
    '/view',
    createViewRouter({ db, authorizer, logger, targets: restrictedGuard(parseAllowedTargets(env.LOOKOUT_CHECK_ALLOWED_TARGETS)), onSchemaChange: () => schemaCache.refresh() }),
  )
  router.use('/notification', createNotificationRouter({ db, authorizer, logger }))
  router.use('/logs', createLogsRouter({ db, authorizer, logger, allowedTargets: parseAllowedTargets(env.LOOKOUT_CHECK_ALLOWED_TARGETS) }))
  router.use('/agent', createAgentRouter({ db, authorizer }))
  router.use('/upstream', createUpstreamRouter({ db, bodyLimitBytes: env.LOOKOUT_API_BODY_LIMIT_BYTES }))

  // Sub-bases whose service has not been built yet answer honestly instead of 404.
  for (const subBase of SUB_BASES) {
    if (subBase.base === '/.ory') continue
    router.use(subBase.base, (req, res) => {
      res.status(501).json({
        error: 'not_implemented',
        message: `${req.method} /api${subBase.base}${req.path === '/' ? '' : req.path} (${subBase.purpose}) is not available in embedded mode yet`,
      })
    })
  }

  router.use((req, res) => {
    res.status(404).json({ error: 'not_found', message: `no API is served at ${req.path}` })
  })

  // One error shape for the whole backend; details go to the log, never to the caller.
  router.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const status = (error as { status?: number; statusCode?: number }).status ?? (error as { statusCode?: number }).statusCode
    if (status && status >= 400 && status < 500) {
      res.status(status).json({ error: 'invalid', message: (error as Error).message })
      return
    }
    const outage = connectionError(error)
    if (outage) {
      // A database restart is the operator's event, not a bug: one warning, and a 503 to retry.
      req.log?.warn({ err: error }, 'database unavailable')
      if (res.headersSent) {
        res.destroy()
        return
      }
      res.status(outage.status).set('Retry-After', '1')
      if (req.path === '/db' || req.path.startsWith('/db/')) res.json(outage.toBody())
      else res.json({ error: 'database_unavailable', message: 'The database is not reachable right now; try again in a moment.' })
      return
    }
    req.log?.error({ err: error }, 'backend request failed')
    if (res.headersSent) {
      res.destroy()
      return
    }
    res.status(500).json({ error: 'internal', message: 'Internal Server Error' })
  })

  return { router, credentials, credentialCache, authorizer }
}
