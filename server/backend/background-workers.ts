import type { Logger } from 'pino'
import type { Db } from '#server/db/client.ts'
import { isConnectionFailure } from '#server/db/outage.ts'
import type { Env } from '#server/env.ts'
import { createEventConsumer } from './events/event-consumer.ts'
import { createCheckEngine, type CheckEngine } from './health/check-engine.ts'
import { engineOptionsFromEnv } from './health/engine-env.ts'
import { createIncidentRulesHandlers } from './incidents/incident-rules.ts'
import { createScrapeEngine, type ScrapeEngine } from './catalog/scrape-engine.ts'
import { parseAllowedTargets } from './health/checks/target-guard.ts'
import { createTopologyEngine, type TopologyEngine } from './topology/topology-engine.ts'
import { createPlaybookRunner } from './playbooks/playbook-runner.ts'
import { createPlaybookScheduler, createPlaybookTriggerHandlers, mergeEventHandlers } from './playbooks/playbook-triggers.ts'
import { createNotificationHandlers } from './notifications/notification-matching.ts'
import { createNotificationDispatcher } from './notifications/notification-dispatcher.ts'
import { restrictedGuard, TargetRefusedError } from './health/checks/target-guard.ts'
import { createAgentPush } from './agents/agent-push.ts'

/**
 * What an embedded backend process runs besides answering requests: the check engine, the
 * scrape engine, the topology engine, the playbook runner and scheduler, the notification
 * dispatcher, and the event-queue consumer (incident rules, playbook triggers, notification
 * rules). All coordinate through PostgreSQL (leases, SKIP LOCKED), so any number of processes
 * may run them against one database.
 */
export type BackgroundWorkers = { engine?: CheckEngine; scrapeEngine?: ScrapeEngine; topologyEngine?: TopologyEngine; start(): Promise<void>; stop(): Promise<void> }

export function createBackgroundWorkers(options: { db: Db; env: Env; logger: Logger }): BackgroundWorkers {
  const { db, env, logger } = options
  if (env.LOOKOUT_ENGINE === 'off') return { start: async () => undefined, stop: async () => undefined }
  const engine = createCheckEngine({ db, logger, ...engineOptionsFromEnv(env) })
  const scrapeEngine = createScrapeEngine({
    db,
    logger,
    concurrency: env.LOOKOUT_SCRAPE_CONCURRENCY,
    defaultTimeoutMs: env.LOOKOUT_SCRAPE_TIMEOUT_MS,
    processId: env.LOOKOUT_ENGINE_PROCESS_ID,
    allowedTargets: parseAllowedTargets(env.LOOKOUT_CHECK_ALLOWED_TARGETS),
  })
  const topologyEngine = createTopologyEngine({
    db,
    logger,
    timeoutMs: env.LOOKOUT_TOPOLOGY_TIMEOUT_MS,
    processId: env.LOOKOUT_ENGINE_PROCESS_ID,
    allowedTargets: parseAllowedTargets(env.LOOKOUT_CHECK_ALLOWED_TARGETS),
  })
  const events = createEventConsumer({
    db,
    logger,
    databaseUrl: env.DATABASE_URL,
    // Incident rules, playbook triggers and notification rules all answer check.failed/passed: merged, not spread.
    handlers: mergeEventHandlers(
      createIncidentRulesHandlers(db, logger),
      createPlaybookTriggerHandlers(db, logger),
      createNotificationHandlers(db, logger, { publicUrl: env.LOOKOUT_PUBLIC_URL }),
    ),
  })
  // Rules are written by editors: their deliveries may not reach this server's own addresses
  // (LOOKOUT_CHECK_ALLOWED_TARGETS excepted), as untrusted checks may not.
  const notificationTargets = restrictedGuard(parseAllowedTargets(env.LOOKOUT_CHECK_ALLOWED_TARGETS))
  const notificationDispatcher = createNotificationDispatcher({
    db,
    logger,
    processId: env.LOOKOUT_ENGINE_PROCESS_ID,
    smtpUrl: env.SMTP_URL,
    mailFrom: env.LOOKOUT_MAIL_FROM,
    publicUrl: env.LOOKOUT_PUBLIC_URL,
    guard: async (url) => {
      const port = url.port ? Number(url.port) : url.protocol === 'http:' ? 80 : url.protocol === 'smtp:' ? 587 : 443
      try {
        // The vetted addresses go back to the sender, which connects to them without resolving again.
        return await notificationTargets.admit(url.hostname.replace(/^\[|\]$/g, ''), port)
      } catch (error) {
        if (error instanceof TargetRefusedError) throw new Error(`notification target refused: ${error.message}`)
        throw error
      }
    },
  })
  const playbookRunner = createPlaybookRunner({ db, logger, processId: env.LOOKOUT_ENGINE_PROCESS_ID })
  const playbookScheduler = createPlaybookScheduler({ db, logger, processId: env.LOOKOUT_ENGINE_PROCESS_ID })
  // Agent mode: what the engines above write is also replicated to the central instance.
  const agentPush =
    env.LOOKOUT_UPSTREAM_AGENT_URL && env.LOOKOUT_UPSTREAM_AGENT_TOKEN
      ? createAgentPush({
          db,
          logger,
          url: env.LOOKOUT_UPSTREAM_AGENT_URL,
          token: env.LOOKOUT_UPSTREAM_AGENT_TOKEN,
          batchSize: env.LOOKOUT_UPSTREAM_AGENT_BATCH,
          intervalMs: env.LOOKOUT_UPSTREAM_AGENT_INTERVAL_MS,
        })
      : undefined
  const log = logger.child({ component: 'background-workers' })
  let retry: NodeJS.Timeout | null = null
  let delayMs = 1_000
  // The engine registers itself in the database first; a database that is down at that moment
  // delays the start (retried with a backoff) instead of ending the process.
  const startEngine = () => {
    retry = null
    Promise.all([engine.start(), scrapeEngine.start(), topologyEngine.start(), playbookRunner.start(), playbookScheduler.start(), notificationDispatcher.start()]).then(
      () => undefined,
      (error: unknown) => {
        log[isConnectionFailure(error) ? 'warn' : 'error']({ err: error, retryInMs: delayMs }, 'check engine could not start; retrying')
        retry = setTimeout(startEngine, delayMs)
        retry.unref()
        delayMs = Math.min(delayMs * 2, 30_000)
      },
    )
  }
  return {
    engine,
    scrapeEngine,
    topologyEngine,
    async start() {
      startEngine()
      agentPush?.start()
      await events.start()
    },
    async stop() {
      if (retry) clearTimeout(retry)
      retry = null
      await events.stop()
      await agentPush?.stop()
      await Promise.all([engine.stop(), scrapeEngine.stop(), topologyEngine.stop(), playbookRunner.stop(), playbookScheduler.stop(), notificationDispatcher.stop()])
    },
  }
}
