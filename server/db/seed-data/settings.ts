import { AWS_ACCOUNT, AWS_REGION, PROD_CLUSTER, STAGING_CLUSTER, type CatalogRefs } from './catalog.ts'
import { DAY, HOUR, MINUTE, type Row, type SeedContext } from './context.ts'
import type { HealthRefs } from './health.ts'
import { LOCAL_AGENT_ID, type PeopleRefs } from './people.ts'

type ConnectionDef = { name: string; namespace: string; type: string; url: string; username?: string; password?: string; properties?: Record<string, string> }

/** Credentials are always secret:// references: the demo must never carry a usable password. */
const CONNECTIONS: ConnectionDef[] = [
  { name: 'payments-db', namespace: 'payments', type: 'postgres', url: 'postgres://$(username):$(password)@payments-db.c9xk2mfl0qz1.eu-west-1.rds.amazonaws.com:5432/payments?sslmode=require', username: 'secret://payments-db-credentials/username', password: 'secret://payments-db-credentials/password', properties: { database: 'payments' } },
  { name: 'ledger-db', namespace: 'payments', type: 'postgres', url: 'postgres://$(username):$(password)@ledger-db.c9xk2mfl0qz1.eu-west-1.rds.amazonaws.com:5432/ledger?sslmode=require', username: 'secret://ledger-db-credentials/username', password: 'secret://ledger-db-credentials/password', properties: { database: 'ledger' } },
  { name: 'orders-db', namespace: 'default', type: 'postgres', url: 'postgres://$(username):$(password)@orders-db.c9xk2mfl0qz1.eu-west-1.rds.amazonaws.com:5432/orders?sslmode=require', username: 'secret://orders-db-credentials/username', password: 'secret://orders-db-credentials/password', properties: { database: 'orders' } },
  { name: 'auth-db', namespace: 'platform', type: 'mysql', url: '$(username):$(password)@tcp(auth-db.c9xk2mfl0qz1.eu-west-1.rds.amazonaws.com:3306)/kratos', username: 'secret://auth-db-credentials/username', password: 'secret://auth-db-credentials/password' },
  { name: 'prometheus', namespace: 'monitoring', type: 'prometheus', url: 'http://prometheus-operated.monitoring.svc:9090' },
  { name: 'loki', namespace: 'monitoring', type: 'loki', url: 'http://loki.monitoring.svc.cluster.local:3100' },
  { name: 'aws-prod', namespace: 'default', type: 'aws', url: '', username: 'secret://aws-readonly/access-key-id', password: 'secret://aws-readonly/secret-access-key', properties: { region: AWS_REGION, account: AWS_ACCOUNT } },
  { name: 'team-chat', namespace: 'default', type: 'slack', url: 'slack://$(password)@platform-alerts', password: 'secret://slack-bot/token', properties: { channel: '#platform-alerts', botName: 'Lookout' } },
  { name: 'github', namespace: 'default', type: 'github', url: 'https://api.github.com', password: 'secret://github-bot/personal-access-token' },
  { name: 'prod-cluster', namespace: 'platform', type: 'kubernetes', url: '', username: '', password: '' },
]

export function buildSettings(
  ctx: SeedContext,
  people: PeopleRefs,
  catalog: CatalogRefs,
  health: HealthRefs,
  canaryRows: Row[],
  topologyRows: Row[],
): { rows: Record<string, Row[]>; early: Record<string, Row[]>; refs: { connection(name: string): string } } {
  const random = ctx.random('settings')
  const admin = people.person('platform-lead').id

  const connectionIds = new Map<string, string>()
  const connections: Row[] = CONNECTIONS.map((def) => {
    const id = ctx.id('connection', `${def.namespace}/${def.name}`)
    connectionIds.set(def.name, id)
    return {
      id,
      name: def.name,
      namespace: def.namespace,
      type: def.type,
      url: def.url,
      source: 'UI',
      username: def.username ?? null,
      password: def.password ?? null,
      certificate: def.type === 'kubernetes' ? 'secret://prod-cluster-kubeconfig/kubeconfig' : null,
      properties: def.properties ?? null,
      insecure_tls: false,
      created_by: admin,
      created_at: ctx.ago(random.int(60, 300) * DAY),
      updated_at: ctx.ago(random.int(1, 40) * DAY),
      deleted_at: null,
    }
  })

  // Settings an operator would have touched; nothing here turns a feature off.
  const properties: Row[] = [
    ['logs.disable', 'false'],
    ['incidents.disable', 'false'],
    ['scrapers.default.schedule', '@every 30m'],
    ['check.status.retention.days', '30'],
    ['playbook.run.timeout', '30m'],
    ['notifications.max.count', '50'],
  ].map(([name, value], index) => ({
    name,
    value,
    created_by: admin,
    created_at: ctx.ago((90 - index) * DAY),
    updated_at: ctx.ago((30 - index) * DAY),
    deleted_at: null,
  }))

  const scrapers: Row[] = [
    {
      id: catalog.kubernetesScraperId,
      description: 'Production and staging EKS clusters',
      name: 'kubernetes',
      namespace: 'platform',
      spec: {
        schedule: '@every 15m',
        retention: { changes: [{ name: 'Pulled', age: '7d' }], staleItemAge: '24h' },
        kubernetes: [
          { clusterName: PROD_CLUSTER, exclusions: { namespaces: ['kube-system'] }, event: { exclusions: { reason: ['SuccessfulCreate'] } } },
          { clusterName: STAGING_CLUSTER, kubeconfig: { valueFrom: { secretKeyRef: { name: 'staging-kubeconfig', key: 'kubeconfig' } } } },
        ],
      },
      source: 'KubernetesCRD',
      application_id: null,
      created_by: admin,
      agent_id: LOCAL_AGENT_ID,
      created_at: ctx.ago(300 * DAY),
      updated_at: ctx.ago(12 * DAY),
      deleted_at: null,
    },
    {
      id: catalog.awsScraperId,
      description: `AWS account ${AWS_ACCOUNT}`,
      name: 'aws',
      namespace: 'platform',
      spec: {
        schedule: '@every 1h',
        aws: [{ connection: 'connection://default/aws-prod', regions: [AWS_REGION], include: ['EC2', 'RDS', 'S3', 'EKS', 'ElastiCache', 'CloudTrail'], cloudtrail: { maxAge: '7d' }, compliance: true, trustedAdvisorCheck: true }],
      },
      source: 'UI',
      application_id: null,
      created_by: admin,
      agent_id: LOCAL_AGENT_ID,
      created_at: ctx.ago(280 * DAY),
      updated_at: ctx.ago(3 * DAY),
      deleted_at: null,
    },
  ]

  // Recent runs of every scheduled job, newest last, as the settings → jobs page lists them.
  const jobs: Row[] = []
  const addRuns = (name: string, resourceType: string | null, resourceId: string | null, every: number, runs: number, agentId: string, failing: (index: number) => 'SUCCESS' | 'WARNING' | 'FAILED', detail: (status: string) => unknown, typicalMs: number) => {
    for (let index = runs - 1; index >= 0; index--) {
      const status = failing(index)
      const startMs = index * every + random.int(0, 20) * 1000 + 30_000
      const duration = Math.round(typicalMs * random.between(0.6, 1.6))
      jobs.push({
        id: ctx.id('job_history', `${name}/${resourceId ?? 'system'}/${index}`),
        agent_id: agentId,
        name,
        success_count: status === 'FAILED' ? 0 : random.int(1, 40),
        error_count: status === 'SUCCESS' ? 0 : random.int(1, 3),
        details: detail(status),
        hostname: agentId === LOCAL_AGENT_ID ? 'lookout-7d5c9b8f4-k2x9z' : 'mission-control-agent-6d9f7c5b8-x2kqp',
        duration_millis: duration,
        resource_type: resourceType,
        resource_id: resourceId,
        status,
        time_start: ctx.ago(startMs),
        time_end: ctx.ago(startMs - duration),
        created_at: ctx.ago(startMs),
      })
    }
  }
  for (const canary of canaryRows) {
    if (canary.deleted_at) continue
    const failingChecks = (canary.name === 'payments-gateway' || canary.name === 'cluster-addons' || canary.name === 'data-stores' || canary.name === 'eu-west-edge')
    addRuns('Canary', 'canary', canary.id as string, 5 * MINUTE, 4, canary.agent_id as string,
      (index) => (failingChecks && index < 2 ? 'WARNING' : 'SUCCESS'),
      (status) => (status === 'WARNING' ? { errors: ['1 check failed'] } : null), 900)
  }
  addRuns('Scraper', 'config_scraper', catalog.kubernetesScraperId, 15 * MINUTE, 5, LOCAL_AGENT_ID,
    (index) => (index === 3 ? 'WARNING' : 'SUCCESS'),
    (status) => ({ scrape_summary: { 'Kubernetes::Pod': { added: random.int(0, 3), updated: random.int(5, 30), unchanged: random.int(20, 40) } }, ...(status === 'WARNING' ? { errors: ['failed to list *v1.Event in staging-eu-west-1: context deadline exceeded'] } : {}) }),
    12_000)
  addRuns('Scraper', 'config_scraper', catalog.awsScraperId, HOUR, 5, LOCAL_AGENT_ID,
    (index) => (index === 1 ? 'FAILED' : 'SUCCESS'),
    (status) => (status === 'FAILED' ? { errors: ['RequestExpired: Request has expired. (cloudtrail:LookupEvents)'] } : { scrape_summary: { 'AWS::EC2::Instance': { unchanged: 8 }, 'AWS::RDS::DBInstance': { updated: 4 } } }),
    45_000)
  for (const topology of topologyRows) {
    addRuns('Topology', 'topology', topology.id as string, 5 * MINUTE, 3, LOCAL_AGENT_ID, () => 'SUCCESS', () => ({ summary: { components: random.int(8, 13) } }), 1_500)
  }
  const system: [string, number, 'SUCCESS' | 'WARNING' | 'FAILED'][] = [
    ['CleanupCheckStatuses', DAY, 'SUCCESS'],
    ['RefreshCheckStatusSummary', 5 * MINUTE, 'SUCCESS'],
    ['ConfigAnalysisRetention', DAY, 'SUCCESS'],
    ['CleanupNotificationSendHistory', DAY, 'WARNING'],
  ]
  for (const [name, every, status] of system) {
    addRuns(name, null, null, every, 3, LOCAL_AGENT_ID, (index) => (index === 0 ? status : 'SUCCESS'),
      (runStatus) => (runStatus === 'WARNING' ? { errors: ['1 row could not be deleted: still referenced by playbook_runs'] } : null), 300)
  }

  const views: Row[] = [
    {
      id: ctx.id('view', 'payments/payments-overview'),
      name: 'payments-overview',
      namespace: 'payments',
      spec: {
        description: 'Health of everything that moves money',
        display: { title: 'Payments overview', icon: 'dollar', ordinal: 1, sidebar: true },
        queries: {
          deployments: { configs: { types: ['Kubernetes::Deployment'], tagSelector: 'namespace=payments' } },
        },
        columns: [
          { name: 'id', type: 'string', primaryKey: true, hidden: true },
          { name: 'name', type: 'string', description: 'Deployment' },
          { name: 'health', type: 'health' },
          { name: 'status', type: 'status' },
          { name: 'updated', type: 'datetime' },
        ],
        mapping: { id: 'row.id', name: 'row.name', health: 'row.health', status: 'row.status', updated: 'row.updated_at' },
        panels: [
          { name: 'Unhealthy deployments', type: 'number', query: "SELECT COUNT(*) AS value FROM deployments WHERE health <> 'healthy'" },
          { name: 'By health', type: 'piechart', query: 'SELECT health, COUNT(*) AS count FROM deployments GROUP BY health' },
        ],
      },
      source: 'KubernetesCRD',
      labels: { team: 'payments' },
      created_by: people.person('payments-oncall').id,
      created_at: ctx.ago(45 * DAY),
      last_ran: null,
      error: null,
      updated_at: ctx.ago(6 * DAY),
      deleted_at: null,
    },
  ]

  const loggingBackends: Row[] = [
    {
      id: ctx.id('logging_backend', 'loki'),
      name: 'loki',
      labels: { env: 'production' },
      spec: { loki: { url: 'http://loki.monitoring.svc.cluster.local:3100', connection: 'connection://monitoring/loki' }, routes: [{ type: 'Kubernetes::Pod' }] },
      source: 'UI',
      agent_id: LOCAL_AGENT_ID,
      created_at: ctx.ago(150 * DAY),
      created_by: admin,
      updated_at: ctx.ago(20 * DAY),
      deleted_at: null,
    },
  ]

  const roles: Row[] = people.roles.map(({ personId, role }) => ({ ptype: 'g', v0: personId, v1: role, v2: '', v3: '', v4: '', v5: '' }))

  const events: Row[] = [
    {
      id: ctx.id('event_queue', 'check.failed/search-from-eu-west'),
      event_id: health.check('search-from-eu-west'),
      name: 'check.failed',
      properties: { last_runtime: ctx.ago(MINUTE) },
      error: null,
      delay: null,
      created_at: ctx.ago(40_000),
      last_attempt: null,
      attempts: 0,
      priority: 100,
    },
    {
      id: ctx.id('event_queue', 'notification.send/component-health'),
      event_id: ctx.id('notification_send', 'component-health#16'),
      name: 'notification.send',
      properties: { notification_id: ctx.id('notification', 'component-health'), connection: 'connection://default/team-chat' },
      error: 'slack: channel_not_found (#platform-alerts)',
      delay: null,
      created_at: ctx.ago(65 * MINUTE),
      last_attempt: ctx.ago(5 * MINUTE),
      attempts: 2,
      priority: 100,
    },
  ]

  return {
    // Rows other domains point at (scrapers, connections) go in before them.
    early: { properties, connections, config_scrapers: scrapers, casbin_rule: roles },
    rows: { job_history: jobs, views, logging_backends: loggingBackends, event_queue: events },
    refs: {
      connection(name) {
        const id = connectionIds.get(name)
        if (!id) throw new Error(`unknown demo connection ${name}`)
        return id
      },
    },
  }
}
