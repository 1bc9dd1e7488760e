import type { CustomService, Inhibition } from '#contract/notifications/notification-rule-row.ts'
import { createHash } from 'node:crypto'
import type { Logger } from 'pino'
import { parseDurationMs } from '#contract/canary/duration.ts'
import type { Db, Queryable } from '#server/db/client.ts'
import type { EventContext, EventHandlers, QueuedEvent } from '#server/backend/events/event-consumer.ts'
import { evaluateCel, ExpressionError } from '#server/backend/health/expressions.ts'
import { HEALTH_EVENTS, loadNotificationContext, NOTIFICATION_EVENTS, type NotificationContext, type NotificationEvent, type NotificationResource } from './notification-context.ts'
import { createLineage, createSilenceMatcher, scopeOfSilence, type SilenceRowScope } from './silence-coverage.ts'

/**
 * Rule matching (resource-specs §3.1, §3.2): for each queued event, the live rules naming it
 * whose CEL `filter` holds each get one `notification_send_history` row per recipient, written
 * in the event's own transaction. The row is `pending` (the dispatcher sends it), or settled at
 * once when the reference says so: `silenced`, `inhibited`, `repeat-interval`, `grouped`; with
 * `waitFor` on a health event it is `evaluating-waitfor` until the delay is over.
 */

export type NotificationRuleRow = {
  id: string
  name: string
  namespace: string | null
  events: string[]
  title: string | null
  template: string | null
  filter: string | null
  properties: Record<string, unknown> | null
  playbook_id: string | null
  person_id: string | null
  team_id: string | null
  repeat_interval: string | null
  inhibitions: Inhibition[] | null
  wait_for: string | number | null
  group_by: string[] | null
  group_by_interval: string | number | null
  custom_services: CustomService[] | null
  fallback_delay: string | number | null
  fallback_custom_services: CustomService[] | null
  fallback_playbook_id: string | null
  fallback_person_id: string | null
  fallback_team_id: string | null
  deleted_at: Date | string | null
}

export type { CustomService, Inhibition } from '#contract/notifications/notification-rule-row.ts'

/** Who one history row goes to; `key` tells repeats of the same recipient apart. */
export type RecipientRef =
  | { kind: 'person'; key: string; personId: string }
  | { kind: 'team'; key: string; teamId: string }
  | { kind: 'custom'; key: string; index: number }
  | { kind: 'playbook'; key: string; playbookId: string }

export type HistoryPayload = {
  event: NotificationEvent
  recipient: RecipientRef
  /** Targets already delivered by an earlier attempt of this row (not sent again on retry). */
  delivered?: string[]
  /** Keys of the fallback targets already delivered. */
  fallbackDelivered?: string[]
}

export const RULE_COLUMNS = `id, name, namespace, events, title, template, filter, properties, playbook_id, person_id, team_id, repeat_interval,
  inhibitions, wait_for, group_by, group_by_interval, custom_services, fallback_delay, fallback_custom_services, fallback_playbook_id,
  fallback_person_id, fallback_team_id, deleted_at`

/** Statuses that mean "this recipient was (or is being) told": a repeat within the interval is suppressed. */
export const TOLD_STATUSES = ['sent', 'pending', 'evaluating-waitfor', 'attempting_fallback', 'pending_playbook_run', 'pending_playbook_completion']

const NS_PER_MS = 1_000_000
const DEFAULT_UNSENT_WINDOW_MS = 60 * 60_000
const DEFAULT_GROUP_INTERVAL_MS = 24 * 60 * 60_000
const DEFAULT_INHIBITION_DEPTH = 5
const ERROR_LIMIT = 4_000

export function nanosToMs(value: string | number | null | undefined): number {
  const n = Number(value ?? 0)
  return Number.isFinite(n) && n > 0 ? Math.round(n / NS_PER_MS) : 0
}

export function clip(text: string): string {
  return text.length > ERROR_LIMIT ? `${text.slice(0, ERROR_LIMIT)}…` : text
}

/** A configuration error of the rule, shown on the rules page (cleared on the next success). */
export async function recordRuleError(q: Queryable, ruleId: string, error: string): Promise<void> {
  await q.query('UPDATE notifications SET error = $2, error_at = now() WHERE id = $1 AND error IS DISTINCT FROM $2', [ruleId, clip(error)])
}

export function recipientsOf(rule: Pick<NotificationRuleRow, 'person_id' | 'team_id' | 'custom_services' | 'playbook_id'>): RecipientRef[] {
  const recipients: RecipientRef[] = []
  if (rule.person_id) recipients.push({ kind: 'person', key: `person:${rule.person_id}`, personId: rule.person_id })
  if (rule.team_id) recipients.push({ kind: 'team', key: `team:${rule.team_id}`, teamId: rule.team_id })
  const services = Array.isArray(rule.custom_services) ? rule.custom_services : []
  services.forEach((service, index) => recipients.push({ kind: 'custom', key: `custom:${index}:${service?.name ?? ''}`, index }))
  if (rule.playbook_id) recipients.push({ kind: 'playbook', key: `playbook:${rule.playbook_id}`, playbookId: rule.playbook_id })
  return recipients
}

function celTrue(value: unknown): boolean {
  return value === true || value === 'true'
}

type Silence = SilenceRowScope & { id: string }

/**
 * The first active silence covering this resource (§3.2), as silence-coverage.ts decides it for
 * the preview too. A filter that does not evaluate is written to the silence.
 */
export async function findSilence(tx: Queryable, context: NotificationContext, log: Logger): Promise<string | null> {
  const { rows } = await tx.query<Silence>(
    `SELECT id, filter, selectors, recursive, config_id, check_id, canary_id, component_id FROM notification_silences
     WHERE deleted_at IS NULL AND ("from" IS NULL OR "from" <= now()) AND (until IS NULL OR until > now())
     ORDER BY created_at, id`,
  )
  // One walk up the resource's parents and relationships, whichever silences ask for it.
  const lineage = createLineage(tx)
  for (const silence of rows) {
    const verdict = await createSilenceMatcher(tx, scopeOfSilence(silence), lineage).matches(context)
    if (verdict.error !== undefined) {
      await tx.query('UPDATE notification_silences SET error = $2 WHERE id = $1 AND error IS DISTINCT FROM $2', [silence.id, clip(verdict.error)])
      log.warn({ silence: silence.id, reason: verdict.error }, 'silence filter failed')
      continue
    }
    if (verdict.covered) return silence.id
  }
  return null
}

/** Configs related to `id` by the inhibition's direction: hard links are the parent tree, soft ones config_relationships. */
async function relatedConfigs(tx: Queryable, id: string, inhibition: Inhibition): Promise<string[]> {
  const depth = Math.max(1, Math.min(20, inhibition.depth ?? DEFAULT_INHIBITION_DEPTH))
  const direction = inhibition.direction ?? 'all'
  const up = direction === 'incoming' || direction === 'all'
  const down = direction === 'outgoing' || direction === 'all'
  const soft = inhibition.soft === true
  const { rows } = await tx.query<{ id: string }>(
    `WITH RECURSIVE walk(id, depth) AS (
       SELECT $1::uuid, 0
       UNION
       SELECT n.id, w.depth + 1 FROM walk w
       CROSS JOIN LATERAL (
         SELECT parent_id AS id FROM config_items WHERE $3 AND id = w.id AND parent_id IS NOT NULL
         UNION ALL SELECT id FROM config_items WHERE $4 AND parent_id = w.id
         UNION ALL SELECT config_id FROM config_relationships WHERE $5 AND $3 AND related_id = w.id AND deleted_at IS NULL
         UNION ALL SELECT related_id FROM config_relationships WHERE $5 AND $4 AND config_id = w.id AND deleted_at IS NULL) n
       WHERE w.depth < $2)
     SELECT DISTINCT id FROM walk WHERE id <> $1::uuid`,
    [id, depth, up, down, soft],
  )
  return rows.map((row) => row.id)
}

/**
 * Inhibitions (§3.1): a config of type `from` is not notified while a related config of a type
 * in `to` was notified by the same rule within the window. Returns the row that inhibits.
 */
async function findInhibitor(tx: Queryable, rule: NotificationRuleRow, resource: NotificationResource, windowMs: number): Promise<string | null> {
  if (resource.kind !== 'config' || !Array.isArray(rule.inhibitions)) return null
  for (const inhibition of rule.inhibitions) {
    if (!inhibition || inhibition.from !== resource.type || !Array.isArray(inhibition.to) || inhibition.to.length === 0) continue
    const related = await relatedConfigs(tx, resource.id, inhibition)
    if (related.length === 0) continue
    const { rows } = await tx.query<{ id: string }>(
      `SELECT h.id FROM notification_send_history h JOIN config_items ci ON ci.id = h.resource_id
       WHERE h.notification_id = $1 AND h.resource_id = ANY($2::uuid[]) AND ci.type = ANY($3::text[])
         AND h.status = ANY($4::text[]) AND h.parent_id IS NULL AND h.created_at > now() - $5 * interval '1 millisecond'
       ORDER BY h.created_at DESC LIMIT 1`,
      [rule.id, related, inhibition.to, TOLD_STATUSES, windowMs],
    )
    if (rows[0]) return rows[0].id
  }
  return null
}

function groupValue(field: string, resource: NotificationResource): string {
  if (field.startsWith('label:')) return String(resource.labels[field.slice(6)] ?? '')
  if (field.startsWith('tag:')) return String(resource.tags[field.slice(4)] ?? '')
  if (field === 'type') return resource.type ?? ''
  if (field === 'description') return resource.description ?? ''
  if (field === 'status_reason') return resource.statusReason ?? ''
  return ''
}

type Settlement = { status: string; notBefore?: Date; silencedBy?: string; parentId?: string; groupId?: string }

/** Inserts a dispatch, or counts it into a recent row of the same unsent outcome (insert_unsent_notification_to_history). */
async function writeDispatch(tx: Queryable, rule: NotificationRuleRow, context: NotificationContext, payload: HistoryPayload, settlement: Settlement, windowMs: number): Promise<void> {
  const { resource } = context
  const recipient = payload.recipient
  const unsent = ['silenced', 'inhibited', 'repeat-interval', 'grouped'].includes(settlement.status)
  if (unsent) {
    const { rowCount } = await tx.query(
      `UPDATE notification_send_history SET count = count + 1, resource_health = $6, resource_status = $7
       WHERE id = (SELECT id FROM notification_send_history
         WHERE notification_id = $1 AND resource_id = $2 AND source_event = $3 AND status = $4 AND payload -> 'recipient' ->> 'key' = $5
           AND created_at > now() - $8 * interval '1 millisecond'
         ORDER BY created_at DESC LIMIT 1)`,
      [rule.id, resource.id, payload.event.name, settlement.status, recipient.key, resource.health, resource.status, windowMs],
    )
    if (rowCount > 0) return
  }
  await tx.query(
    `INSERT INTO notification_send_history (notification_id, status, not_before, payload, source_event, resource_id, resource_health, resource_status,
       resource_health_description, person_id, team_id, silenced_by, parent_id, group_id)
     VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
    [
      rule.id,
      settlement.status,
      settlement.notBefore ? settlement.notBefore.toISOString() : null,
      JSON.stringify(payload),
      payload.event.name,
      resource.id,
      resource.health,
      resource.status,
      resource.healthDescription,
      recipient.kind === 'person' ? recipient.personId : null,
      recipient.kind === 'team' ? recipient.teamId : null,
      settlement.silencedBy ?? null,
      settlement.parentId ?? null,
      settlement.groupId ?? null,
    ],
  )
}

/** groupBy (§3.1): the rule's open group for these values, made when there is none; `joined` when it already existed. */
async function joinGroup(tx: Queryable, rule: NotificationRuleRow, resource: NotificationResource): Promise<{ groupId: string; joined: boolean } | null> {
  const fields = Array.isArray(rule.group_by) ? rule.group_by.filter((field) => typeof field === 'string' && field !== '') : []
  if (fields.length === 0) return null
  const hash = createHash('sha256')
    .update(JSON.stringify([resource.kind, ...fields.map((field) => [field, groupValue(field, resource)])]))
    .digest('hex')
  const intervalMs = nanosToMs(rule.group_by_interval) || DEFAULT_GROUP_INTERVAL_MS
  // Serialises two events of one group in two processes: the second waits and then sees the group.
  await tx.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`notification-group:${rule.id}:${hash}`])
  const { rows } = await tx.query<{ id: string }>(
    `SELECT id FROM notification_groups WHERE notification_id = $1 AND hash = $2 AND created_at > now() - $3 * interval '1 millisecond'
     ORDER BY created_at DESC LIMIT 1`,
    [rule.id, hash, intervalMs],
  )
  let groupId = rows[0]?.id
  const joined = groupId !== undefined
  if (!groupId) {
    groupId = (await tx.query<{ id: string }>('INSERT INTO notification_groups (hash, notification_id) VALUES ($1, $2) RETURNING id', [hash, rule.id])).rows[0]!.id
  }
  if (resource.kind !== 'incident') {
    await tx.query(
      `INSERT INTO notification_group_resources (group_id, config_id, check_id, component_id) VALUES ($1, $2, $3, $4)
       ON CONFLICT DO NOTHING`,
      [groupId, resource.kind === 'config' ? resource.id : null, resource.kind === 'check' ? resource.id : null, resource.kind === 'component' ? resource.id : null],
    )
  }
  return { groupId, joined }
}

async function recentlyTold(tx: Queryable, rule: NotificationRuleRow, resource: NotificationResource, eventName: string, key: string, windowMs: number): Promise<boolean> {
  const { rows } = await tx.query(
    `SELECT 1 FROM notification_send_history
     WHERE notification_id = $1 AND resource_id = $2 AND source_event = $3 AND payload -> 'recipient' ->> 'key' = $4
       AND status = ANY($5::text[]) AND created_at > now() - $6 * interval '1 millisecond' LIMIT 1`,
    [rule.id, resource.id, eventName, key, TOLD_STATUSES, windowMs],
  )
  return rows.length > 0
}

export type NotificationHandlerOptions = { publicUrl?: string }

/** Event handlers (event-consumer.ts) for every event a Notification may name. Combine with others through mergeEventHandlers. */
export function createNotificationHandlers(_db: Db, logger: Logger, options: NotificationHandlerOptions = {}): EventHandlers {
  const log = logger.child({ component: 'notification-rules' })

  async function onEvent(queued: QueuedEvent, { tx }: EventContext): Promise<void> {
    const { rows: rules } = await tx.query<NotificationRuleRow>(
      `SELECT ${RULE_COLUMNS} FROM notifications WHERE deleted_at IS NULL AND $1 = ANY(events) ORDER BY name, id`,
      [queued.name],
    )
    if (rules.length === 0) return
    const event: NotificationEvent = {
      id: queued.id,
      name: queued.name,
      eventId: queued.eventId,
      properties: queued.properties,
      createdAt: queued.createdAt.toISOString(),
    }
    const context = await loadNotificationContext(tx, event, options)
    if (!context) return
    let silence: string | null | undefined
    for (const rule of rules) {
      const filter = rule.filter?.trim() ?? ''
      if (filter !== '') {
        try {
          if (!celTrue(evaluateCel(filter, context.env))) continue
        } catch (error) {
          if (!(error instanceof ExpressionError)) throw error
          await recordRuleError(tx, rule.id, `filter: ${error.message}`)
          log.warn({ notification: rule.name, reason: error.message }, 'notification filter failed')
          continue
        }
      }
      const recipients = recipientsOf(rule)
      if (recipients.length === 0) {
        await recordRuleError(tx, rule.id, 'the notification has no recipient')
        continue
      }
      const repeatMs = rule.repeat_interval ? (parseDurationMs(rule.repeat_interval) ?? 0) : 0
      const windowMs = repeatMs || DEFAULT_UNSENT_WINDOW_MS
      silence ??= await findSilence(tx, context, log)
      const inhibitor = silence ? null : await findInhibitor(tx, rule, context.resource, windowMs)
      const group = silence || inhibitor ? null : await joinGroup(tx, rule, context.resource)
      const waitMs = HEALTH_EVENTS[event.name] ? nanosToMs(rule.wait_for) : 0
      for (const recipient of recipients) {
        const payload: HistoryPayload = { event, recipient }
        let settlement: Settlement
        if (silence) settlement = { status: 'silenced', silencedBy: silence }
        else if (inhibitor) settlement = { status: 'inhibited', parentId: inhibitor }
        else if (repeatMs > 0 && (await recentlyTold(tx, rule, context.resource, event.name, recipient.key, repeatMs))) settlement = { status: 'repeat-interval' }
        else if (group?.joined) {
          const { rows } = await tx.query<{ id: string }>(
            `SELECT id FROM notification_send_history WHERE group_id = $1 AND parent_id IS NULL AND status <> 'grouped'
               AND payload -> 'recipient' ->> 'key' = $2 ORDER BY created_at LIMIT 1`,
            [group.groupId, recipient.key],
          )
          settlement = { status: 'grouped', groupId: group.groupId, parentId: rows[0]?.id }
        } else if (waitMs > 0) settlement = { status: 'evaluating-waitfor', notBefore: new Date(Date.now() + waitMs), groupId: group?.groupId }
        else settlement = { status: 'pending', groupId: group?.groupId }
        await writeDispatch(tx, rule, context, payload, settlement, windowMs)
      }
    }
  }

  return Object.fromEntries(NOTIFICATION_EVENTS.map((name) => [name, onEvent]))
}
