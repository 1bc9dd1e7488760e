import { PROD_CLUSTER, type CatalogRefs } from './catalog.ts'
import { DAY, HOUR, MINUTE, type Row, type SeedContext } from './context.ts'
import type { HealthRefs } from './health.ts'
import type { PeopleRefs } from './people.ts'

const NANOS_PER_SECOND = 1_000_000_000

export function buildNotifications(
  ctx: SeedContext,
  people: PeopleRefs,
  catalog: CatalogRefs,
  health: HealthRefs,
  incident: (key: string) => string,
  connection: (name: string) => string,
): { rows: Record<string, Row[]> } {
  const random = ctx.random('notifications')
  const admin = people.person('platform-lead').id
  const rule = (key: string) => ctx.id('notification', key)

  const notifications: Row[] = [
    {
      key: 'critical-checks', name: 'critical-check-failures', namespace: 'default', events: ['check.failed', 'check.passed'],
      title: '{{.check.name}} is {{if eq .check.status "healthy"}}passing again{{else}}failing{{end}}',
      filter: "check.labels.?critical.orValue('') == 'true'", team_id: people.team('platform').id, person_id: null,
      repeat_interval: '1h', wait_for: 60 * NANOS_PER_SECOND, source: 'KubernetesCRD', group_by: ['tag:namespace'],
      custom_services: null,
    },
    {
      key: 'payments-configs', name: 'payments-config-health', namespace: 'payments', events: ['config.unhealthy', 'config.warning'],
      title: '{{.config.type}} {{.config.name}} is {{.config.health}}', filter: "config.tags.?namespace.orValue('') == 'payments'",
      team_id: null, person_id: people.person('payments-oncall').id, repeat_interval: '4h', wait_for: 5 * 60 * NANOS_PER_SECOND,
      source: 'UI', group_by: null, custom_services: null,
    },
    {
      key: 'incidents', name: 'new-incidents', namespace: 'default', events: ['incident.created', 'incident.status.resolved'],
      title: '{{.incident.incident_id}}: {{.incident.title}}', filter: null,
      team_id: null, person_id: people.person('incident-manager').id, repeat_interval: null, wait_for: null,
      source: 'UI', group_by: null, custom_services: null,
    },
    {
      key: 'component-health', name: 'platform-components', namespace: 'platform', events: ['component.unhealthy', 'component.warning'],
      title: 'Component {{.component.name}} is {{.component.health}}', filter: "component.labels.?team.orValue('') == 'platform'",
      team_id: null, person_id: null, repeat_interval: '2h', wait_for: null, source: 'KubernetesCRD', group_by: null,
      custom_services: [{ name: 'team-chat', connection: 'connection://default/team-chat', properties: { channel: '#platform-alerts' } }],
    },
  ].map(({ key, ...row }) => ({
    id: rule(key),
    ...row,
    error: key === 'component-health' ? 'slack: channel_not_found (#platform-alerts)' : null,
    error_at: key === 'component-health' ? ctx.ago(2 * HOUR) : null,
    template: null,
    properties: null,
    playbook_id: null,
    inhibitions: key === 'payments-configs' ? [{ direction: 'incoming', from: 'Kubernetes::Pod', to: ['Kubernetes::Deployment'] }] : null,
    wait_for_eval_period: null,
    group_by_interval: null,
    watchdog_schedule: null,
    fallback_delay: null,
    fallback_custom_services: null,
    fallback_playbook_id: null,
    fallback_person_id: null,
    fallback_team_id: null,
    created_by: admin,
    created_at: ctx.ago(random.int(30, 120) * DAY),
    updated_at: ctx.ago(random.int(1, 20) * DAY),
    deleted_at: null,
  }))

  type Send = {
    notification: string
    event: string
    resource: string
    health: string
    status: string
    ageMinutes: number
    error?: string
    count?: number
    toTeam?: boolean
    toPerson?: string
    toConnection?: boolean
    silenced?: boolean
  }
  const platformTeam = people.team('platform').id
  const sends: Send[] = [
    { notification: 'critical-checks', event: 'check.failed', resource: health.check('refunds-api-health'), health: 'unhealthy', status: 'sent', ageMinutes: 68, toTeam: true },
    { notification: 'critical-checks', event: 'check.failed', resource: health.check('refunds-api-health'), health: 'unhealthy', status: 'repeat-interval', ageMinutes: 38, toTeam: true, count: 3 },
    { notification: 'critical-checks', event: 'check.failed', resource: health.check('node-memory-pressure'), health: 'unhealthy', status: 'sent', ageMinutes: 188, toTeam: true },
    { notification: 'critical-checks', event: 'check.failed', resource: health.check('search-cluster-health'), health: 'unhealthy', status: 'silenced', ageMinutes: 236, toTeam: true, silenced: true },
    { notification: 'critical-checks', event: 'check.passed', resource: health.check('checkout-session'), health: 'healthy', status: 'sent', ageMinutes: 3 * 24 * 60, toTeam: true },
    { notification: 'critical-checks', event: 'check.failed', resource: health.check('checkout-session'), health: 'unhealthy', status: 'sent', ageMinutes: 3 * 24 * 60 + 25, toTeam: true },
    { notification: 'critical-checks', event: 'check.failed', resource: health.check('search-from-eu-west'), health: 'unhealthy', status: 'pending', ageMinutes: 1, toTeam: true },
    { notification: 'payments-configs', event: 'config.unhealthy', resource: catalog.config(`deploy:${PROD_CLUSTER}:refunds-api`), health: 'unhealthy', status: 'sent', ageMinutes: 64, toPerson: 'payments-oncall' },
    { notification: 'payments-configs', event: 'config.unhealthy', resource: catalog.config(`pod:${PROD_CLUSTER}:refunds-api:0`), health: 'unhealthy', status: 'inhibited', ageMinutes: 64, toPerson: 'payments-oncall' },
    { notification: 'payments-configs', event: 'config.unhealthy', resource: catalog.config(`pod:${PROD_CLUSTER}:refunds-api:1`), health: 'unhealthy', status: 'inhibited', ageMinutes: 63, toPerson: 'payments-oncall' },
    { notification: 'payments-configs', event: 'config.warning', resource: catalog.config('rds:orders-db'), health: 'warning', status: 'skipped', ageMinutes: 30 * 60, toPerson: 'payments-oncall' },
    { notification: 'payments-configs', event: 'config.unhealthy', resource: catalog.config(`deploy:${PROD_CLUSTER}:refunds-api`), health: 'unhealthy', status: 'error', ageMinutes: 5 * 24 * 60, toPerson: 'payments-oncall', error: 'smtp: 550 5.1.1 mailbox unavailable' },
    { notification: 'incidents', event: 'incident.created', resource: incident('refunds-503'), health: 'unhealthy', status: 'sent', ageMinutes: 66, toPerson: 'incident-manager' },
    { notification: 'incidents', event: 'incident.created', resource: incident('orders-lag'), health: 'unhealthy', status: 'sent', ageMinutes: 30 * 60, toPerson: 'incident-manager' },
    { notification: 'incidents', event: 'incident.created', resource: incident('public-bucket'), health: 'unhealthy', status: 'sent', ageMinutes: 96 * 60, toPerson: 'incident-manager' },
    { notification: 'incidents', event: 'incident.status.resolved', resource: incident('public-bucket'), health: 'healthy', status: 'sent', ageMinutes: 40 * 60, toPerson: 'incident-manager' },
    { notification: 'component-health', event: 'component.unhealthy', resource: ctx.id('component', 'online-store/refunds-api'), health: 'unhealthy', status: 'error', ageMinutes: 65, toConnection: true, error: 'slack: channel_not_found (#platform-alerts)' },
    { notification: 'component-health', event: 'component.warning', resource: ctx.id('component', 'platform/orders-db'), health: 'warning', status: 'error', ageMinutes: 120, toConnection: true, error: 'slack: channel_not_found (#platform-alerts)' },
  ]
  const silenceId = ctx.id('notification_silence', 'search-cluster-maintenance')
  const history: Row[] = sends.map((send, index) => {
    const created = send.ageMinutes * MINUTE
    return {
      id: ctx.id('notification_send', `${send.notification}#${index}`),
      notification_id: rule(send.notification),
      body: send.status === 'sent' || send.status === 'error' ? `${send.event}: resource is ${send.health}` : null,
      body_payload: send.status === 'sent' ? { schema: 'notification.v1', data: { event: send.event, health: send.health } } : null,
      status: send.status,
      not_before: send.status === 'pending' ? ctx.ahead(59 * 1000) : null,
      retries: send.status === 'error' ? 3 : 0,
      payload: send.status === 'pending' ? { id: send.resource, event: send.event } : null,
      count: send.count ?? 1,
      first_observed: ctx.ago(created + ((send.count ?? 1) - 1) * 10 * MINUTE),
      source_event: send.event,
      resource_id: send.resource,
      resource_health: send.health,
      resource_status: send.health === 'healthy' ? 'healthy' : 'unhealthy',
      resource_health_description: null,
      person_id: send.toPerson ? people.person(send.toPerson as Parameters<PeopleRefs['person']>[0]).id : null,
      team_id: send.toTeam ? platformTeam : null,
      connection_id: send.toConnection ? connection('team-chat') : null,
      silenced_by: send.silenced ? silenceId : null,
      playbook_run_id: null,
      error: send.error ?? null,
      duration_millis: send.status === 'sent' || send.status === 'error' ? random.int(120, 2400) : null,
      created_at: ctx.ago(created),
      group_id: null,
      parent_id: null,
    }
  })

  const silences: Row[] = [
    {
      id: silenceId,
      namespace: 'search',
      name: 'search-cluster-maintenance',
      description: 'Elasticsearch rolling upgrade to 8.15; replicas rebalance for a day',
      filter: null,
      selectors: null,
      error: null,
      from: ctx.ago(6 * HOUR),
      until: ctx.ahead(18 * HOUR),
      recursive: false,
      config_id: null,
      check_id: health.check('search-cluster-health'),
      canary_id: null,
      component_id: null,
      source: 'UI',
      created_by: people.person('backend').id,
      created_at: ctx.ago(6 * HOUR),
      updated_at: ctx.ago(6 * HOUR),
      deleted_at: null,
    },
    {
      id: ctx.id('notification_silence', 'staging-weekend'),
      namespace: 'default',
      name: 'staging-cluster-weekend',
      description: 'Staging is scaled to zero over the weekend',
      filter: "config.tags.cluster == 'staging-eu-west-1'",
      selectors: [{ tagSelector: 'cluster=staging-eu-west-1' }],
      error: null,
      from: ctx.ago(9 * DAY),
      until: ctx.ago(7 * DAY),
      recursive: true,
      config_id: null,
      check_id: null,
      canary_id: null,
      component_id: null,
      source: 'UI',
      created_by: people.person('sre').id,
      created_at: ctx.ago(9 * DAY),
      updated_at: ctx.ago(9 * DAY),
      deleted_at: null,
    },
  ]

  return { rows: { notifications, notification_send_history: history, notification_silences: silences } }
}
