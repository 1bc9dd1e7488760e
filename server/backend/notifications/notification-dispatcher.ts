import { randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import type { Logger } from 'pino'
import type { Db, Queryable } from '#server/db/client.ts'
import { createLeasedWorkLoop } from '#server/backend/scheduling/leased-work-loop.ts'
import { evaluateCel, ExpressionError } from '#server/backend/health/expressions.ts'
import { findConnection } from '#server/backend/health/checks/check-inputs.ts'
import { renderFieldTemplate, renderGoTemplate } from '#server/backend/health/go-template.ts'
import { createPlaybookRun } from '#server/backend/playbooks/run-create.ts'
import { NotificationSendError, sendNotification, type SenderScheme, type SendOptions } from './senders/index.ts'
import { defaultBody, defaultTitle, HEALTH_EVENTS, loadNotificationContext, type NotificationContext } from './notification-context.ts'
import { clip, nanosToMs, recordRuleError, RULE_COLUMNS, type CustomService, type HistoryPayload, type NotificationRuleRow } from './notification-matching.ts'

/**
 * The delivery half of the pipeline (docs/decisions/026): claims due send-history rows under a
 * lease (`FOR UPDATE SKIP LOCKED`, then lookout.notification_send_leases), sends them outside any
 * transaction, and writes the outcome only while the lease is still this process's.
 */

export type NotificationDispatcherOptions = {
  db: Db
  logger: Logger
  processId?: string
  /** Rows sent at once by this process (default 10). */
  concurrency?: number
  /** A lease lapses this long after its last renewal (renewed every leaseMs / 3; default 60 s). */
  leaseMs?: number
  /** Due rows are looked for this often besides the notifications (default 1 s). */
  pollIntervalMs?: number
  /** The deadline of one send (default 30 s; kept below the lease). */
  sendTimeoutMs?: number
  /** Retryable failures are retried this many times (default 4), after base × 2^(n-1) (default 30 s), capped at 10 min. */
  maxRetries?: number
  retryBaseMs?: number
  retryMaxMs?: number
  /** The system mail server, `smtp://user:pass@host:port` (SMTP_URL): person, team and email recipients. */
  smtpUrl?: string
  /** `Name <address>` (LOOKOUT_MAIL_FROM). */
  mailFrom?: string
  /** For permalink and silenceURL in messages (LOOKOUT_PUBLIC_URL). */
  publicUrl?: string
  /** Passed to every send (tests point services at loopback receivers). */
  baseUrls?: Partial<Record<SenderScheme, string>>
  guard?: SendOptions['guard']
}

export type NotificationDispatcherStats = { processId: string; inFlight: number; sent: number; failed: number; claimed: number; listening: boolean }

export type NotificationDispatcher = {
  readonly processId: string
  start(): Promise<void>
  stop(): Promise<void>
  /** Claims every row due now, delivers them and waits; returns how many it claimed. */
  runOnce(): Promise<number>
  wake(): void
  stats(): NotificationDispatcherStats
}

type HistoryRow = {
  id: string
  notification_id: string
  status: string
  retries: number
  payload: HistoryPayload | string
  resource_id: string
  source_event: string
  created_at: Date | string
  group_id: string | null
}

/** `connectionId`: the connection the URL came from, recorded on the send as its recipient. */
type Target = { key: string; url: string; properties: Record<string, string>; connectionId?: string }
type Outcome =
  | { status: 'sent'; body: string; connectionId?: string }
  | { status: 'skipped'; error?: string }
  | { status: 'pending_playbook_run'; runId: string; body: string }
  | { status: 'failed'; error: string; retryable: boolean; body?: string; delivered: string[]; connectionId?: string }

export const NOTIFICATION_SEND_CHANNEL = 'notification_send_updates'
const CLAIMABLE = ['pending', 'evaluating-waitfor', 'attempting_fallback']

class DeliveryError extends Error {}

function stringProperties(...sources: (Record<string, unknown> | null | undefined)[]): Record<string, string> {
  const out: Record<string, string> = {}
  for (const source of sources) {
    for (const [key, value] of Object.entries(source ?? {})) {
      if (value === undefined || value === null) continue
      out[key] = typeof value === 'string' ? value : JSON.stringify(value)
    }
  }
  return out
}

function parseMailFrom(text: string | undefined): { address: string; name?: string } {
  const value = (text ?? 'Lookout <lookout@localhost>').trim()
  const match = /^(.*)<([^>]+)>$/.exec(value)
  return match ? { name: match[1]!.trim().replace(/^"|"$/g, '') || undefined, address: match[2]!.trim() } : { address: value }
}

/** A webhook recipient (HTTP connection fields + method) as a generic Shoutrrr URL posting JSON. */
function webhookUrl(webhook: Record<string, unknown>, connectionUrl?: string): string {
  const raw = typeof webhook.url === 'string' && webhook.url !== '' ? webhook.url : connectionUrl
  if (!raw) throw new DeliveryError('webhook: no url')
  const url = new URL(raw)
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new DeliveryError(`webhook: ${url.protocol} is not an http(s) URL`)
  const username = typeof webhook.username === 'string' ? webhook.username : ''
  const password = typeof webhook.password === 'string' ? webhook.password : ''
  if (username || password) {
    url.username = encodeURIComponent(username)
    url.password = encodeURIComponent(password)
  }
  const method = typeof webhook.method === 'string' && webhook.method !== '' ? webhook.method.toUpperCase() : 'POST'
  url.searchParams.set('method', method)
  const headers: Record<string, string> = {}
  if (Array.isArray(webhook.headers)) {
    for (const header of webhook.headers as { name?: string; value?: string }[]) if (header?.name && typeof header.value === 'string') headers[header.name] = header.value
  } else if (webhook.headers && typeof webhook.headers === 'object') Object.assign(headers, stringProperties(webhook.headers as Record<string, unknown>))
  if (typeof webhook.bearer === 'string' && webhook.bearer !== '') headers.Authorization = `Bearer ${webhook.bearer}`
  for (const [name, value] of Object.entries(headers)) url.searchParams.set(`@${name}`, value)
  return `generic+${url.toString()}`
}

/** The dispatcher's job_history name: one row per round that sent or failed to send. */
export const NOTIFICATION_JOB_NAME = 'NotificationDispatch'

type DispatchRound = { started: Date; sent: number; failed: number; errors: string[] }

export function createNotificationDispatcher(options: NotificationDispatcherOptions): NotificationDispatcher {
  const { db } = options
  const processId = options.processId ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`
  const concurrency = Math.max(1, options.concurrency ?? 10)
  const leaseMs = Math.max(300, options.leaseMs ?? 60_000)
  const pollMs = Math.max(10, options.pollIntervalMs ?? 1_000)
  const sendTimeoutMs = Math.max(100, Math.min(options.sendTimeoutMs ?? 30_000, Math.floor(leaseMs / 2)))
  const maxRetries = Math.max(0, options.maxRetries ?? 4)
  const retryBaseMs = Math.max(0, options.retryBaseMs ?? 30_000)
  const retryMaxMs = Math.max(retryBaseMs, options.retryMaxMs ?? 600_000)
  const log = options.logger.child({ component: 'notification-dispatcher', processId })
  let sent = 0
  let failed = 0
  let claimedTotal = 0
  const inFlight = new Map<string, { promise: Promise<void>; abort: AbortController }>()
  // Rounds whose job row is still to be written: stop and runOnce wait for them too.
  const rounds = new Set<Promise<void>>()
  const loop = createLeasedWorkLoop({
    db,
    log,
    what: 'the notification dispatcher',
    pollMs,
    leaseMs,
    channels: [{ channel: NOTIFICATION_SEND_CHANNEL }],
    claimRound,
    renewLeases,
    // Sends in flight finish (each has its own deadline); their outcomes are written under the lease.
    drain: async () => {
      await Promise.all([...inFlight.values()].map((entry) => entry.promise))
      await Promise.all(rounds)
    },
    releaseLeases: async () => {
      await db.query('DELETE FROM lookout.notification_send_leases WHERE lease_owner = $1', [processId])
    },
  })
  const { wake, wakeAt } = loop

  async function claim(room: number): Promise<HistoryRow[]> {
    return db.transaction(async (tx) => {
      const { rows } = await tx.query<HistoryRow>(
        `SELECT h.id, h.notification_id, h.status, h.retries, h.payload, h.resource_id, h.source_event, h.created_at, h.group_id
         FROM notification_send_history h LEFT JOIN lookout.notification_send_leases l ON l.history_id = h.id
         WHERE h.status = ANY($1::text[]) AND coalesce(h.not_before, h.created_at) <= now()
           AND (l.lease_until IS NULL OR l.lease_until < now())
           AND h.id <> ALL($3::uuid[])
         ORDER BY coalesce(h.not_before, h.created_at)
         LIMIT $2
         FOR UPDATE OF h SKIP LOCKED`,
        [CLAIMABLE, room, [...inFlight.keys()]],
      )
      const claimed: HistoryRow[] = []
      for (const row of rows) {
        // The lease is the arbiter, re-checked on the newest row whatever the snapshot above saw.
        const { rows: leased } = await tx.query(
          `INSERT INTO lookout.notification_send_leases (history_id, lease_owner, lease_until) VALUES ($1, $2, now() + $3 * interval '1 millisecond')
           ON CONFLICT (history_id) DO UPDATE SET lease_owner = EXCLUDED.lease_owner, lease_until = EXCLUDED.lease_until
           WHERE notification_send_leases.lease_until < now()
           RETURNING history_id`,
          [row.id, processId, leaseMs],
        )
        if (leased[0]) claimed.push(row)
      }
      return claimed
    })
  }

  /** Settles playbook dispatches from their runs: running → pending_playbook_completion, completed → sent, else error. */
  async function settlePlaybookRuns(): Promise<void> {
    await db.query(
      `UPDATE notification_send_history h
       SET status = CASE WHEN r.status = 'completed' THEN 'sent'
                         WHEN r.status IN ('failed', 'cancelled', 'timed_out') THEN 'error'
                         ELSE 'pending_playbook_completion' END,
           error = CASE WHEN r.status IN ('failed', 'cancelled', 'timed_out') THEN coalesce(r.error, 'playbook run ' || r.status) ELSE h.error END
       FROM playbook_runs r
       WHERE h.playbook_run_id = r.id AND h.status IN ('pending_playbook_run', 'pending_playbook_completion')
         AND (r.status IN ('completed', 'failed', 'cancelled', 'timed_out') OR (h.status = 'pending_playbook_run' AND r.status <> 'scheduled'))`,
    )
  }

  async function claimRound(): Promise<{ claimed: number; full: boolean } | null> {
    const room = concurrency - inFlight.size
    if (room <= 0) return null
    await settlePlaybookRuns()
    const rows = await claim(room)
    claimedTotal += rows.length
    const round: DispatchRound = { started: new Date(), sent: 0, failed: 0, errors: [] }
    for (const row of rows) {
      const abort = new AbortController()
      const entry = {
        abort,
        promise: deliver(row, abort.signal, round)
          .catch((error: unknown) => log.error({ err: error, history: row.id }, 'notification delivery failed unexpectedly'))
          .finally(() => {
            inFlight.delete(row.id)
            wake()
          }),
      }
      inFlight.set(row.id, entry)
    }
    if (rows.length > 0) {
      const promises = rows.map((row) => inFlight.get(row.id)?.promise)
      const recorded = Promise.all(promises)
        .then(() => recordRound(round))
        .finally(() => rounds.delete(recorded))
      rounds.add(recorded)
    }
    return { claimed: rows.length, full: rows.length === room }
  }

  /**
   * One job_history row per dispatch round that tried to send something; polls that found
   * nothing, and rounds that only skipped, leave no row (a row a second would bury the others).
   */
  async function recordRound(round: DispatchRound): Promise<void> {
    if (round.sent + round.failed === 0) return
    const status = round.failed === 0 ? 'SUCCESS' : round.sent === 0 ? 'FAILED' : 'WARNING'
    const details = round.errors.length > 0 ? { errors: round.errors.slice(0, 20) } : {}
    await db
      .query(
        `INSERT INTO job_history (name, status, success_count, error_count, details, hostname, time_start, time_end, duration_millis)
         VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, now(), $8)`,
        [NOTIFICATION_JOB_NAME, status, round.sent, round.failed, JSON.stringify(details), hostname(), round.started.toISOString(), Date.now() - round.started.getTime()],
      )
      .catch((error: unknown) => log.warn({ err: error }, 'recording the notification job history failed'))
  }

  // ---- recipients ---------------------------------------------------------------------------

  function mailUrl(addresses: string[]): string {
    if (!options.smtpUrl) throw new DeliveryError('no mail server is configured (SMTP_URL) for e-mail recipients')
    const url = new URL(options.smtpUrl)
    const from = parseMailFrom(options.mailFrom)
    url.searchParams.set('fromaddress', from.address)
    if (from.name) url.searchParams.set('fromname', from.name)
    url.searchParams.set('toaddresses', addresses.join(','))
    return url.toString()
  }

  async function serviceTarget(q: Queryable, service: CustomService, key: string, rule: NotificationRuleRow, context: NotificationContext): Promise<Target | null> {
    if (service.filter && service.filter.trim() !== '') {
      try {
        const value = evaluateCel(service.filter, context.env)
        if (value !== true && value !== 'true') return null
      } catch (error) {
        if (error instanceof ExpressionError) throw new DeliveryError(`${key} filter: ${error.message}`)
        throw error
      }
    }
    const properties = stringProperties(service.properties)
    if (service.url) return { key, url: service.url, properties }
    if (service.email) return { key, url: mailUrl(service.email.split(',').map((part) => part.trim()).filter(Boolean)), properties }
    if (service.connection || (service.webhook && typeof service.webhook.connection === 'string')) {
      const reference = service.connection ?? String(service.webhook!.connection)
      const connection = await findConnection(q, reference, rule.namespace ?? 'default')
      if (!connection) throw new DeliveryError(`connection ${reference} was not found`)
      const url = renderFieldTemplate(connection.url ?? '', { username: connection.username ?? '', password: connection.password ?? '', name: connection.name, namespace: connection.namespace })
      if (service.webhook) return { key, url: webhookUrl({ username: connection.username, password: connection.password, ...service.webhook }, url), properties, connectionId: connection.id }
      if (!url) throw new DeliveryError(`connection ${reference} has no URL`)
      // An HTTP connection is a webhook; a notification connection holds its Shoutrrr URL.
      const target = /^https?:\/\//i.test(url) ? webhookUrl({ username: connection.username, password: connection.password }, url) : url
      return { key, url: target, properties: { ...stringProperties(connection.properties), ...properties }, connectionId: connection.id }
    }
    if (service.webhook) return { key, url: webhookUrl(service.webhook), properties }
    throw new DeliveryError(`${key}: no url, connection, email or webhook`)
  }

  async function personTarget(q: Queryable, personId: string, key: string, rule: NotificationRuleRow): Promise<Target> {
    const { rows } = await q.query<{ email: string | null; name: string }>('SELECT email, name FROM people WHERE id = $1 AND deleted_at IS NULL', [personId])
    const email = rows[0]?.email
    if (!email) throw new DeliveryError(rows[0] ? `person ${rows[0].name} has no e-mail address` : `person ${personId} was not found`)
    return { key, url: mailUrl([email]), properties: stringProperties(rule.properties) }
  }

  async function teamTargets(q: Queryable, teamId: string, key: string, rule: NotificationRuleRow, context: NotificationContext): Promise<Target[]> {
    const { rows } = await q.query<{ name: string; spec: { notifications?: CustomService[] } | null }>('SELECT name, spec FROM teams WHERE id = $1 AND deleted_at IS NULL', [teamId])
    const team = rows[0]
    if (!team) throw new DeliveryError(`team ${teamId} was not found`)
    const targets: Target[] = []
    const services = Array.isArray(team.spec?.notifications) ? team.spec.notifications : []
    for (const [index, service] of services.entries()) {
      const target = await serviceTarget(q, service, `${key}:spec:${index}`, rule, context)
      if (target) targets.push(target)
    }
    const { rows: members } = await q.query<{ email: string }>(
      `SELECT p.email FROM team_members tm JOIN people p ON p.id = tm.person_id
       WHERE tm.team_id = $1 AND p.deleted_at IS NULL AND p.email IS NOT NULL AND p.email <> '' ORDER BY p.email`,
      [teamId],
    )
    // Members are mailed when a mail server is set; a team reached only through its spec notifications needs none.
    if (members.length > 0 && (options.smtpUrl || services.length === 0)) targets.push({ key: `${key}:members`, url: mailUrl(members.map((m) => m.email)), properties: {} })
    if (targets.length === 0 && services.length === 0) throw new DeliveryError(`team ${team.name} has no member with an e-mail address and no spec notifications`)
    return targets
  }

  type Recipients = { targets: Target[]; playbookId?: string }

  async function primaryRecipients(rule: NotificationRuleRow, payload: HistoryPayload, context: NotificationContext): Promise<Recipients> {
    const recipient = payload.recipient
    switch (recipient.kind) {
      case 'person':
        return { targets: [await personTarget(db, recipient.personId, recipient.key, rule)] }
      case 'team':
        return { targets: await teamTargets(db, recipient.teamId, recipient.key, rule, context) }
      case 'playbook':
        return { targets: [], playbookId: recipient.playbookId }
      case 'custom': {
        const service = (rule.custom_services ?? [])[recipient.index]
        if (!service) throw new DeliveryError(`recipient ${recipient.key} is no longer in the rule`)
        const target = await serviceTarget(db, service, recipient.key, rule, context)
        return { targets: target ? [target] : [] }
      }
    }
  }

  async function fallbackRecipients(rule: NotificationRuleRow, context: NotificationContext): Promise<Recipients> {
    const targets: Target[] = []
    if (rule.fallback_person_id) targets.push(await personTarget(db, rule.fallback_person_id, `fallback:person:${rule.fallback_person_id}`, rule))
    if (rule.fallback_team_id) targets.push(...(await teamTargets(db, rule.fallback_team_id, `fallback:team:${rule.fallback_team_id}`, rule, context)))
    for (const [index, service] of (rule.fallback_custom_services ?? []).entries()) {
      const target = await serviceTarget(db, service, `fallback:custom:${index}`, rule, context)
      if (target) targets.push(target)
    }
    return { targets, playbookId: rule.fallback_playbook_id ?? undefined }
  }

  function hasFallback(rule: NotificationRuleRow): boolean {
    return !!(rule.fallback_person_id || rule.fallback_team_id || rule.fallback_playbook_id || (rule.fallback_custom_services ?? []).length > 0)
  }

  // ---- one delivery -------------------------------------------------------------------------

  async function render(rule: NotificationRuleRow, row: HistoryRow, context: NotificationContext): Promise<{ title: string; body: string }> {
    if (row.group_id) {
      const { rows } = await db.query<{ name: string }>(
        `SELECT coalesce(ci.name, c.name, co.name) AS name FROM notification_group_resources g
         LEFT JOIN config_items ci ON ci.id = g.config_id LEFT JOIN checks c ON c.id = g.check_id LEFT JOIN components co ON co.id = g.component_id
         WHERE g.group_id = $1 AND g.resolved_at IS NULL ORDER BY g.created_at`,
        [row.group_id],
      )
      context.env.groupedResources = rows.map((r) => r.name)
    }
    const event = row.source_event
    try {
      return {
        title: renderGoTemplate(rule.title?.trim() ? rule.title : defaultTitle(event), context.env).trim(),
        body: renderGoTemplate(rule.template?.trim() ? rule.template : defaultBody(event), context.env).trim(),
      }
    } catch (error) {
      throw new DeliveryError(`template: ${(error as Error).message}`)
    }
  }

  async function attempt(rule: NotificationRuleRow, row: HistoryRow, payload: HistoryPayload, context: NotificationContext, fallback: boolean, signal: AbortSignal): Promise<Outcome> {
    const alreadyDelivered = (fallback ? payload.fallbackDelivered : payload.delivered) ?? []
    let body: string | undefined
    try {
      const message = await render(rule, row, context)
      body = message.body
      const recipients = fallback ? await fallbackRecipients(rule, context) : await primaryRecipients(rule, payload, context)
      if (recipients.playbookId) {
        const kind = context.resource.kind
        const created = await createPlaybookRun(
          db,
          { playbookId: recipients.playbookId, ...(kind === 'incident' ? {} : { [`${kind}Id`]: context.resource.id }) },
          { kind: 'system', reason: 'notification' },
          { matchSelectors: false },
        )
        return { status: 'pending_playbook_run', runId: created.run_id, body }
      }
      if (recipients.targets.length === 0) return { status: 'skipped', error: 'no recipient matched (every filter was false)' }
      const delivered = [...alreadyDelivered]
      const errors: string[] = []
      let retryable = false
      for (const target of recipients.targets) {
        if (delivered.includes(target.key)) continue
        try {
          await sendNotification(
            target.url,
            { title: message.title, message: message.body, properties: target.properties },
            { signal, timeoutMs: sendTimeoutMs, baseUrls: options.baseUrls, guard: options.guard },
          )
          delivered.push(target.key)
        } catch (error) {
          if (!(error instanceof NotificationSendError)) throw error
          errors.push(error.message)
          retryable ||= error.retryable
        }
      }
      const connectionId = recipients.targets.find((target) => target.connectionId)?.connectionId
      if (errors.length === 0) return { status: 'sent', body, connectionId }
      return { status: 'failed', error: clip(errors.join('; ')), retryable, body, delivered, connectionId }
    } catch (error) {
      if (error instanceof DeliveryError) return { status: 'failed', error: clip(error.message), retryable: false, body, delivered: alreadyDelivered }
      const message = error instanceof Error ? error.message : String(error)
      // A playbook that refuses the run, a resource that vanished mid-way: the rule's matter, not worth retrying.
      if (error && typeof error === 'object' && 'status' in error && typeof (error as { status: unknown }).status === 'number') {
        return { status: 'failed', error: clip(message), retryable: false, body, delivered: alreadyDelivered }
      }
      return { status: 'failed', error: clip(message), retryable: true, body, delivered: alreadyDelivered }
    }
  }

  /** Writes the outcome if this process still holds the row's lease; false when another took it over. */
  async function finish(row: HistoryRow, fn: (tx: Queryable) => Promise<void>): Promise<boolean> {
    return db.transaction(async (tx) => {
      // The history row first, then its lease: the order claim() takes them in. The other order
      // deadlocks with a claim whose snapshot predates our lease (it holds the row, then waits on
      // our deleted lease); when this side was the victim, the row kept a lease nobody renewed
      // and was sent again once it lapsed.
      await tx.query('SELECT 1 FROM notification_send_history WHERE id = $1 FOR UPDATE', [row.id])
      const { rows } = await tx.query('DELETE FROM lookout.notification_send_leases WHERE history_id = $1 AND lease_owner = $2 RETURNING history_id', [row.id, processId])
      if (rows.length === 0) {
        log.warn({ history: row.id }, 'lost the lease of a notification send; leaving it to its new holder')
        return false
      }
      await fn(tx)
      return true
    })
  }

  async function deliver(row: HistoryRow, signal: AbortSignal, round?: DispatchRound): Promise<void> {
    const started = Date.now()
    const payload: HistoryPayload = typeof row.payload === 'string' ? (JSON.parse(row.payload) as HistoryPayload) : row.payload
    const { rows: rules } = await db.query<NotificationRuleRow>(`SELECT ${RULE_COLUMNS} FROM notifications WHERE id = $1`, [row.notification_id])
    const rule = rules[0]
    const skip = (error: string) => finish(row, (tx) => tx.query(`UPDATE notification_send_history SET status = 'skipped', error = $2 WHERE id = $1`, [row.id, error]).then(() => undefined))
    if (!rule || rule.deleted_at) {
      await skip('the notification was deleted before it was sent')
      return
    }
    // A row this pipeline did not write (older data, another version) may carry no event to render.
    if (typeof payload?.event?.name !== 'string') {
      await finish(row, (tx) =>
        tx.query(`UPDATE notification_send_history SET status = 'error', error = $2 WHERE id = $1`, [row.id, 'this send was not queued by this pipeline (its payload names no event and recipient), so it cannot be delivered']).then(() => undefined),
      )
      return
    }
    const context = await loadNotificationContext(db, payload.event, { publicUrl: options.publicUrl })
    if (!context) {
      await skip('the resource no longer exists')
      return
    }
    if (row.status === 'evaluating-waitfor') {
      // waitFor (§3.1): send only if the resource is still in the state the event reported.
      const expected = HEALTH_EVENTS[row.source_event]
      if (expected && context.resource.health !== expected) {
        await finish(row, async (tx) => {
          await tx.query(`UPDATE notification_send_history SET status = 'skipped', resource_health = $2, resource_status = $3, error = NULL WHERE id = $1`, [
            row.id,
            context.resource.health,
            context.resource.status,
          ])
        })
        return
      }
    }
    const fallback = row.status === 'attempting_fallback'
    const outcome = await attempt(rule, row, payload, context, fallback, signal)
    const duration = Date.now() - started
    let nextAt = null as Date | null
    const written = await finish(row, async (tx) => {
      switch (outcome.status) {
        case 'sent':
          await tx.query(
            `UPDATE notification_send_history SET status = 'sent', body = $2, error = NULL, duration_millis = $3, connection_id = coalesce($4, connection_id) WHERE id = $1`,
            [row.id, outcome.body, duration, outcome.connectionId ?? null],
          )
          await tx.query('UPDATE notifications SET error = NULL, error_at = NULL WHERE id = $1 AND error IS NOT NULL', [rule.id])
          return
        case 'skipped':
          await tx.query(`UPDATE notification_send_history SET status = 'skipped', error = $2, duration_millis = $3 WHERE id = $1`, [row.id, outcome.error ?? null, duration])
          return
        case 'pending_playbook_run':
          await tx.query(`UPDATE notification_send_history SET status = 'pending_playbook_run', playbook_run_id = $2, body = $3, duration_millis = $4 WHERE id = $1`, [
            row.id,
            outcome.runId,
            outcome.body,
            duration,
          ])
          return
        case 'failed': {
          const retries = row.retries + 1
          const backoff = Math.min(retryBaseMs * 2 ** (retries - 1), retryMaxMs)
          const nextTry = new Date(Date.now() + backoff)
          const deliveredKey = fallback ? 'fallbackDelivered' : 'delivered'
          const newPayload = JSON.stringify({ ...payload, [deliveredKey]: outcome.delivered })
          let status: string
          if (fallback) {
            status = outcome.retryable && retries <= maxRetries ? 'attempting_fallback' : 'error'
            nextAt = status === 'attempting_fallback' ? nextTry : null
          } else if (hasFallback(rule)) {
            // fallback.delay (§3.1) counts from the dispatch: retries go on until then, the fallback after it.
            const fallbackAt = new Date(new Date(row.created_at).getTime() + nanosToMs(rule.fallback_delay))
            if (outcome.retryable && retries <= maxRetries && nextTry < fallbackAt) {
              status = 'pending'
              nextAt = nextTry
            } else {
              status = 'attempting_fallback'
              nextAt = fallbackAt.getTime() > Date.now() ? fallbackAt : new Date()
            }
          } else {
            status = outcome.retryable && retries <= maxRetries ? 'pending' : 'error'
            nextAt = status === 'pending' ? nextTry : null
          }
          await tx.query(
            `UPDATE notification_send_history SET status = $2, error = $3, retries = $4, not_before = $5, payload = $6::jsonb, body = coalesce($7, body), duration_millis = $8,
               connection_id = coalesce($9, connection_id)
             WHERE id = $1`,
            [row.id, status, outcome.error, status === 'error' ? row.retries : retries, nextAt ? nextAt.toISOString() : null, newPayload, outcome.body ?? null, duration, outcome.connectionId ?? null],
          )
          await recordRuleError(tx, rule.id, outcome.error)
          return
        }
      }
    })
    if (!written) return
    if (outcome.status === 'sent') {
      sent += 1
      if (round) round.sent += 1
    }
    if (outcome.status === 'failed') {
      failed += 1
      if (round) {
        round.failed += 1
        round.errors.push(`${rule.name}: ${outcome.error}`)
      }
      log.warn({ history: row.id, notification: rule.name, error: outcome.error, next: nextAt?.toISOString() ?? null }, 'notification send failed')
    }
    if (nextAt) wakeAt(nextAt)
  }

  async function renewLeases(): Promise<void> {
    if (inFlight.size === 0) return
    await db
      .query(`UPDATE lookout.notification_send_leases SET lease_until = now() + $2 * interval '1 millisecond' WHERE lease_owner = $1 AND history_id = ANY($3::uuid[])`, [
        processId,
        leaseMs,
        [...inFlight.keys()],
      ])
      .catch((error: unknown) => log.warn({ err: error }, 'renewing notification leases failed'))
  }

  async function runOnce(): Promise<number> {
    let total = 0
    for (;;) {
      const count = await loop.claimNow()
      await Promise.all([...inFlight.values()].map((entry) => entry.promise))
      await Promise.all(rounds)
      total += count
      if (count === 0) return total
    }
  }

  return {
    processId,
    start: loop.start,
    stop: loop.stop,
    runOnce,
    wake,
    stats: () => ({ processId, inFlight: inFlight.size, sent, failed, claimed: claimedTotal, listening: loop.listening() }),
  }
}
