import { DAY, HOUR, MINUTE, type Row, type SeedContext } from './context.ts'
import type { PeopleRefs } from './people.ts'

export const AWS_ACCOUNT = '482913507716'
export const AWS_REGION = 'eu-west-1'
export const PROD_CLUSTER = 'prod-eu-west-1'
export const STAGING_CLUSTER = 'staging-eu-west-1'
const REGISTRY = 'ghcr.io/acme-shop'

type Workload = { name: string; namespace: string; team: string; replicas: number; version: string; port: number; service: boolean }

/** The production workloads; staging runs a subset with one replica each. */
const WORKLOADS: Workload[] = [
  { name: 'payments-api', namespace: 'payments', team: 'payments', replicas: 3, version: 'v2.14.0', port: 8080, service: true },
  { name: 'refunds-api', namespace: 'payments', team: 'payments', replicas: 2, version: 'v3.8.0', port: 8080, service: true },
  { name: 'ledger-api', namespace: 'payments', team: 'payments', replicas: 2, version: 'v1.22.3', port: 8080, service: true },
  { name: 'fraud-scoring', namespace: 'payments', team: 'payments', replicas: 2, version: 'v0.31.1', port: 9000, service: false },
  { name: 'checkout-web', namespace: 'checkout', team: 'storefront', replicas: 3, version: 'v5.3.2', port: 3000, service: true },
  { name: 'cart-api', namespace: 'checkout', team: 'storefront', replicas: 2, version: 'v2.9.0', port: 8080, service: true },
  { name: 'search-api', namespace: 'search', team: 'storefront', replicas: 3, version: 'v4.1.7', port: 8080, service: true },
  { name: 'search-indexer', namespace: 'search', team: 'storefront', replicas: 1, version: 'v4.1.7', port: 8081, service: false },
  { name: 'auth-service', namespace: 'auth', team: 'platform', replicas: 2, version: 'v7.0.4', port: 4433, service: true },
  { name: 'session-gateway', namespace: 'auth', team: 'platform', replicas: 2, version: 'v1.4.0', port: 8080, service: false },
  { name: 'ingress-nginx-controller', namespace: 'platform', team: 'platform', replicas: 2, version: 'v1.11.3', port: 443, service: true },
  { name: 'cert-manager', namespace: 'platform', team: 'platform', replicas: 1, version: 'v1.16.1', port: 9402, service: false },
  { name: 'external-dns', namespace: 'platform', team: 'platform', replicas: 1, version: 'v0.15.0', port: 7979, service: false },
  { name: 'grafana', namespace: 'monitoring', team: 'platform', replicas: 1, version: '11.3.0', port: 3000, service: true },
  { name: 'prometheus-operator', namespace: 'monitoring', team: 'platform', replicas: 1, version: 'v0.78.1', port: 8080, service: false },
  { name: 'loki', namespace: 'monitoring', team: 'platform', replicas: 1, version: '3.2.1', port: 3100, service: true },
]
const STAGING_WORKLOADS = ['payments-api', 'checkout-web', 'search-api']

const RDS = [
  { name: 'payments-db', team: 'payments', engine: 'postgres', version: '15.7', klass: 'db.r6g.xlarge', storage: 500, multiAz: true, cost: 0.42 },
  { name: 'orders-db', team: 'storefront', engine: 'postgres', version: '15.7', klass: 'db.r6g.large', storage: 300, multiAz: true, cost: 0.21 },
  { name: 'ledger-db', team: 'payments', engine: 'postgres', version: '14.12', klass: 'db.m6g.large', storage: 200, multiAz: false, cost: 0.13 },
  { name: 'auth-db', team: 'platform', engine: 'mysql', version: '8.0.39', klass: 'db.t4g.medium', storage: 100, multiAz: false, cost: 0.06 },
]
const BUCKETS = ['acme-assets-prod', 'acme-invoices-prod', 'acme-db-backups', 'acme-marketing-exports', 'acme-terraform-state']
const CACHES = [
  { name: 'sessions-redis', team: 'platform' },
  { name: 'idempotency-redis', team: 'payments' },
]

export type CatalogRefs = {
  config(key: string): string
  has(key: string): boolean
  kubernetesScraperId: string
  awsScraperId: string
  workloads: readonly Workload[]
  rdsNames: readonly string[]
  /** Keys of the unhealthy and warning items, for incidents and notifications. */
  troubled: string[]
}

type Item = Row & { id: string; key: string }

export function buildCatalog(ctx: SeedContext, people: PeopleRefs): { rows: Record<string, Row[]>; refs: CatalogRefs } {
  const random = ctx.random('catalog')
  const items: Item[] = []
  const byKey = new Map<string, Item>()
  const config = (key: string): string => {
    const item = byKey.get(key)
    if (!item) throw new Error(`unknown demo config item ${key}`)
    return item.id
  }
  const uid = (key: string) => ctx.id('k8s-uid', key)

  const kubernetesScraperId = ctx.id('config_scraper', 'kubernetes')
  const awsScraperId = ctx.id('config_scraper', 'aws')

  type AddOptions = {
    key: string
    name: string
    type: string
    configClass: string
    parent?: string
    scraper: string
    status: string | null
    health: string
    ready?: boolean
    externalId: string[]
    config: Record<string, unknown>
    tags: Record<string, string>
    labels: Record<string, string>
    properties?: Row[]
    createdDaysAgo: number
    description?: string | null
    cost?: number
    deletedHoursAgo?: number
  }
  const add = (options: AddOptions): Item => {
    const parent = options.parent ? byKey.get(options.parent) : undefined
    if (options.parent && !parent) throw new Error(`parent ${options.parent} must be added before ${options.key}`)
    const id = ctx.id('config_item', options.key)
    const path = parent ? [parent.path, parent.id].filter(Boolean).join('.') : ''
    const costPerMinute = options.cost ? options.cost / 60 : null
    const item: Item = {
      key: options.key,
      id,
      agent_id: '00000000-0000-0000-0000-000000000000',
      icon: null,
      scraper_id: options.scraper,
      config_class: options.configClass,
      status: options.status,
      health: options.health,
      ready: options.ready ?? options.health !== 'unhealthy',
      external_id: options.externalId,
      type: options.type,
      name: options.name,
      description: options.description ?? null,
      config: options.config,
      source: options.type.startsWith('AWS::') ? `aws://${AWS_ACCOUNT}/${AWS_REGION}` : `kubernetes://${options.tags.cluster ?? ''}`,
      labels: options.labels,
      tags: options.tags,
      properties: options.properties ?? null,
      parent_id: parent?.id ?? null,
      path,
      created_by: null,
      created_at: ctx.ago(options.createdDaysAgo * DAY),
      updated_at: ctx.ago(Math.min(options.createdDaysAgo * DAY, random.int(5, 600) * MINUTE)),
      inserted_at: ctx.ago(Math.min(options.createdDaysAgo * DAY, 14 * DAY)),
      deleted_at: options.deletedHoursAgo === undefined ? null : ctx.ago(options.deletedHoursAgo * HOUR),
      delete_reason: options.deletedHoursAgo === undefined ? null : 'NotFound',
      cost_per_minute: costPerMinute === null ? null : Number(costPerMinute.toFixed(4)),
      cost_total_1d: options.cost ? Number((options.cost * 24).toFixed(4)) : null,
      cost_total_7d: options.cost ? Number((options.cost * 24 * 7).toFixed(4)) : null,
      cost_total_30d: options.cost ? Number((options.cost * 24 * 30).toFixed(4)) : null,
    }
    items.push(item)
    byKey.set(options.key, item)
    return item
  }

  // --- AWS account and the compute behind the clusters
  add({
    key: 'aws:account', name: 'acme-shop-production', type: 'AWS::::Account', configClass: 'Account', scraper: awsScraperId,
    status: null, health: 'healthy', externalId: [AWS_ACCOUNT],
    config: { Id: AWS_ACCOUNT, Alias: 'acme-shop-production', Regions: [AWS_REGION, 'us-east-1'] },
    tags: { account: AWS_ACCOUNT }, labels: { Environment: 'production' }, createdDaysAgo: 1400,
  })
  const awsTags = { account: AWS_ACCOUNT, region: AWS_REGION }
  const clusterArn = (name: string) => `arn:aws:eks:${AWS_REGION}:${AWS_ACCOUNT}:cluster/${name}`
  for (const cluster of [PROD_CLUSTER, STAGING_CLUSTER]) {
    const production = cluster === PROD_CLUSTER
    add({
      key: `eks:${cluster}`, name: cluster, type: 'AWS::EKS::Cluster', configClass: 'KubernetesCluster', parent: 'aws:account',
      scraper: awsScraperId, status: 'ACTIVE', health: 'healthy', externalId: [clusterArn(cluster)],
      config: { Name: cluster, Arn: clusterArn(cluster), Version: '1.30', PlatformVersion: 'eks.14', Status: 'ACTIVE', Endpoint: `https://${ctx.id('eks-endpoint', cluster).slice(0, 8).toUpperCase()}.gr7.${AWS_REGION}.eks.amazonaws.com` },
      tags: awsTags, labels: { Environment: production ? 'production' : 'staging', Team: 'platform' },
      createdDaysAgo: production ? 540 : 300, cost: 0.1,
    })
  }

  const nodeInstances: { key: string; cluster: string; instanceId: string; az: string; type: string; name: string }[] = []
  for (const [cluster, count, type] of [[PROD_CLUSTER, 4, 'm6i.2xlarge'], [STAGING_CLUSTER, 2, 'm6i.large']] as const) {
    for (let index = 0; index < count; index++) {
      const az = `${AWS_REGION}${'abc'[index % 3]}`
      const instanceId = `i-0${ctx.id('ec2', `${cluster}-${index}`).replace(/-/g, '').slice(0, 16)}`
      const key = `ec2:${cluster}:${index}`
      nodeInstances.push({ key, cluster, instanceId, az, type, name: `ip-10-42-${16 + index}-${10 + index * 7}.${AWS_REGION}.compute.internal` })
      add({
        key, name: `${cluster}-ng-${index + 1}`, type: 'AWS::EC2::Instance', configClass: 'VirtualMachine', parent: 'aws:account',
        scraper: awsScraperId, status: 'running', health: 'healthy', externalId: [instanceId],
        config: { InstanceId: instanceId, InstanceType: type, Placement: { AvailabilityZone: az }, State: { Name: 'running' }, PrivateIpAddress: `10.42.${16 + index}.${random.int(10, 250)}`, ImageId: 'ami-0c1c30571d2dae5c9', MetadataOptions: { HttpTokens: 'required' } },
        tags: awsTags, labels: { 'eks:cluster-name': cluster, 'eks:nodegroup-name': 'general', Team: 'platform' },
        properties: [{ name: 'instance-type', text: type }, { name: 'zone', text: az }],
        createdDaysAgo: random.int(8, 40), cost: type === 'm6i.2xlarge' ? 0.428 : 0.107,
      })
    }
  }
  const standaloneEc2 = [
    { name: 'bastion-eu-west-1', type: 't3.micro', status: 'running', health: 'healthy', imds: 'required' },
    { name: 'legacy-ftp-gateway', type: 't3.small', status: 'stopped', health: 'unknown', imds: 'optional' },
  ]
  for (const instance of standaloneEc2) {
    const instanceId = `i-0${ctx.id('ec2', instance.name).replace(/-/g, '').slice(0, 16)}`
    add({
      key: `ec2:${instance.name}`, name: instance.name, type: 'AWS::EC2::Instance', configClass: 'VirtualMachine', parent: 'aws:account',
      scraper: awsScraperId, status: instance.status, health: instance.health, externalId: [instanceId],
      config: { InstanceId: instanceId, InstanceType: instance.type, State: { Name: instance.status }, MetadataOptions: { HttpTokens: instance.imds } },
      tags: awsTags, labels: { Name: instance.name, Team: 'platform' }, createdDaysAgo: random.int(200, 700),
      cost: instance.status === 'running' ? 0.0104 : 0.002,
    })
  }

  for (const db of RDS) {
    const arn = `arn:aws:rds:${AWS_REGION}:${AWS_ACCOUNT}:db:${db.name}`
    const health = db.name === 'orders-db' ? 'warning' : 'healthy'
    add({
      key: `rds:${db.name}`, name: db.name, type: 'AWS::RDS::DBInstance', configClass: 'Database', parent: 'aws:account',
      scraper: awsScraperId, status: 'available', health, externalId: [arn, db.name],
      config: {
        DBInstanceIdentifier: db.name, DBInstanceArn: arn, Engine: db.engine, EngineVersion: db.version, DBInstanceClass: db.klass,
        AllocatedStorage: db.storage, MultiAZ: db.multiAz, StorageEncrypted: true, BackupRetentionPeriod: 14,
        Endpoint: { Address: `${db.name}.c9xk2mfl0qz1.${AWS_REGION}.rds.amazonaws.com`, Port: db.engine === 'mysql' ? 3306 : 5432 },
      },
      tags: awsTags, labels: { Team: db.team, Environment: 'production', ...(db.team === 'payments' ? { pci: 'true' } : {}) },
      properties: [{ name: 'engine', text: `${db.engine} ${db.version}` }, { name: 'storage', value: db.storage, unit: 'GiB' }],
      createdDaysAgo: random.int(300, 1200), cost: db.cost,
    })
  }
  for (const bucket of BUCKETS) {
    const publicBucket = bucket === 'acme-marketing-exports'
    add({
      key: `s3:${bucket}`, name: bucket, type: 'AWS::S3::Bucket', configClass: 'Bucket', parent: 'aws:account',
      scraper: awsScraperId, status: null, health: publicBucket ? 'warning' : 'healthy', externalId: [`arn:aws:s3:::${bucket}`],
      config: {
        Name: bucket, Region: AWS_REGION,
        Versioning: bucket === 'acme-terraform-state' || bucket === 'acme-db-backups' ? 'Enabled' : 'Suspended',
        PublicAccessBlock: { BlockPublicAcls: !publicBucket, BlockPublicPolicy: !publicBucket, RestrictPublicBuckets: !publicBucket },
        Encryption: { SSEAlgorithm: 'aws:kms' },
      },
      tags: awsTags, labels: { Team: bucket.includes('invoices') ? 'payments' : 'platform', ...(bucket.includes('invoices') ? { pci: 'true' } : {}) },
      createdDaysAgo: random.int(200, 1300), cost: Number(random.between(0.01, 0.2).toFixed(4)),
    })
  }
  for (const cache of CACHES) {
    add({
      key: `elasticache:${cache.name}`, name: cache.name, type: 'AWS::ElastiCache::CacheCluster', configClass: 'Cache', parent: 'aws:account',
      scraper: awsScraperId, status: 'available', health: 'healthy', externalId: [`arn:aws:elasticache:${AWS_REGION}:${AWS_ACCOUNT}:cluster:${cache.name}`],
      config: { CacheClusterId: cache.name, Engine: 'redis', EngineVersion: '7.1', CacheNodeType: 'cache.r7g.large', NumCacheNodes: 2 },
      tags: awsTags, labels: { Team: cache.team }, createdDaysAgo: random.int(200, 600), cost: 0.19,
    })
  }

  // --- Kubernetes: cluster → node / namespace → deployment → pod, plus services
  for (const cluster of [PROD_CLUSTER, STAGING_CLUSTER]) {
    const production = cluster === PROD_CLUSTER
    const clusterKey = `cluster:${cluster}`
    add({
      key: clusterKey, name: cluster, type: 'Kubernetes::Cluster', configClass: 'Cluster', scraper: kubernetesScraperId,
      status: 'Running', health: 'healthy', externalId: [uid(clusterKey), clusterArn(cluster)],
      config: { name: cluster, version: 'v1.30.5-eks-ce1d5eb', nodes: production ? 4 : 2, platform: 'eks' },
      tags: { cluster, account: AWS_ACCOUNT }, labels: { environment: production ? 'production' : 'staging' },
      createdDaysAgo: production ? 540 : 300,
    })
    for (const node of nodeInstances.filter((candidate) => candidate.cluster === cluster)) {
      const index = Number(node.key.split(':').pop())
      const name = node.name
      const pressure = production && index === 2
      add({
        key: `node:${cluster}:${index}`, name, type: 'Kubernetes::Node', configClass: 'Node', parent: clusterKey,
        scraper: kubernetesScraperId, status: pressure ? 'MemoryPressure' : 'Ready', health: pressure ? 'warning' : 'healthy',
        externalId: [uid(`node:${cluster}:${index}`), node.instanceId],
        config: {
          apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'topology.kubernetes.io/zone': node.az, 'node.kubernetes.io/instance-type': node.type } },
          spec: { providerID: `aws:///${node.az}/${node.instanceId}` },
          status: { capacity: { cpu: production ? '8' : '2', memory: production ? '32302364Ki' : '7934820Ki', pods: '58' }, nodeInfo: { kubeletVersion: 'v1.30.4-eks-a737599', containerRuntimeVersion: 'containerd://1.7.22' } },
        },
        tags: { cluster, account: AWS_ACCOUNT, zone: node.az }, labels: { 'node.kubernetes.io/instance-type': node.type, 'topology.kubernetes.io/zone': node.az },
        properties: [{ name: 'cpu', value: production ? 8 : 2, unit: 'cores' }, { name: 'memory', value: production ? 32 : 8, unit: 'GiB' }],
        createdDaysAgo: random.int(8, 40),
      })
    }
    const workloads = production ? WORKLOADS : WORKLOADS.filter((workload) => STAGING_WORKLOADS.includes(workload.name))
    const namespaces = [...new Set(workloads.map((workload) => workload.namespace))]
    for (const namespace of namespaces) {
      add({
        key: `ns:${cluster}:${namespace}`, name: namespace, type: 'Kubernetes::Namespace', configClass: 'Namespace', parent: clusterKey,
        scraper: kubernetesScraperId, status: 'Active', health: 'healthy', externalId: [uid(`ns:${cluster}:${namespace}`)],
        config: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace, labels: { 'kubernetes.io/metadata.name': namespace } }, status: { phase: 'Active' } },
        tags: { cluster, account: AWS_ACCOUNT, namespace }, labels: { 'kubernetes.io/metadata.name': namespace },
        createdDaysAgo: production ? random.int(300, 500) : random.int(100, 280),
      })
    }
    for (const workload of workloads) {
      const replicas = production ? workload.replicas : 1
      const deployKey = `deploy:${cluster}:${workload.name}`
      const degraded = production && workload.name === 'refunds-api'
      const progressing = production && workload.name === 'search-indexer'
      const image = `${REGISTRY}/${workload.name}:${workload.version}`
      const labels = {
        app: workload.name,
        team: workload.team,
        'app.kubernetes.io/version': workload.version,
        ...(workload.namespace === 'payments' ? { pci: 'true' } : {}),
        critical: ['payments-api', 'checkout-web', 'auth-service', 'ingress-nginx-controller'].includes(workload.name) ? 'true' : 'false',
      }
      const tags = { cluster, account: AWS_ACCOUNT, namespace: workload.namespace }
      const nsKey = `ns:${cluster}:${workload.namespace}`
      add({
        key: deployKey, name: workload.name, type: 'Kubernetes::Deployment', configClass: 'Deployment', parent: nsKey,
        scraper: kubernetesScraperId, status: degraded ? 'Degraded' : progressing ? 'Progressing' : 'Running',
        health: degraded ? 'unhealthy' : progressing ? 'warning' : 'healthy', ready: !degraded,
        description: degraded ? 'Deployment does not have minimum availability: 0/2 replicas ready' : null,
        externalId: [uid(deployKey)],
        config: {
          apiVersion: 'apps/v1', kind: 'Deployment',
          metadata: { name: workload.name, namespace: workload.namespace, labels, uid: uid(deployKey) },
          spec: {
            replicas,
            selector: { matchLabels: { app: workload.name } },
            template: {
              metadata: { labels: { app: workload.name } },
              spec: {
                containers: [{
                  name: workload.name, image, ports: [{ containerPort: workload.port }],
                  resources: workload.name === 'search-indexer' ? {} : { requests: { cpu: '250m', memory: '256Mi' }, limits: { memory: '512Mi' } },
                }],
              },
            },
          },
          status: { replicas, readyReplicas: degraded ? 0 : replicas, updatedReplicas: replicas },
        },
        tags, labels,
        properties: [{ name: 'image', text: image }, { name: 'replicas', value: replicas }],
        createdDaysAgo: random.int(60, 400),
      })
      for (let index = 0; index < replicas; index++) {
        const suffix = ctx.id('pod', `${cluster}/${workload.name}/${index}`).replace(/-/g, '').slice(0, 5)
        const podName = `${workload.name}-${ctx.id('rs', `${cluster}/${workload.name}`).replace(/-/g, '').slice(0, 9)}-${suffix}`
        const crashing = degraded
        const pending = progressing
        const podKey = `pod:${cluster}:${workload.name}:${index}`
        const node = nodeInstances.filter((candidate) => candidate.cluster === cluster)[random.int(0, production ? 3 : 1)]!
        add({
          key: podKey, name: podName, type: 'Kubernetes::Pod', configClass: 'Pod', parent: deployKey,
          scraper: kubernetesScraperId,
          status: crashing ? 'CrashLoopBackOff' : pending ? 'Pending' : 'Running',
          health: crashing ? 'unhealthy' : pending ? 'warning' : 'healthy',
          ready: !crashing && !pending,
          description: crashing ? 'back-off 5m0s restarting failed container' : pending ? '0/4 nodes are available: 4 Insufficient memory.' : null,
          externalId: [uid(podKey)],
          config: {
            apiVersion: 'v1', kind: 'Pod',
            metadata: { name: podName, namespace: workload.namespace, labels: { app: workload.name }, uid: uid(podKey) },
            spec: { nodeName: pending ? null : node.name, containers: [{ name: workload.name, image }] },
            status: {
              phase: pending ? 'Pending' : 'Running',
              podIP: pending ? null : `10.42.${random.int(16, 31)}.${random.int(2, 250)}`,
              containerStatuses: [{ name: workload.name, ready: !crashing && !pending, restartCount: crashing ? random.int(20, 45) : random.int(0, 1) }],
            },
          },
          tags, labels: { app: workload.name, team: workload.team },
          properties: [{ name: 'image', text: image }],
          createdDaysAgo: crashing ? random.between(0.1, 0.4) : random.between(0.5, 12),
        })
      }
      if (workload.service) {
        add({
          key: `svc:${cluster}:${workload.name}`, name: workload.name, type: 'Kubernetes::Service', configClass: 'Service', parent: nsKey,
          scraper: kubernetesScraperId, status: 'Active', health: 'healthy', externalId: [uid(`svc:${cluster}:${workload.name}`)],
          config: {
            apiVersion: 'v1', kind: 'Service', metadata: { name: workload.name, namespace: workload.namespace },
            spec: { type: workload.name === 'ingress-nginx-controller' ? 'LoadBalancer' : 'ClusterIP', ports: [{ port: workload.port === 443 ? 443 : 80, targetPort: workload.port }], selector: { app: workload.name } },
          },
          tags, labels: { app: workload.name, team: workload.team }, createdDaysAgo: random.int(60, 400),
        })
      }
    }
  }
  // The search cluster runs as a StatefulSet; one replica is yellow.
  add({
    key: `sts:${PROD_CLUSTER}:elasticsearch`, name: 'elasticsearch', type: 'Kubernetes::StatefulSet', configClass: 'StatefulSet',
    parent: `ns:${PROD_CLUSTER}:search`, scraper: kubernetesScraperId, status: 'Running', health: 'warning',
    description: '2/3 replicas ready', externalId: [uid('sts:elasticsearch')],
    config: { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'elasticsearch', namespace: 'search' }, spec: { replicas: 3, serviceName: 'elasticsearch' }, status: { readyReplicas: 2 } },
    tags: { cluster: PROD_CLUSTER, account: AWS_ACCOUNT, namespace: 'search' }, labels: { app: 'elasticsearch', team: 'storefront' },
    createdDaysAgo: 380,
  })
  // Pods of the previous refunds-api rollout, gone since the last deploy.
  for (let index = 0; index < 2; index++) {
    const key = `pod:${PROD_CLUSTER}:refunds-api:old-${index}`
    add({
      key, name: `refunds-api-7c9d4f8b6d-${ctx.id('pod', key).slice(0, 5)}`, type: 'Kubernetes::Pod', configClass: 'Pod',
      parent: `deploy:${PROD_CLUSTER}:refunds-api`, scraper: kubernetesScraperId, status: 'Terminated', health: 'unknown', ready: false,
      externalId: [uid(key)],
      config: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'refunds-api-old', namespace: 'payments' }, status: { phase: 'Succeeded' } },
      tags: { cluster: PROD_CLUSTER, account: AWS_ACCOUNT, namespace: 'payments' }, labels: { app: 'refunds-api', team: 'payments' },
      createdDaysAgo: 9, deletedHoursAgo: 5,
    })
  }

  // --- Locations: every namespaced item can be found under its cluster and namespace
  const locations: Row[] = []
  for (const item of items) {
    const tags = item.tags as Record<string, string>
    if (item.type === 'AWS::::Account') continue
    if (typeof item.type === 'string' && item.type.startsWith('AWS::')) {
      locations.push({ id: item.id, location: AWS_ACCOUNT })
      continue
    }
    const cluster = tags.cluster
    if (!cluster || item.type === 'Kubernetes::Cluster') continue
    locations.push({ id: item.id, location: uid(`cluster:${cluster}`) })
    if (tags.namespace && item.type !== 'Kubernetes::Namespace') locations.push({ id: item.id, location: uid(`ns:${cluster}:${tags.namespace}`) })
  }

  // --- Soft relationships the scrapers would infer from env vars and IAM policies
  const soft: [string, string, string][] = [
    [`deploy:${PROD_CLUSTER}:payments-api`, 'rds:payments-db', 'uses-database'],
    [`deploy:${PROD_CLUSTER}:refunds-api`, 'rds:payments-db', 'uses-database'],
    [`deploy:${PROD_CLUSTER}:ledger-api`, 'rds:ledger-db', 'uses-database'],
    [`deploy:${PROD_CLUSTER}:cart-api`, 'rds:orders-db', 'uses-database'],
    [`deploy:${PROD_CLUSTER}:checkout-web`, 'rds:orders-db', 'uses-database'],
    [`deploy:${PROD_CLUSTER}:auth-service`, 'rds:auth-db', 'uses-database'],
    [`deploy:${PROD_CLUSTER}:session-gateway`, 'elasticache:sessions-redis', 'uses-cache'],
    [`deploy:${PROD_CLUSTER}:payments-api`, 'elasticache:idempotency-redis', 'uses-cache'],
    [`deploy:${PROD_CLUSTER}:ledger-api`, 's3:acme-invoices-prod', 'writes-to'],
    [`deploy:${PROD_CLUSTER}:search-indexer`, `sts:${PROD_CLUSTER}:elasticsearch`, 'writes-to'],
    [`deploy:${PROD_CLUSTER}:search-api`, `sts:${PROD_CLUSTER}:elasticsearch`, 'reads-from'],
    [`svc:${PROD_CLUSTER}:ingress-nginx-controller`, `svc:${PROD_CLUSTER}:checkout-web`, 'routes-to'],
    [`svc:${PROD_CLUSTER}:ingress-nginx-controller`, `svc:${PROD_CLUSTER}:payments-api`, 'routes-to'],
    [`svc:${PROD_CLUSTER}:ingress-nginx-controller`, `svc:${PROD_CLUSTER}:search-api`, 'routes-to'],
    [`svc:${PROD_CLUSTER}:ingress-nginx-controller`, `svc:${PROD_CLUSTER}:auth-service`, 'routes-to'],
    [`cluster:${PROD_CLUSTER}`, `eks:${PROD_CLUSTER}`, 'runs-on'],
    [`cluster:${STAGING_CLUSTER}`, `eks:${STAGING_CLUSTER}`, 'runs-on'],
    ['rds:payments-db', 's3:acme-db-backups', 'backs-up-to'],
  ]
  const relationships: Row[] = soft.map(([from, to, relation]) => ({
    config_id: config(from),
    related_id: config(to),
    relation,
    scraper_id: kubernetesScraperId,
    created_at: ctx.ago(random.int(3, 60) * DAY),
    updated_at: ctx.ago(random.int(1, 48) * HOUR),
    deleted_at: null,
    selector_id: null,
  }))

  const changes = buildChanges(ctx, items, people)
  const analysis = buildAnalysis(ctx, config, awsScraperId, kubernetesScraperId)

  const rows = {
    config_items: items.map(({ key: _key, ...row }) => row),
    config_changes: changes,
    config_analysis: analysis,
    config_relationships: relationships,
    config_locations: locations,
  }
  return {
    rows,
    refs: {
      config,
      has: (key) => byKey.has(key),
      kubernetesScraperId,
      awsScraperId,
      workloads: WORKLOADS,
      rdsNames: RDS.map((db) => db.name),
      troubled: items.filter((item) => item.health === 'unhealthy' || item.health === 'warning').map((item) => item.key),
    },
  }
}

function bumpVersion(version: string, step: number): string {
  const match = /^(v?)(\d+)\.(\d+)\.(\d+)$/.exec(version)
  if (!match) return version
  const patch = Math.max(0, Number(match[4]) - step)
  return `${match[1]}${match[2]}.${match[3]}.${patch}`
}

/** A few hundred changes over two weeks: rollouts, scaling, pod events, backups and API calls. */
function buildChanges(ctx: SeedContext, items: Item[], people: PeopleRefs): Row[] {
  const random = ctx.random('config_changes')
  const changes: Row[] = []
  const actors = [people.person('sre').email, people.person('platform-lead').email, 'argocd', 'github-actions[bot]']
  const push = (item: Item, change: { type: string; severity: string; summary: string; ageMs: number; source: string; actor?: string | null; diff?: string | null; patches?: unknown; details?: unknown; count?: number }) => {
    const sequence = changes.length
    const createdAt = ctx.ago(change.ageMs)
    changes.push({
      id: ctx.id('config_change', `${item.key}#${sequence}`),
      config_id: item.id,
      external_change_id: ctx.id('external_change', `${item.key}#${sequence}`),
      external_created_by: change.actor ?? null,
      change_type: change.type,
      severity: change.severity,
      source: change.source,
      summary: change.summary,
      patches: change.patches ?? null,
      diff: change.diff ?? null,
      details: change.details ?? null,
      created_by: null,
      created_at: createdAt,
      count: change.count ?? 1,
      fingerprint: null,
      first_observed: ctx.ago(change.ageMs + (change.count && change.count > 1 ? 3 * HOUR : 0)),
      inserted_at: createdAt,
    })
  }
  const within = (maxMs: number) => random.between(5 * MINUTE, maxMs)

  for (const item of items) {
    const name = item.name as string
    const createdMs = ctx.now.getTime() - new Date(item.created_at as string).getTime()
    const window = Math.min(14 * DAY, createdMs)
    switch (item.type) {
      case 'Kubernetes::Deployment': {
        const container = ((item.config as { spec: { template: { spec: { containers: { image: string }[] } } } }).spec.template.spec.containers[0]!)
        const [repo, version = 'v1.0.0'] = container.image.split(':')
        const rollouts = random.int(3, 6)
        for (let step = rollouts; step >= 1; step--) {
          const from = bumpVersion(version, step)
          const to = bumpVersion(version, step - 1)
          if (from === to) continue
          const ageMs = (window * step) / (rollouts + 1) + random.between(0, HOUR)
          push(item, {
            type: 'diff', severity: 'info', source: 'kubernetes', actor: random.pick(actors), ageMs,
            summary: `image changed from ${from} to ${to}`,
            diff: `@@ -24,7 +24,7 @@\n       containers:\n       - name: ${name}\n-        image: ${repo}:${from}\n+        image: ${repo}:${to}\n         ports:`,
            patches: { spec: { template: { spec: { containers: [{ name, image: `${repo}:${to}` }] } } } },
            details: { from: `${repo}:${from}`, to: `${repo}:${to}` },
          })
          push(item, {
            type: 'ScalingReplicaSet', severity: 'info', source: 'kubernetes/event', ageMs: ageMs - 20_000,
            summary: `Scaled up replica set ${name}-${to.replace(/\W/g, '')} to ${(item.config as { spec: { replicas: number } }).spec.replicas}`,
            details: { reason: 'ScalingReplicaSet', component: 'deployment-controller' },
          })
        }
        if (item.health === 'unhealthy') {
          push(item, { type: 'Unhealthy', severity: 'high', source: 'config-db-health-trigger', ageMs: 70 * MINUTE, summary: `Degraded: ${item.description as string}`, details: { previous: 'healthy', current: 'unhealthy' } })
        }
        break
      }
      case 'Kubernetes::Pod': {
        if (item.deleted_at) {
          push(item, { type: 'Killing', severity: 'info', source: 'kubernetes/event', ageMs: 5 * HOUR, summary: `Stopping container ${name.split('-').slice(0, 2).join('-')}` })
          break
        }
        const image = ((item.properties as { text: string }[])[0]!).text
        push(item, { type: 'Pulled', severity: 'info', source: 'kubernetes/event', ageMs: createdMs - 15_000, summary: `Successfully pulled image "${image}" in 2.1s` })
        if (item.status === 'Pending') {
          push(item, { type: 'FailedScheduling', severity: 'medium', source: 'kubernetes/event', ageMs: 10 * MINUTE, count: random.int(40, 90), summary: item.description as string })
          break
        }
        push(item, { type: 'Started', severity: 'info', source: 'kubernetes/event', ageMs: createdMs - 20_000, summary: 'Started container' })
        if (item.health === 'unhealthy') {
          for (let burst = 0; burst < 8; burst++) {
            push(item, {
              type: burst % 2 === 0 ? 'BackOff' : 'Unhealthy', severity: burst % 2 === 0 ? 'high' : 'medium', source: 'kubernetes/event',
              ageMs: (createdMs * (8 - burst)) / 9, count: random.int(3, 12),
              summary: burst % 2 === 0 ? 'Back-off restarting failed container refunds-api' : 'Readiness probe failed: HTTP probe failed with statuscode: 503',
            })
          }
        }
        break
      }
      case 'Kubernetes::Node': {
        if (item.health === 'warning') {
          push(item, { type: 'NodeHasInsufficientMemory', severity: 'medium', source: 'kubernetes/event', ageMs: 3 * HOUR, summary: 'Node status is now: NodeHasInsufficientMemory' })
        }
        push(item, { type: 'RegisteredNode', severity: 'info', source: 'kubernetes/event', ageMs: Math.min(createdMs, 14 * DAY) - MINUTE, summary: `Node ${name} event: Registered Node in Controller` })
        break
      }
      case 'AWS::RDS::DBInstance': {
        for (let day = 13; day >= 0; day--) {
          push(item, {
            type: 'BackupCompleted', severity: 'info', source: 'AWS::RDS', ageMs: day * DAY + 3 * HOUR + random.between(0, 30 * MINUTE),
            summary: `Automated snapshot rds:${name}-${new Date(ctx.now.getTime() - day * DAY).toISOString().slice(0, 10)} created`,
            details: { SnapshotType: 'automated', Status: 'available' },
          })
        }
        if (name === 'orders-db') {
          push(item, { type: 'ModifyDBInstance', severity: 'medium', source: 'CloudTrail', actor: people.person('dba').email, ageMs: 2 * DAY, summary: 'Parameter group changed: max_connections 400 → 600', details: { eventName: 'ModifyDBInstance', requestParameters: { dBParameterGroupName: 'orders-pg15-tuned' } } })
        }
        break
      }
      case 'AWS::S3::Bucket': {
        if (name === 'acme-marketing-exports') {
          push(item, { type: 'PutBucketPolicy', severity: 'critical', source: 'CloudTrail', actor: 'marketing-export-role', ageMs: 4 * DAY, summary: 'Bucket policy now grants s3:GetObject to Principal "*"', details: { eventName: 'PutBucketPolicy' } })
          push(item, { type: 'PutPublicAccessBlock', severity: 'high', source: 'CloudTrail', actor: people.person('platform-lead').email, ageMs: 2 * DAY, summary: 'Public access block re-enabled', details: { eventName: 'PutPublicAccessBlock' } })
        } else if (random.chance(0.5)) {
          push(item, { type: 'PutBucketLifecycleConfiguration', severity: 'low', source: 'CloudTrail', actor: 'terraform', ageMs: within(14 * DAY), summary: 'Lifecycle rule "expire-noncurrent-90d" applied', details: { eventName: 'PutBucketLifecycleConfiguration' } })
        }
        break
      }
      case 'AWS::EC2::Instance': {
        if (item.status === 'stopped') {
          push(item, { type: 'StopInstances', severity: 'medium', source: 'CloudTrail', actor: people.person('sre').email, ageMs: 11 * DAY, summary: 'Instance stopped', details: { eventName: 'StopInstances' } })
        } else if (random.chance(0.4)) {
          push(item, { type: 'ModifyInstanceMetadataOptions', severity: 'low', source: 'CloudTrail', actor: 'terraform', ageMs: within(14 * DAY), summary: 'IMDSv2 enforced (HttpTokens=required)', details: { eventName: 'ModifyInstanceMetadataOptions' } })
        }
        break
      }
      default:
        break
    }
  }
  return changes
}

function buildAnalysis(ctx: SeedContext, config: (key: string) => string, awsScraper: string, kubeScraper: string): Row[] {
  const random = ctx.random('config_analysis')
  type Finding = { key: string; analyzer: string; type: string; severity: string; summary: string; message: string; status: string; source: string }
  const k = (kind: string, name: string) => `${kind}:${PROD_CLUSTER}:${name}`
  const findings: Finding[] = [
    { key: k('deploy', 'payments-api'), analyzer: 'CVE-2024-45337', type: 'security', severity: 'critical', summary: 'golang.org/x/crypto: misuse of ServerConfig.PublicKeyCallback', message: 'Installed 0.28.0, fixed in 0.31.0', status: 'open', source: 'trivy' },
    { key: k('deploy', 'auth-service'), analyzer: 'CVE-2024-45337', type: 'security', severity: 'critical', summary: 'golang.org/x/crypto: misuse of ServerConfig.PublicKeyCallback', message: 'Installed 0.27.0, fixed in 0.31.0', status: 'open', source: 'trivy' },
    { key: k('deploy', 'checkout-web'), analyzer: 'CVE-2024-21538', type: 'security', severity: 'high', summary: 'cross-spawn: regular expression denial of service', message: 'Installed 7.0.3, fixed in 7.0.5', status: 'open', source: 'trivy' },
    { key: k('deploy', 'search-api'), analyzer: 'CVE-2023-44487', type: 'security', severity: 'high', summary: 'HTTP/2 rapid reset can cause excessive work', message: 'Installed golang.org/x/net 0.15.0, fixed in 0.17.0', status: 'resolved', source: 'trivy' },
    { key: k('deploy', 'grafana'), analyzer: 'CVE-2024-9264', type: 'security', severity: 'critical', summary: 'Grafana SQL Expressions allow arbitrary code execution', message: 'Upgrade to 11.3.0+security-01', status: 'resolved', source: 'trivy' },
    { key: k('deploy', 'ledger-api'), analyzer: 'CVE-2024-24790', type: 'security', severity: 'medium', summary: 'net/netip: unexpected behavior from Is methods for IPv4-mapped IPv6 addresses', message: 'Rebuild with Go 1.22.4', status: 'open', source: 'trivy' },
    { key: 's3:acme-marketing-exports', analyzer: 'S3BucketPublicRead', type: 'security', severity: 'critical', summary: 'Bucket policy allows public read access', message: 'Statement "PublicRead" grants s3:GetObject to "*"', status: 'resolved', source: 'AWS Security Hub' },
    { key: 's3:acme-marketing-exports', analyzer: 'S3BucketLogging', type: 'compliance', severity: 'medium', summary: 'Server access logging is disabled', message: 'Enable access logging to acme-logs', status: 'open', source: 'AWS Config' },
    { key: 's3:acme-assets-prod', analyzer: 'S3BucketVersioning', type: 'reliability', severity: 'low', summary: 'Versioning is not enabled', message: 'Objects overwritten by deploys cannot be recovered', status: 'silenced', source: 'AWS Config' },
    { key: 'rds:ledger-db', analyzer: 'RDSMultiAZ', type: 'reliability', severity: 'high', summary: 'Instance is not Multi-AZ', message: 'A single AZ failure takes the ledger offline', status: 'open', source: 'AWS Trusted Advisor' },
    { key: 'rds:auth-db', analyzer: 'RDSMultiAZ', type: 'reliability', severity: 'medium', summary: 'Instance is not Multi-AZ', message: 'A single AZ failure takes sign-in offline', status: 'open', source: 'AWS Trusted Advisor' },
    { key: 'rds:orders-db', analyzer: 'RDSReplicaLag', type: 'performance', severity: 'high', summary: 'Read replica lag above 60 seconds', message: 'ReplicaLag peaked at 184 s during the nightly export', status: 'open', source: 'AWS CloudWatch' },
    { key: 'rds:ledger-db', analyzer: 'RDSEngineVersion', type: 'technical_debt', severity: 'low', summary: 'PostgreSQL 14 reaches end of standard support in Nov 2026', message: 'Plan an upgrade to 16', status: 'open', source: 'AWS Health' },
    { key: 'rds:payments-db', analyzer: 'RDSIdleConnections', type: 'cost', severity: 'low', summary: 'Instance is over-provisioned', message: 'Average CPU 9% over 14 days; db.r6g.large would save $220/month', status: 'open', source: 'AWS Compute Optimizer' },
    { key: 'ec2:legacy-ftp-gateway', analyzer: 'EC2IdleInstance', type: 'cost', severity: 'medium', summary: 'Stopped instance still has 500 GiB of EBS volumes attached', message: 'Snapshot and delete the volumes', status: 'open', source: 'AWS Trusted Advisor' },
    { key: 'ec2:legacy-ftp-gateway', analyzer: 'EC2IMDSv1', type: 'security', severity: 'high', summary: 'Instance metadata service v1 is enabled', message: 'Set HttpTokens=required', status: 'open', source: 'AWS Security Hub' },
    { key: k('deploy', 'search-indexer'), analyzer: 'MissingResourceLimits', type: 'recommendation', severity: 'medium', summary: 'Container has no memory limit', message: 'search-indexer can starve other pods on the node', status: 'open', source: 'polaris' },
    { key: k('deploy', 'refunds-api'), analyzer: 'PodRestarts', type: 'availability', severity: 'high', summary: 'Pods restarted more than 20 times in the last hour', message: 'CrashLoopBackOff on every replica since the v3.8.0 rollout', status: 'open', source: 'kubernetes' },
    { key: k('deploy', 'fraud-scoring'), analyzer: 'DeprecatedAPIVersion', type: 'technical_debt', severity: 'low', summary: 'PodDisruptionBudget uses policy/v1beta1', message: 'policy/v1beta1 was removed in Kubernetes 1.25', status: 'resolved', source: 'pluto' },
    { key: k('deploy', 'session-gateway'), analyzer: 'RunAsRoot', type: 'security', severity: 'medium', summary: 'Container runs as root', message: 'Set securityContext.runAsNonRoot=true', status: 'open', source: 'polaris' },
    { key: `node:${PROD_CLUSTER}:2`, analyzer: 'NodeMemoryPressure', type: 'availability', severity: 'medium', summary: 'Node reports MemoryPressure', message: 'Pods are being evicted from this node', status: 'open', source: 'kubernetes' },
    { key: `cluster:${STAGING_CLUSTER}`, analyzer: 'ClusterVersionSkew', type: 'integration', severity: 'info', summary: 'Staging runs the same minor as production', message: 'No action needed', status: 'resolved', source: 'kubernetes' },
    { key: 'elasticache:sessions-redis', analyzer: 'ElastiCacheEncryption', type: 'compliance', severity: 'medium', summary: 'In-transit encryption is disabled', message: 'Enable TLS for the replication group', status: 'silenced', source: 'AWS Config' },
    { key: k('deploy', 'cart-api'), analyzer: 'HPAMissing', type: 'recommendation', severity: 'info', summary: 'No HorizontalPodAutoscaler targets this deployment', message: 'Traffic doubles during campaigns', status: 'open', source: 'polaris' },
  ]
  return findings.map((finding, index) => {
    const firstObservedMs = random.between(HOUR, 13 * DAY)
    return {
      id: ctx.id('config_analysis', `${finding.key}#${finding.analyzer}`),
      config_id: config(finding.key),
      scraper_id: finding.key.startsWith('deploy') || finding.key.startsWith('node') || finding.key.startsWith('cluster') ? kubeScraper : awsScraper,
      created_by: null,
      source: finding.source,
      analyzer: finding.analyzer,
      analysis_type: finding.type,
      severity: finding.severity,
      summary: finding.summary,
      status: finding.status,
      message: finding.message,
      analysis: { rule: finding.analyzer, detectedBy: finding.source, ordinal: index },
      properties: null,
      first_observed: ctx.ago(firstObservedMs),
      last_observed: ctx.ago(finding.status === 'resolved' ? firstObservedMs / 3 : random.between(MINUTE, HOUR)),
    }
  })
}
