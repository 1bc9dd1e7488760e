import { PROD_CLUSTER, type CatalogRefs } from './catalog.ts'
import { HOUR, MINUTE, type Row, type SeedContext } from './context.ts'
import type { HealthRefs } from './health.ts'
import type { PeopleRefs, StaffKey, TeamKey } from './people.ts'

type EvidenceDef =
  | { type: 'check'; check: string; description: string; dod?: boolean; done?: boolean }
  | { type: 'config'; config: string; description: string; dod?: boolean; done?: boolean }
  | { type: 'config_change'; config: string; changeType: string; description: string }
  | { type: 'config_analysis'; config: string; analyzer: string; description: string; dod?: boolean; done?: boolean }
  | { type: 'topology'; component: string; description: string }
  | { type: 'comment'; description: string }

type HypothesisDef = { key: string; type: 'root' | 'factor' | 'solution'; title: string; status: string; parent?: string; evidences?: EvidenceDef[] }

type IncidentDef = {
  key: string
  title: string
  description: string
  type: string
  severity: string
  status: string
  ageHours: number
  createdBy: StaffKey
  commander: StaffKey | null
  communicator?: StaffKey
  responders: ({ person: StaffKey } | { team: TeamKey })[]
  hypotheses: HypothesisDef[]
  comments: { by: StaffKey; text: string; minutesAfter: number; asResponder?: boolean }[]
  rule?: boolean
}

const deploy = (name: string) => `deploy:${PROD_CLUSTER}:${name}`

const INCIDENTS: IncidentDef[] = [
  {
    key: 'refunds-503', title: 'Refunds API returning 503 after v3.8.0 rollout',
    description: 'Every refunds-api replica is crash-looping since the 3.8.0 deploy; customers cannot request refunds.',
    type: 'availability', severity: 'high', status: 'investigating', ageHours: 1.1, createdBy: 'payments-oncall', commander: 'incident-manager', communicator: 'product',
    responders: [{ person: 'payments-oncall' }, { team: 'payments' }, { person: 'sre' }], rule: true,
    hypotheses: [
      { key: 'root', type: 'root', title: 'refunds-api pods crash on start-up', status: 'proven', evidences: [
        { type: 'check', check: 'refunds-api-health', description: 'Health endpoint fails since 70 minutes ago', dod: true, done: false },
        { type: 'config', config: `pod:${PROD_CLUSTER}:refunds-api:0`, description: 'Pod in CrashLoopBackOff with 30+ restarts' },
      ] },
      { key: 'factor', type: 'factor', parent: 'root', title: 'v3.8.0 requires REFUND_PROVIDER_URL, which is missing from the ConfigMap', status: 'likely', evidences: [
        { type: 'config_change', config: deploy('refunds-api'), changeType: 'diff', description: 'Image bumped to v3.8.0 shortly before the first failure' },
        { type: 'comment', description: 'Container log: "panic: env REFUND_PROVIDER_URL not set"' },
      ] },
      { key: 'solution', type: 'solution', parent: 'factor', title: 'Roll back refunds-api to v3.7.x and add the variable before re-deploying', status: 'possible' },
    ],
    comments: [
      { by: 'payments-oncall', text: 'Paged by the refunds-api-health check. All pods restarting, rollback is being prepared.', minutesAfter: 4, asResponder: true },
      { by: 'incident-manager', text: 'Taking command. Status page updated: refunds delayed, payments unaffected.', minutesAfter: 9 },
      { by: 'sre', text: 'Rollback PR opened in the gitops repo; waiting for Argo CD sync.', minutesAfter: 31 },
    ],
  },
  {
    key: 'orders-lag', title: 'Orders DB read replica lagging more than 60 s',
    description: 'Order history pages show stale data; the nightly export saturates the replica.',
    type: 'performance', severity: 'medium', status: 'mitigated', ageHours: 30, createdBy: 'dba', commander: 'sre',
    responders: [{ person: 'dba' }, { team: 'platform' }],
    hypotheses: [
      { key: 'root', type: 'root', title: 'Replica cannot keep up with write volume during the export', status: 'likely', evidences: [
        { type: 'config_analysis', config: 'rds:orders-db', analyzer: 'RDSReplicaLag', description: 'CloudWatch ReplicaLag peaked at 184 s', dod: true, done: true },
        { type: 'check', check: 'orders-db-replica-lag', description: 'Replica lag check flapping' },
      ] },
      { key: 'solution', type: 'solution', parent: 'root', title: 'Move the export to a dedicated replica', status: 'possible', evidences: [
        { type: 'config', config: 'rds:orders-db', description: 'Parameter group tuned; lag back under 20 s' },
      ] },
    ],
    comments: [
      { by: 'dba', text: 'Paused the export job, lag is recovering.', minutesAfter: 40, asResponder: true },
      { by: 'sre', text: 'Marking as mitigated; follow-up ticket PLAT-2291 for the dedicated replica.', minutesAfter: 300 },
    ],
  },
  {
    key: 'public-bucket', title: 'Marketing exports bucket was publicly readable',
    description: 'A bucket policy granted s3:GetObject to everyone for four days. Exports contain customer emails.',
    type: 'security', severity: 'critical', status: 'resolved', ageHours: 96, createdBy: 'contractor', commander: 'platform-lead',
    responders: [{ person: 'platform-lead' }, { team: 'platform' }],
    hypotheses: [
      { key: 'root', type: 'root', title: 'Marketing automation role replaced the bucket policy', status: 'proven', evidences: [
        { type: 'config_change', config: 's3:acme-marketing-exports', changeType: 'PutBucketPolicy', description: 'CloudTrail shows PutBucketPolicy with Principal "*"' },
        { type: 'config_analysis', config: 's3:acme-marketing-exports', analyzer: 'S3BucketPublicRead', description: 'Security Hub finding', dod: true, done: true },
      ] },
      { key: 'solution', type: 'solution', parent: 'root', title: 'Re-enable the public access block and scope the role', status: 'proven' },
    ],
    comments: [
      { by: 'contractor', text: 'Found during the quarterly audit: objects are listable anonymously.', minutesAfter: 1 },
      { by: 'platform-lead', text: 'Public access block re-enabled, access logs requested from AWS for the exposure window.', minutesAfter: 50, asResponder: true },
    ],
  },
  {
    key: 'search-latency', title: 'Search latency above 800 ms from eu-west',
    description: 'p95 search latency from the eu-west edge agent doubled after an index mapping change.',
    type: 'performance', severity: 'low', status: 'closed', ageHours: 200, createdBy: 'backend', commander: 'backend',
    responders: [{ team: 'storefront' }],
    hypotheses: [
      { key: 'root', type: 'root', title: 'New synonym filter makes every query expand to many terms', status: 'proven', evidences: [
        { type: 'topology', component: 'search-api', description: 'search-api component degraded during the window' },
      ] },
      { key: 'rejected', type: 'factor', parent: 'root', title: 'Elasticsearch node under memory pressure', status: 'disproven' },
    ],
    comments: [{ by: 'backend', text: 'Reverted the synonym filter; latency back to 450 ms.', minutesAfter: 120 }],
  },
  {
    key: 'eks-cost', title: 'EKS node group cost up 40% week over week',
    description: 'The general node group scaled to 4 m6i.2xlarge nodes and never scaled back.',
    type: 'cost', severity: 'medium', status: 'open', ageHours: 20, createdBy: 'platform-lead', commander: null,
    responders: [{ team: 'platform' }],
    hypotheses: [
      { key: 'root', type: 'root', title: 'search-indexer has no memory limit and blocks scale-down', status: 'possible', evidences: [
        { type: 'config_analysis', config: deploy('search-indexer'), analyzer: 'MissingResourceLimits', description: 'Polaris: container has no memory limit' },
      ] },
    ],
    comments: [],
  },
  {
    key: 'tls-expiry', title: 'TLS certificate for api.acme-shop.io renews in 10 days',
    description: 'cert-manager has not renewed the certificate; the ACME order is stuck.',
    type: 'compliance', severity: 'blocker', status: 'new', ageHours: 0.5, createdBy: 'sre', commander: null,
    responders: [],
    hypotheses: [],
    comments: [],
  },
]

export function buildIncidents(
  ctx: SeedContext,
  people: PeopleRefs,
  catalog: CatalogRefs,
  health: HealthRefs,
  component: (key: string) => string,
  changeRows: Row[],
  analysisRows: Row[],
): { rows: Record<string, Row[]>; refs: { incident(key: string): string; ruleId: string } } {
  const random = ctx.random('incidents')
  const incidents: Row[] = []
  const responders: Row[] = []
  const hypotheses: Row[] = []
  const evidences: Row[] = []
  const comments: Row[] = []
  const ids = new Map<string, string>()
  const ruleId = ctx.id('incident_rule', 'critical-payment-checks')

  const changeFor = (config: string, changeType: string): string | null => {
    const configId = catalog.config(config)
    const match = changeRows
      .filter((row) => row.config_id === configId && row.change_type === changeType)
      .sort((a, b) => String(b.created_at).localeCompare(String(a.created_at)))[0]
    return (match?.id as string | undefined) ?? null
  }
  const analysisFor = (config: string, analyzer: string): string | null => {
    const configId = catalog.config(config)
    return (analysisRows.find((row) => row.config_id === configId && row.analyzer === analyzer)?.id as string | undefined) ?? null
  }

  for (const def of INCIDENTS) {
    const id = ctx.id('incident', def.key)
    ids.set(def.key, id)
    const createdMs = def.ageHours * HOUR
    const at = (minutesAfter: number) => ctx.ago(Math.max(createdMs - minutesAfter * MINUTE, 30_000))
    const progressed = ['investigating', 'mitigated', 'resolved', 'closed', 'open'].includes(def.status)
    incidents.push({
      id,
      incident_rule_id: def.rule ? ruleId : null,
      title: def.title,
      created_by: people.person(def.createdBy).id,
      commander_id: def.commander ? people.person(def.commander).id : null,
      communicator_id: def.communicator ? people.person(def.communicator).id : null,
      severity: def.severity,
      description: def.description,
      type: def.type,
      status: def.status,
      acknowledged: progressed ? at(random.int(2, 10)) : null,
      resolved: def.status === 'resolved' || def.status === 'closed' ? at(def.ageHours * 60 * 0.6) : null,
      closed: def.status === 'closed' ? at(def.ageHours * 60 * 0.8) : null,
      created_at: ctx.ago(createdMs),
      updated_at: at(random.int(10, 60)),
    })

    const responderIds = new Map<string, string>()
    def.responders.forEach((responder, index) => {
      const key = 'person' in responder ? `person:${responder.person}` : `team:${responder.team}`
      const responderId = ctx.id('responder', `${def.key}/${key}`)
      responderIds.set(key, responderId)
      responders.push({
        id: responderId,
        incident_id: id,
        // Team responders are reached through the team's mailbox, the simplest responder client.
        type: 'person' in responder ? 'person' : 'email',
        index,
        person_id: 'person' in responder ? people.person(responder.person).id : null,
        team_id: 'team' in responder ? people.team(responder.team).id : null,
        external_id: null,
        properties: 'team' in responder ? { to: `${responder.team}@acme-shop.io` } : null,
        acknowledged: at(3 + index * 2),
        resolved: null,
        closed: null,
        created_by: people.person(def.commander ?? def.createdBy).id,
        created_at: at(2 + index),
        updated_at: at(3 + index * 2),
        deleted_at: null,
      })
    })
    const firstResponder = [...responderIds.values()][0] ?? null

    const hypothesisIds = new Map<string, string>()
    def.hypotheses.forEach((hypothesis, hIndex) => {
      const hypothesisId = ctx.id('hypothesis', `${def.key}/${hypothesis.key}`)
      hypothesisIds.set(hypothesis.key, hypothesisId)
      const createdAt = at(12 + hIndex * 6)
      hypotheses.push({
        id: hypothesisId,
        created_by: people.person(def.commander ?? def.createdBy).id,
        incident_id: id,
        parent_id: hypothesis.parent ? hypothesisIds.get(hypothesis.parent) ?? null : null,
        owner: firstResponder,
        team_id: null,
        type: hypothesis.type,
        title: hypothesis.title,
        status: hypothesis.status,
        created_at: createdAt,
        updated_at: createdAt,
      })
      hypothesis.evidences?.forEach((evidence, eIndex) => {
        const base = {
          id: ctx.id('evidence', `${def.key}/${hypothesis.key}/${eIndex}`),
          description: evidence.description,
          hypothesis_id: hypothesisId,
          config_id: null as string | null,
          config_change_id: null as string | null,
          config_analysis_id: null as string | null,
          component_id: null as string | null,
          check_id: null as string | null,
          definition_of_done: 'dod' in evidence ? evidence.dod ?? false : false,
          done: 'done' in evidence ? evidence.done ?? null : null,
          factor: hypothesis.type === 'factor',
          mitigator: hypothesis.type === 'solution',
          created_by: people.person(def.commander ?? def.createdBy).id,
          type: evidence.type,
          evidence: null as unknown,
          properties: null,
          created_at: at(14 + hIndex * 6 + eIndex),
          updated_at: at(14 + hIndex * 6 + eIndex),
          script: null,
          script_result: null,
        }
        switch (evidence.type) {
          case 'check':
            base.check_id = health.check(evidence.check)
            break
          case 'config':
            base.config_id = catalog.config(evidence.config)
            break
          case 'config_change':
            base.config_id = catalog.config(evidence.config)
            base.config_change_id = changeFor(evidence.config, evidence.changeType)
            break
          case 'config_analysis':
            base.config_id = catalog.config(evidence.config)
            base.config_analysis_id = analysisFor(evidence.config, evidence.analyzer)
            break
          case 'topology':
            base.component_id = component(evidence.component)
            break
          case 'comment':
            base.evidence = { comment: evidence.description }
            break
        }
        evidences.push(base)
      })
    })

    def.comments.forEach((comment, index) => {
      const responderId = comment.asResponder ? responderIds.get(`person:${comment.by}`) ?? null : null
      comments.push({
        id: ctx.id('comment', `${def.key}/${index}`),
        created_by: people.person(comment.by).id,
        comment: comment.text,
        external_id: null,
        external_created_by: null,
        incident_id: id,
        responder_id: responderId,
        hypothesis_id: null,
        read: null,
        created_at: at(comment.minutesAfter),
        updated_at: at(comment.minutesAfter),
      })
    })
  }

  const rules: Row[] = [
    {
      id: ruleId,
      name: 'critical-payment-checks',
      spec: {
        name: 'critical-payment-checks',
        components: [{ labelSelector: 'team=payments' }],
        filter: { status: ['unhealthy'], severity: ['critical', 'high'], category: ['*'], age: 300_000_000_000 },
        template: { title: '{{.component.name}} is unhealthy', type: 'availability', status: 'open', severity: 'high', commander_id: people.person('incident-manager').id },
        autoAssignOwner: true,
        priority: 1,
        breakOnMatch: true,
        autoResolve: { timeout: '30m' },
        responders: { email: [{ to: `payments-oncall@acme-shop.io`, subject: 'New payments incident' }] },
      },
      source: 'UI',
      created_by: people.person('incident-manager').id,
      created_at: ctx.ago(120 * 24 * HOUR),
      updated_at: ctx.ago(20 * 24 * HOUR),
      deleted_at: null,
    },
  ]

  return {
    rows: { incident_rules: rules, incidents, responders, hypotheses, evidences, comments },
    refs: {
      ruleId,
      incident(key) {
        const found = ids.get(key)
        if (!found) throw new Error(`unknown demo incident ${key}`)
        return found
      },
    },
  }
}
