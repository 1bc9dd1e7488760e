import type { Queryable } from '#server/db/client.ts'

/**
 * What a notification is about (resource-specs §3.1): the resource an event names, and the
 * variables its rule's `filter`, its silences' filters and its `title`/`template` see. Loaded
 * once when the event is matched and again at delivery, so a message shows the resource as it is
 * when it goes out (and `waitFor` re-reads its health).
 */

export type ResourceKind = 'check' | 'config' | 'component' | 'incident'

export type NotificationEvent = {
  /** The queue row's id (unique per event occurrence together with createdAt). */
  id: string
  name: string
  eventId: string | null
  properties: Record<string, unknown> | null
  createdAt: string
}

export type NotificationResource = {
  kind: ResourceKind
  id: string
  name: string
  type: string | null
  health: string | null
  status: string | null
  healthDescription: string | null
  canaryId: string | null
  labels: Record<string, unknown>
  tags: Record<string, unknown>
  description: string | null
  statusReason: string | null
}

export type NotificationContext = { resource: NotificationResource; env: Record<string, unknown> }

export const HEALTH_EVENTS: Record<string, string> = {
  'check.passed': 'healthy',
  'check.failed': 'unhealthy',
  ...Object.fromEntries(['healthy', 'unhealthy', 'warning', 'unknown'].flatMap((health) => [[`config.${health}`, health], [`component.${health}`, health]])),
  // degraded = unhealthy → warning (data-model §1.7): the item is now `warning`.
  'config.degraded': 'warning',
}

/** Every event a Notification may name (resource-specs §3.1). */
export const NOTIFICATION_EVENTS = [
  'check.passed',
  'check.failed',
  ...['created', 'updated', 'changed', 'deleted', 'healthy', 'unhealthy', 'warning', 'degraded', 'unknown'].map((event) => `config.${event}`),
  ...['healthy', 'unhealthy', 'warning', 'unknown'].map((event) => `component.${event}`),
  'incident.created',
  'incident.comment.added',
  ...['added', 'passed', 'regressed'].map((event) => `incident.dod.${event}`),
  ...['added', 'removed'].map((event) => `incident.responder.${event}`),
  ...['open', 'investigating', 'mitigated', 'resolved', 'closed', 'cancelled'].map((event) => `incident.status.${event}`),
]

export function resourceKindOf(eventName: string | undefined): ResourceKind | null {
  if (typeof eventName !== 'string') return null
  const prefix = eventName.split('.')[0]
  return prefix === 'check' || prefix === 'config' || prefix === 'component' || prefix === 'incident' ? prefix : null
}

type Json = Record<string, unknown>

async function one(q: Queryable, sql: string, params: unknown[]): Promise<Json | null> {
  const { rows } = await q.query<{ row: Json | null }>(sql, params)
  return rows[0]?.row ?? null
}

function stringOf(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null
}

function objectOf(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
}

/** The subject of an event: config changes name their item, incident sub-events their incident. */
function subjectIdOf(event: NotificationEvent): string | null {
  const props = event.properties ?? {}
  if (event.name === 'config.updated' || event.name === 'config.changed') return stringOf(props.config_id)
  if (event.name.startsWith('incident.') && event.name !== 'incident.created' && !event.name.startsWith('incident.status.')) return stringOf(props.incident_id)
  return event.eventId
}

/**
 * Loads the event's resource and variables; null when the resource no longer exists (nothing
 * to say about it). `links` builds permalink and silenceURL when the public URL is known.
 */
export async function loadNotificationContext(q: Queryable, event: NotificationEvent, options: { publicUrl?: string } = {}): Promise<NotificationContext | null> {
  const kind = resourceKindOf(event.name)
  const subjectId = subjectIdOf(event)
  if (!kind || !subjectId) return null
  const env: Record<string, unknown> = {
    source_event: event.name,
    event_time: event.createdAt,
    channel: '',
    new_state: HEALTH_EVENTS[event.name] ?? event.name.split('.').pop() ?? '',
    groupedResources: [],
    recent_events: [],
  }
  let resource: NotificationResource
  let agentId: string | null = null
  if (kind === 'check') {
    const check = await one(
      q,
      `SELECT to_jsonb(c) || jsonb_build_object('status', coalesce(cu.status, c.status), 'labels', coalesce(c.labels, '{}'::jsonb)) AS row
       FROM checks c LEFT JOIN checks_unlogged cu ON cu.check_id = c.id WHERE c.id = $1`,
      [subjectId],
    )
    if (!check) return null
    const canary = await one(q, `SELECT to_jsonb(ca) - 'spec' || jsonb_build_object('labels', coalesce(ca.labels, '{}'::jsonb)) AS row FROM canaries ca WHERE id = $1`, [check.canary_id])
    const status = await one(q, `SELECT to_jsonb(s) AS row FROM check_statuses s WHERE check_id = $1 ORDER BY time DESC LIMIT 1`, [subjectId])
    env.check = check
    env.canary = canary ?? {}
    env.check_status = status ?? {}
    agentId = stringOf(check.agent_id)
    const statusText = stringOf(check.status)
    resource = {
      kind,
      id: subjectId,
      name: String(check.name ?? ''),
      type: stringOf(check.type),
      health: statusText,
      status: statusText,
      healthDescription: stringOf(status?.error) ?? stringOf(status?.message),
      canaryId: stringOf(check.canary_id),
      labels: objectOf(check.labels),
      tags: {},
      description: stringOf(check.description),
      statusReason: stringOf(status?.error),
    }
  } else if (kind === 'config') {
    const config = await one(
      q,
      `SELECT to_jsonb(ci) - 'tags_values' - 'properties_values' || jsonb_build_object('labels', coalesce(ci.labels, '{}'::jsonb), 'tags', coalesce(ci.tags, '{}'::jsonb)) AS row
       FROM config_items ci WHERE id = $1`,
      [subjectId],
    )
    if (!config) return null
    env.config = config
    if (event.name === 'config.updated' || event.name === 'config.changed') {
      env.config_change = (await one(q, `SELECT to_jsonb(cc) AS row FROM config_changes cc WHERE id = $1`, [event.eventId])) ?? {}
    }
    agentId = stringOf(config.agent_id)
    resource = {
      kind,
      id: subjectId,
      name: String(config.name ?? ''),
      type: stringOf(config.type),
      health: stringOf(config.health),
      status: stringOf(config.status),
      healthDescription: stringOf(config.description),
      canaryId: null,
      labels: objectOf(config.labels),
      tags: objectOf(config.tags),
      description: stringOf(config.description),
      statusReason: stringOf(config.status),
    }
  } else if (kind === 'component') {
    const component = await one(
      q,
      `SELECT to_jsonb(co) - 'properties_values' || jsonb_build_object('labels', coalesce(co.labels, '{}'::jsonb)) AS row FROM components co WHERE id = $1`,
      [subjectId],
    )
    if (!component) return null
    env.component = component
    agentId = stringOf(component.agent_id)
    resource = {
      kind,
      id: subjectId,
      name: String(component.name ?? ''),
      type: stringOf(component.type),
      health: stringOf(component.health),
      status: stringOf(component.status),
      healthDescription: stringOf(component.status_reason) ?? stringOf(component.description),
      canaryId: null,
      labels: objectOf(component.labels),
      tags: {},
      description: stringOf(component.description),
      statusReason: stringOf(component.status_reason),
    }
  } else {
    const incident = await one(q, `SELECT to_jsonb(i) AS row FROM incidents i WHERE id = $1`, [subjectId])
    if (!incident) return null
    env.incident = incident
    if (event.name.startsWith('incident.responder.')) env.responder = (await one(q, `SELECT to_jsonb(r) AS row FROM responders r WHERE id = $1`, [event.eventId])) ?? {}
    if (event.name === 'incident.comment.added') {
      const comment = (await one(q, `SELECT to_jsonb(c) AS row FROM comments c WHERE id = $1`, [event.eventId])) ?? {}
      env.comment = comment
      env.author = (await one(q, `SELECT to_jsonb(p) - 'properties' AS row FROM people p WHERE id = $1`, [comment.created_by ?? null])) ?? {}
    }
    if (event.name.startsWith('incident.dod.')) {
      const evidence = (await one(q, `SELECT to_jsonb(e) AS row FROM evidences e WHERE id = $1`, [event.eventId])) ?? {}
      env.evidence = evidence
      env.hypothesis = (await one(q, `SELECT to_jsonb(h) AS row FROM hypotheses h WHERE id = $1`, [evidence.hypothesis_id ?? null])) ?? {}
    }
    resource = {
      kind,
      id: subjectId,
      name: String(incident.title ?? ''),
      type: stringOf(incident.type),
      health: null,
      status: stringOf(incident.status),
      healthDescription: stringOf(incident.description),
      canaryId: null,
      labels: {},
      tags: {},
      description: stringOf(incident.description),
      statusReason: null,
    }
  }
  env.agent = agentId ? ((await one(q, `SELECT to_jsonb(a) - 'tls' AS row FROM agents a WHERE id = $1`, [agentId])) ?? {}) : {}
  env.health = resource.health ?? ''
  env.status = resource.status ?? ''
  const base = options.publicUrl?.replace(/\/+$/, '')
  env.permalink = base ? `${base}${permalinkPath(resource)}` : ''
  env.silenceURL = base && kind !== 'incident' ? `${base}/notifications/silences/add?${kind}_id=${encodeURIComponent(resource.id)}` : ''
  return { resource, env }
}

function permalinkPath(resource: NotificationResource): string {
  switch (resource.kind) {
    case 'check':
      return `/health?checkId=${encodeURIComponent(resource.id)}`
    case 'config':
      return `/catalog/${encodeURIComponent(resource.id)}`
    case 'component':
      return `/topology/${encodeURIComponent(resource.id)}`
    case 'incident':
      return `/incidents/${encodeURIComponent(resource.id)}`
  }
}

/**
 * The title and body used when a rule sets none (resource-specs §3.1: "a per-event default").
 * Go templates over the same variables as the rule's own.
 */
export function defaultTitle(eventName: string): string {
  const [kind, ...rest] = eventName.split('.')
  const what = rest.join('.')
  if (kind === 'check') return what === 'failed' ? 'Check {{.check.name}} has failed' : 'Check {{.check.name}} has passed'
  if (kind === 'config') {
    if (HEALTH_EVENTS[eventName]) return `{{.config.type}} {{.config.name}} is ${what}`
    return `{{.config.type}} {{.config.name}} was ${what}`
  }
  if (kind === 'component') return `Component {{.component.name}} is ${what}`
  if (eventName === 'incident.created') return 'New incident {{.incident.incident_id}}: {{.incident.title}}'
  if (eventName === 'incident.comment.added') return 'New comment on {{.incident.incident_id}}: {{.incident.title}}'
  if (eventName.startsWith('incident.status.')) return `Incident {{.incident.incident_id}} is ${rest[1] ?? ''}: {{.incident.title}}`
  if (eventName.startsWith('incident.responder.')) return `Responder ${rest[1] ?? ''} on {{.incident.incident_id}}: {{.incident.title}}`
  if (eventName.startsWith('incident.dod.')) return `Definition of done ${rest[1] ?? ''} on {{.incident.incident_id}}: {{.incident.title}}`
  return eventName
}

export function defaultBody(eventName: string): string {
  const kind = eventName.split('.')[0]
  const links = '{{if .permalink}}\n\n[Open]({{.permalink}}){{end}}{{if .silenceURL}} · [Silence]({{.silenceURL}}){{end}}'
  if (kind === 'check') {
    return `Canary: {{.canary.name}}{{if .canary.namespace}} ({{.canary.namespace}}){{end}}\nCheck: {{.check.name}} ({{.check.type}})\nStatus: {{.check.status}}{{if .check_status.error}}\nError: {{.check_status.error}}{{end}}{{if .check_status.message}}\nMessage: {{.check_status.message}}{{end}}${links}`
  }
  if (kind === 'config') return `{{.config.type}} {{.config.name}}\nHealth: {{.config.health}}{{if .config.status}}\nStatus: {{.config.status}}{{end}}{{if .config.description}}\n{{.config.description}}{{end}}{{if .config_change.summary}}\nChange: {{.config_change.summary}}{{end}}${links}`
  if (kind === 'component') return `Component {{.component.name}}\nHealth: {{.component.health}}\nStatus: {{.component.status}}{{if .component.status_reason}}\n{{.component.status_reason}}{{end}}${links}`
  return `{{.incident.incident_id}}: {{.incident.title}}\nSeverity: {{.incident.severity}}\nStatus: {{.incident.status}}{{if .comment.comment}}\n{{.comment.comment}}{{end}}${links}`
}
