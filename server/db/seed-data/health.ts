import { PROD_CLUSTER, type CatalogRefs } from './catalog.ts'
import { DAY, HOUR, MINUTE, type Row, type SeedContext } from './context.ts'
import { LOCAL_AGENT_ID, type PeopleRefs } from './people.ts'

type CheckDef = {
  type: string
  name: string
  spec: Record<string, unknown>
  description?: string
  labels?: Record<string, string>
  severity?: string
  icon?: string
  /** Typical latency in ms; the history spreads around it. */
  latency: number
  /** Failing for this many minutes now (the check is unhealthy). */
  failingFor?: number
  /** Share of 2-hour windows in the history that failed as a burst. */
  flaky?: number
  configs?: string[]
}

type CanaryDef = {
  name: string
  namespace: string
  schedule: string
  labels: Record<string, string>
  remote?: boolean
  deletedDaysAgo?: number
  checks: CheckDef[]
}

const svc = (name: string, namespace: string, path = '/healthz') => `http://${name}.${namespace}.svc.cluster.local${path}`
const deploy = (name: string) => `deploy:${PROD_CLUSTER}:${name}`
const rdsHost = (name: string) => `${name}.c9xk2mfl0qz1.eu-west-1.rds.amazonaws.com`

const CANARIES: CanaryDef[] = [
  {
    name: 'storefront-http', namespace: 'default', schedule: '@every 1m',
    labels: { team: 'storefront', env: 'production', tier: 'frontend', critical: 'true' },
    checks: [
      { type: 'http', name: 'storefront-home', latency: 180, severity: 'critical', configs: [deploy('checkout-web')], spec: { url: 'https://shop.acme-shop.io/', responseCodes: [200], thresholdMillis: 1500, maxSSLExpiry: 14 } },
      { type: 'http', name: 'product-api', latency: 95, severity: 'high', spec: { url: 'https://api.acme-shop.io/v1/products?limit=1', responseCodes: [200], thresholdMillis: 800, test: { expr: 'json.items.size() > 0' } } },
      { type: 'http', name: 'cart-api-health', latency: 12, severity: 'high', configs: [deploy('cart-api')], spec: { url: svc('cart-api', 'checkout'), responseCodes: [200], thresholdMillis: 500 } },
      { type: 'http', name: 'search-api-health', latency: 18, severity: 'high', flaky: 0.01, configs: [deploy('search-api')], spec: { url: svc('search-api', 'search'), responseCodes: [200], thresholdMillis: 500 } },
      { type: 'http', name: 'cdn-assets', latency: 40, severity: 'medium', spec: { url: 'https://cdn.acme-shop.io/static/app.css', responseCodes: [200], thresholdMillis: 1000 } },
      { type: 'http', name: 'sitemap', latency: 310, severity: 'low', labels: { critical: 'false', seo: 'true' }, spec: { url: 'https://shop.acme-shop.io/sitemap.xml', responseContent: '<urlset', thresholdMillis: 3000 } },
    ],
  },
  {
    name: 'public-dns', namespace: 'default', schedule: '@every 5m',
    labels: { team: 'platform', env: 'production', tier: 'edge' },
    checks: [
      { type: 'dns', name: 'shop-a-record', latency: 22, severity: 'critical', labels: { critical: 'true' }, spec: { query: 'shop.acme-shop.io', querytype: 'A', minrecords: 1, timeout: 5 } },
      { type: 'dns', name: 'api-a-record', latency: 21, severity: 'critical', labels: { critical: 'true' }, spec: { query: 'api.acme-shop.io', querytype: 'A', minrecords: 1, timeout: 5 } },
      { type: 'dns', name: 'mx-records', latency: 28, severity: 'medium', spec: { query: 'acme-shop.io', querytype: 'MX', exactreply: ['aspmx.l.google.com. 1', 'alt1.aspmx.l.google.com. 5'] } },
      { type: 'dns', name: 'spf-txt', latency: 26, severity: 'low', spec: { query: 'acme-shop.io', querytype: 'TXT', minrecords: 1 } },
      { type: 'dns', name: 'cdn-cname', latency: 24, severity: 'medium', spec: { query: 'cdn.acme-shop.io', querytype: 'CNAME', exactreply: ['d1x8h3k2ab9c4e.cloudfront.net.'] } },
    ],
  },
  {
    name: 'payments-gateway', namespace: 'payments', schedule: '@every 30s',
    labels: { team: 'payments', env: 'production', tier: 'backend', critical: 'true', pci: 'true' },
    checks: [
      { type: 'http', name: 'payments-api-health', latency: 15, severity: 'critical', configs: [deploy('payments-api')], spec: { url: svc('payments-api', 'payments'), responseCodes: [200], thresholdMillis: 300 } },
      { type: 'http', name: 'refunds-api-health', latency: 14, severity: 'high', failingFor: 70, flaky: 0.02, configs: [deploy('refunds-api')], spec: { url: svc('refunds-api', 'payments'), responseCodes: [200], thresholdMillis: 300 } },
      { type: 'http', name: 'ledger-api-health', latency: 17, severity: 'high', configs: [deploy('ledger-api')], spec: { url: svc('ledger-api', 'payments'), responseCodes: [200], thresholdMillis: 300 } },
      { type: 'http', name: 'fraud-scoring-ready', latency: 35, severity: 'medium', labels: { critical: 'false' }, configs: [deploy('fraud-scoring')], spec: { url: `http://fraud-scoring.payments.svc.cluster.local:9000/ready`, thresholdMillis: 500 } },
      { type: 'http', name: 'stripe-webhook-endpoint', latency: 120, severity: 'high', spec: { url: 'https://api.acme-shop.io/webhooks/stripe', method: 'POST', body: '{}', responseCodes: [400], thresholdMillis: 2000, display: { template: 'unsigned webhook rejected with {{.code}}' } } },
      { type: 'tcp', name: 'payments-db-port', latency: 2, severity: 'critical', configs: ['rds:payments-db'], spec: { endpoint: `${rdsHost('payments-db')}:5432`, thresholdMillis: 1000 } },
      { type: 'tcp', name: 'pgbouncer-port', latency: 1, severity: 'high', spec: { endpoint: 'pgbouncer.payments.svc.cluster.local:6432', thresholdMillis: 500 } },
    ],
  },
  {
    name: 'payments-data', namespace: 'payments', schedule: '@every 2m',
    labels: { team: 'payments', env: 'production', tier: 'data', pci: 'true', critical: 'false' },
    checks: [
      { type: 'postgres', name: 'payments-db-connections', latency: 9, severity: 'high', configs: ['rds:payments-db'], spec: { connection: 'connection://payments/payments-db', query: 'SELECT count(*) AS connections FROM pg_stat_activity', results: 1, test: { expr: 'results.rows[0].connections < 400' } } },
      { type: 'postgres', name: 'ledger-db-replication-lag', latency: 7, severity: 'high', flaky: 0.015, configs: ['rds:ledger-db'], spec: { connection: 'connection://payments/ledger-db', query: 'SELECT extract(epoch FROM now() - pg_last_xact_replay_timestamp()) AS lag_seconds', test: { expr: 'results.rows[0].lag_seconds < 30' } } },
      { type: 'postgres', name: 'stuck-payouts', latency: 24, severity: 'medium', configs: ['rds:payments-db'], spec: { connection: 'connection://payments/payments-db', query: "SELECT count(*) AS stuck FROM payouts WHERE status = 'processing' AND updated_at < now() - interval '30 minutes'", test: { expr: 'results.rows[0].stuck == 0' } } },
      { type: 'redis', name: 'idempotency-keys', latency: 2, severity: 'high', configs: ['elasticache:idempotency-redis'], spec: { addr: 'idempotency-redis.x1b2c3.ng.0001.euw1.cache.amazonaws.com:6379', db: 0 } },
      { type: 'redis', name: 'session-cache', latency: 1, severity: 'high', configs: ['elasticache:sessions-redis'], spec: { addr: 'sessions-redis.x1b2c3.ng.0001.euw1.cache.amazonaws.com:6379', db: 1 } },
    ],
  },
  {
    name: 'k8s-nodes', namespace: 'platform', schedule: '@every 1m',
    labels: { team: 'platform', env: 'production', tier: 'infrastructure' },
    checks: [
      ...[0, 1, 2, 3].map((index): CheckDef => ({
        type: 'icmp', name: `ping-node-${index + 1}`, latency: 1, severity: 'medium', flaky: index === 2 ? 0.03 : 0,
        configs: [`node:${PROD_CLUSTER}:${index}`],
        spec: { endpoint: `10.42.${16 + index}.${10 + index * 7}`, packetCount: 3, thresholdMillis: 50 },
      })),
      { type: 'exec', name: 'kubectl-nodes-ready', latency: 850, severity: 'high', spec: { script: 'kubectl get nodes --no-headers | awk \'$2 != "Ready"\' | wc -l', test: { expr: 'results.stdout == "0"' } } },
      { type: 'exec', name: 'etcd-backup-age', latency: 1900, severity: 'medium', spec: { script: 'aws s3 ls s3://acme-db-backups/etcd/ | tail -1 | awk \'{print $1" "$2}\'', connections: { aws: { connection: 'connection://platform/aws-prod' } }, test: { expr: "timestamp(results.stdout.replace(' ', 'T') + 'Z') > now - duration('26h')" } } },
    ],
  },
  {
    name: 'cluster-addons', namespace: 'platform', schedule: '@every 2m',
    labels: { team: 'platform', env: 'production', tier: 'infrastructure', critical: 'true' },
    checks: [
      { type: 'http', name: 'ingress-nginx-healthz', latency: 6, severity: 'critical', configs: [deploy('ingress-nginx-controller')], spec: { url: 'http://ingress-nginx-controller.platform.svc.cluster.local:10254/healthz', responseCodes: [200] } },
      { type: 'http', name: 'cert-manager-webhook', latency: 9, severity: 'high', labels: { critical: 'false' }, configs: [deploy('cert-manager')], spec: { url: 'https://cert-manager-webhook.platform.svc.cluster.local/healthz', tlsConfig: { insecureSkipVerify: true } } },
      { type: 'http', name: 'argocd-server', latency: 45, severity: 'medium', labels: { critical: 'false' }, spec: { url: 'https://argocd.acme-shop.io/healthz', responseCodes: [200] } },
      { type: 'http', name: 'external-dns-metrics', latency: 8, severity: 'low', labels: { critical: 'false' }, configs: [deploy('external-dns')], spec: { url: 'http://external-dns.platform.svc.cluster.local:7979/metrics', responseContent: 'external_dns_registry_endpoints_total' } },
      { type: 'prometheus', name: 'apiserver-error-rate', latency: 38, severity: 'high', spec: { url: 'http://prometheus-operated.monitoring.svc:9090', query: 'sum(rate(apiserver_request_total{code=~"5.."}[5m])) / sum(rate(apiserver_request_total[5m]))', test: { expr: 'value < 0.01' } } },
      { type: 'prometheus', name: 'node-memory-pressure', latency: 31, severity: 'high', failingFor: 190, flaky: 0.03, configs: [`node:${PROD_CLUSTER}:2`], spec: { url: 'http://prometheus-operated.monitoring.svc:9090', query: 'max(kube_node_status_condition{condition="MemoryPressure",status="true"})', test: { expr: 'value == 0' } } },
      { type: 'prometheus', name: 'pod-restart-rate', latency: 44, severity: 'medium', flaky: 0.02, spec: { url: 'http://prometheus-operated.monitoring.svc:9090', query: 'sum(increase(kube_pod_container_status_restarts_total{namespace!="payments"}[1h]))', test: { expr: 'value < 10' } } },
    ],
  },
  {
    name: 'data-stores', namespace: 'platform', schedule: '@every 5m',
    labels: { team: 'platform', env: 'production', tier: 'data' },
    checks: [
      { type: 'postgres', name: 'orders-db-replica-lag', latency: 11, severity: 'high', failingFor: 35, flaky: 0.04, configs: ['rds:orders-db'], spec: { connection: 'connection://default/orders-db', query: 'SELECT extract(epoch FROM replay_lag) AS lag_seconds FROM pg_stat_replication', test: { expr: 'results.rows.all(r, r.lag_seconds < 60)' } } },
      { type: 'mysql', name: 'auth-db-ping', latency: 6, severity: 'high', configs: ['rds:auth-db'], spec: { connection: 'connection://platform/auth-db', query: 'SELECT 1' } },
      { type: 'tcp', name: 'orders-db-port', latency: 2, severity: 'high', configs: ['rds:orders-db'], spec: { endpoint: `${rdsHost('orders-db')}:5432`, thresholdMillis: 1000 } },
      { type: 'tcp', name: 'auth-db-port', latency: 2, severity: 'high', configs: ['rds:auth-db'], spec: { endpoint: `${rdsHost('auth-db')}:3306`, thresholdMillis: 1000 } },
      { type: 'tcp', name: 'elasticsearch-transport', latency: 1, severity: 'medium', configs: [`sts:${PROD_CLUSTER}:elasticsearch`], spec: { endpoint: 'elasticsearch.search.svc.cluster.local:9300', thresholdMillis: 500 } },
      { type: 'elasticsearch', name: 'search-cluster-health', latency: 29, severity: 'high', failingFor: 240, flaky: 0.02, configs: [`sts:${PROD_CLUSTER}:elasticsearch`], spec: { url: 'http://elasticsearch.search.svc.cluster.local:9200', index: 'products', query: '{"size": 0, "query": {"match_all": {}}}', results: 1 } },
    ],
  },
  {
    name: 'observability', namespace: 'monitoring', schedule: '@every 1m',
    labels: { team: 'platform', env: 'production', tier: 'monitoring' },
    checks: [
      { type: 'http', name: 'grafana-health', latency: 11, severity: 'medium', configs: [deploy('grafana')], spec: { url: svc('grafana', 'monitoring', '/api/health'), test: { expr: "json.database == 'ok'" } } },
      { type: 'http', name: 'prometheus-ready', latency: 4, severity: 'high', spec: { url: 'http://prometheus-operated.monitoring.svc:9090/-/ready', responseCodes: [200] } },
      { type: 'http', name: 'alertmanager-ready', latency: 4, severity: 'high', spec: { url: 'http://alertmanager-operated.monitoring.svc:9093/-/ready', responseCodes: [200] } },
      { type: 'http', name: 'loki-ready', latency: 7, severity: 'medium', configs: [deploy('loki')], spec: { url: svc('loki', 'monitoring', '/ready'), responseCodes: [200] } },
      { type: 'http', name: 'tempo-ready', latency: 6, severity: 'low', spec: { url: 'http://tempo.monitoring.svc.cluster.local:3200/ready', responseCodes: [200] } },
      { type: 'prometheus', name: 'scrape-targets-up', latency: 27, severity: 'medium', flaky: 0.01, spec: { url: 'http://prometheus-operated.monitoring.svc:9090', query: 'count(up == 0) or vector(0)', test: { expr: 'value == 0' } } },
      { type: 'alertmanager', name: 'critical-alerts', latency: 33, severity: 'high', spec: { url: 'http://alertmanager-operated.monitoring.svc:9093', filters: { severity: 'critical' }, ignore: ['Watchdog', 'InfoInhibitor'] } },
    ],
  },
  {
    name: 'synthetic-checkout', namespace: 'monitoring', schedule: '@every 5m',
    labels: { team: 'storefront', env: 'production', tier: 'synthetic', critical: 'true' },
    checks: [
      { type: 'http', name: 'login-page', latency: 240, severity: 'high', spec: { url: 'https://shop.acme-shop.io/login', responseContent: 'Sign in', thresholdMillis: 2000 } },
      { type: 'http', name: 'add-to-cart', latency: 160, severity: 'critical', configs: [deploy('cart-api')], spec: { url: 'https://api.acme-shop.io/v1/cart/items', method: 'POST', body: '{"sku": "SYN-TEST-001", "quantity": 1}', headers: [{ name: 'X-Synthetic', value: 'true' }], responseCodes: [201] } },
      { type: 'http', name: 'checkout-session', latency: 420, severity: 'critical', flaky: 0.01, configs: [deploy('checkout-web'), deploy('payments-api')], spec: { url: 'https://api.acme-shop.io/v1/checkout/sessions', method: 'POST', body: '{"cart": "synthetic"}', responseCodes: [201], thresholdMillis: 3000 } },
      { type: 'http', name: 'order-confirmation', latency: 210, severity: 'high', spec: { url: 'https://shop.acme-shop.io/orders/synthetic/confirmation', responseCodes: [200] } },
      { type: 'exec', name: 'playwright-checkout-journey', latency: 24_000, severity: 'high', icon: 'playwright', spec: { script: 'npx playwright test tests/checkout.spec.ts --reporter=line', artifacts: [{ path: 'test-results/**/*.png' }] } },
    ],
  },
  {
    name: 'eu-west-edge', namespace: 'monitoring', schedule: '@every 1m', remote: true,
    labels: { team: 'platform', env: 'production', tier: 'edge', region: 'eu-west-1' },
    checks: [
      { type: 'http', name: 'shop-from-eu-west', latency: 65, severity: 'high', spec: { url: 'https://shop.acme-shop.io/', responseCodes: [200], thresholdMillis: 1000 } },
      { type: 'http', name: 'api-from-eu-west', latency: 48, severity: 'high', spec: { url: 'https://api.acme-shop.io/healthz', responseCodes: [200], thresholdMillis: 800 } },
      { type: 'http', name: 'search-from-eu-west', latency: 640, severity: 'medium', failingFor: 25, flaky: 0.05, spec: { url: 'https://api.acme-shop.io/v1/search?q=shoes', responseCodes: [200], thresholdMillis: 800 } },
      { type: 'dns', name: 'shop-resolve-eu-west', latency: 9, severity: 'medium', spec: { query: 'shop.acme-shop.io', querytype: 'A', minrecords: 1 } },
      { type: 'dns', name: 'api-resolve-eu-west', latency: 9, severity: 'medium', spec: { query: 'api.acme-shop.io', querytype: 'A', minrecords: 1 } },
      { type: 'icmp', name: 'nat-gateway-ping', latency: 1, severity: 'low', spec: { endpoint: '10.42.0.1', packetCount: 5, thresholdMillis: 20 } },
    ],
  },
  {
    name: 'legacy-ftp', namespace: 'default', schedule: '@every 5m', deletedDaysAgo: 3,
    labels: { team: 'platform', env: 'production', tier: 'legacy' },
    checks: [
      { type: 'tcp', name: 'ftp-control-port', latency: 3, severity: 'low', configs: ['ec2:legacy-ftp-gateway'], spec: { endpoint: 'ftp.acme-shop.io:21', thresholdMillis: 1000 } },
      { type: 'tcp', name: 'sftp-port', latency: 3, severity: 'low', configs: ['ec2:legacy-ftp-gateway'], spec: { endpoint: 'ftp.acme-shop.io:22', thresholdMillis: 1000 } },
    ],
  },
]

const OK_MESSAGES: Record<string, string> = {
  http: 'HTTP 200 OK',
  dns: 'Successful check on default resolver',
  tcp: '',
  icmp: '',
  exec: 'exit code 0',
  postgres: '1 row(s) returned',
  mysql: '1 row(s) returned',
  redis: 'PONG',
  prometheus: 'query returned 1 result',
  elasticsearch: 'cluster status green',
  alertmanager: 'no firing alerts',
}
const ERRORS: Record<string, [string, string]> = {
  http: ['expected 503 to be in [200]', 'Get "{url}": context deadline exceeded (Client.Timeout exceeded while awaiting headers)'],
  dns: ['timed out after 5 seconds', 'lookup {query}: no such host'],
  tcp: ['Connection error: dial tcp {endpoint}: connect: connection refused', 'Connection error: dial tcp {endpoint}: i/o timeout'],
  icmp: ['ping timeout: 3 packets transmitted, 0 received, 100% packet loss', 'high latency: avg 87ms > 50ms'],
  exec: ['exit code 1', 'signal: killed (timeout after 60s)'],
  postgres: ['test failed', 'failed to connect: dial tcp: i/o timeout'],
  mysql: ['test failed', 'Error 1040: Too many connections'],
  redis: ['dial tcp: i/o timeout', 'LOADING Redis is loading the dataset in memory'],
  prometheus: ['test failed', 'bad_data: 1:8: parse error: unexpected character'],
  elasticsearch: ['cluster status yellow: 1 unassigned replica shard(s)', 'query returned 0 results, expected 1'],
  alertmanager: ['2 critical alerts firing: KubePodCrashLooping, KubeDeploymentReplicasMismatch', 'context deadline exceeded'],
}

const SCHEDULE_SECONDS = (schedule: string): number => {
  const match = /^@every (\d+)([smh])$/.exec(schedule)
  if (!match) throw new Error(`unsupported demo schedule ${schedule}`)
  return Number(match[1]) * { s: 1, m: 60, h: 3600 }[match[2] as 's' | 'm' | 'h']
}

/**
 * Per-check inputs of the set-based history generator (see insertCheckHistory in seed.ts): the
 * database expands each profile into two weeks of runs, so no status row crosses the wire.
 */
export type StatusProfile = {
  check_id: string
  base_ms: number
  flaky: number
  failing_since: string | null
  stop_at: string | null
  offset_s: number
  ok_message: string
  errors: [string, string]
  details: Record<string, unknown> | null
}

export type HealthRefs = {
  check(name: string): string
  canary(name: string): string
  checkNames: string[]
  unhealthy: string[]
}

export function buildHealth(
  ctx: SeedContext,
  people: PeopleRefs,
  catalog: CatalogRefs,
): { rows: Record<string, Row[]>; profiles: StatusProfile[]; refs: HealthRefs } {
  const random = ctx.random('health')
  const canaries: Row[] = []
  const checks: Row[] = []
  const unlogged: Row[] = []
  const configLinks: Row[] = []
  const profiles: StatusProfile[] = []
  const checkIds = new Map<string, string>()
  const canaryIds = new Map<string, string>()
  const unhealthy: string[] = []
  const creators = [people.person('platform-lead').id, people.person('sre').id, people.person('payments-oncall').id]
  const lastMinute = Math.floor(ctx.now.getTime() / MINUTE) * MINUTE - MINUTE

  for (const canary of CANARIES) {
    const canaryId = ctx.id('canary', `${canary.namespace}/${canary.name}`)
    canaryIds.set(canary.name, canaryId)
    const agentId = canary.remote ? people.remoteAgentId : LOCAL_AGENT_ID
    const createdAt = ctx.ago(random.int(30, 240) * DAY)
    const deletedAt = canary.deletedDaysAgo === undefined ? null : ctx.ago(canary.deletedDaysAgo * DAY + 2 * HOUR)
    const spec: Record<string, unknown> = { schedule: canary.schedule }
    for (const check of canary.checks) {
      const entry = { name: check.name, ...(check.description ? { description: check.description } : {}), ...(check.labels ? { labels: check.labels } : {}), ...check.spec }
      const list = (spec[check.type] as unknown[] | undefined) ?? []
      list.push(entry)
      spec[check.type] = list
    }
    canaries.push({
      id: canaryId,
      agent_id: agentId,
      name: canary.name,
      namespace: canary.namespace,
      labels: canary.labels,
      annotations: null,
      spec,
      // 'Demo' keeps the check engine off these canaries (see DEMO_SOURCE in health/canary-sync.ts).
      source: canary.remote ? 'Push' : 'Demo',
      created_at: createdAt,
      created_by: canary.remote ? null : random.pick(creators),
      updated_at: ctx.ago(random.int(1, 20) * DAY),
      deleted_at: deletedAt,
    })

    const intervalMs = SCHEDULE_SECONDS(canary.schedule) * 1000
    for (const check of canary.checks) {
      const checkId = ctx.id('check', `${canary.namespace}/${canary.name}/${check.type}/${check.name}`)
      checkIds.set(check.name, checkId)
      const offsetSeconds = random.int(0, 59)
      const failing = check.failingFor !== undefined
      if (failing) unhealthy.push(check.name)
      const stopAt = deletedAt
      const lastRuntimeMs = deletedAt ? new Date(deletedAt).getTime() - 5 * MINUTE : lastMinute + offsetSeconds * 1000
      const status = failing ? 'unhealthy' : 'healthy'
      const transitionAt = failing ? ctx.ago((check.failingFor ?? 0) * MINUTE) : ctx.ago(random.between(1, 13) * DAY)
      const lastRuntime = new Date(lastRuntimeMs).toISOString()
      const nextRuntime = deletedAt ? null : new Date(lastRuntimeMs + intervalMs).toISOString()
      const labels = { ...(check.labels ?? {}) }
      checks.push({
        id: checkId,
        canary_id: canaryId,
        agent_id: agentId,
        type: check.type,
        name: check.name,
        namespace: canary.namespace,
        description: check.description ?? null,
        icon: check.icon ?? null,
        spec: { name: check.name, ...check.spec },
        labels,
        owner: canary.labels.team ?? null,
        severity: check.severity ?? 'medium',
        category: null,
        transformed: false,
        last_runtime: lastRuntime,
        last_transition_time: transitionAt,
        next_runtime: nextRuntime,
        silenced_at: null,
        status,
        created_at: createdAt,
        updated_at: failing ? transitionAt : createdAt,
        deleted_at: deletedAt,
      })
      unlogged.push({
        check_id: checkId,
        canary_id: canaryId,
        status,
        last_runtime: lastRuntime,
        next_runtime: nextRuntime,
        created_at: createdAt,
        updated_at: lastRuntime,
      })
      const url = String(check.spec.url ?? check.spec.endpoint ?? '')
      const fill = (text: string) => text.replace('{url}', url).replace('{endpoint}', String(check.spec.endpoint ?? '')).replace('{query}', String(check.spec.query ?? ''))
      profiles.push({
        check_id: checkId,
        base_ms: check.latency,
        flaky: check.flaky ?? 0,
        failing_since: failing ? ctx.ago((check.failingFor ?? 0) * MINUTE) : null,
        stop_at: stopAt,
        offset_s: offsetSeconds,
        ok_message: check.spec.display ? 'unsigned webhook rejected with 400' : OK_MESSAGES[check.type] ?? '',
        errors: (ERRORS[check.type] ?? ['check failed', 'check failed']).map(fill) as [string, string],
        details: check.type === 'exec'
          ? { stdout: check.name === 'kubectl-nodes-ready' ? '0' : 'ok', stderr: '', exitCode: 0 }
          : check.type === 'postgres' || check.type === 'mysql'
            ? { count: 1, rows: [{ value: random.int(0, 40) }] }
            : null,
      })
      for (const key of check.configs ?? []) {
        if (!catalog.has(key)) throw new Error(`check ${check.name} links unknown config ${key}`)
        configLinks.push({
          config_id: catalog.config(key),
          check_id: checkId,
          canary_id: canaryId,
          created_at: createdAt,
          updated_at: createdAt,
          deleted_at: deletedAt,
          selector_id: `${canary.namespace}/${canary.name}/${check.name}`,
        })
      }
    }
  }

  const lookup = (map: Map<string, string>, kind: string) => (name: string) => {
    const id = map.get(name)
    if (!id) throw new Error(`unknown demo ${kind} ${name}`)
    return id
  }
  return {
    rows: { canaries, checks, checks_unlogged: unlogged, check_config_relationships: configLinks },
    profiles,
    refs: { check: lookup(checkIds, 'check'), canary: lookup(canaryIds, 'canary'), checkNames: [...checkIds.keys()], unhealthy },
  }
}
