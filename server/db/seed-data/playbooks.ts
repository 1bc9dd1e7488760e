import { PROD_CLUSTER, type CatalogRefs } from './catalog.ts'
import { DAY, MINUTE, type Row, type SeedContext } from './context.ts'
import type { HealthRefs } from './health.ts'
import type { PeopleRefs } from './people.ts'

type PlaybookDef = { key: string; namespace: string; source: 'UI' | 'KubernetesCRD'; spec: Record<string, unknown> }

const PLAYBOOKS: PlaybookDef[] = [
  {
    key: 'restart-deployment', namespace: 'default', source: 'UI',
    spec: {
      title: 'Restart deployment', description: 'Rolling restart of a Kubernetes deployment', category: 'Kubernetes', icon: 'kubernetes', timeout: '10m',
      configs: [{ types: ['Kubernetes::Deployment'] }],
      parameters: [{ name: 'reason', label: 'Why restart?', type: 'text', required: true }],
      actions: [
        { name: 'rollout-restart', timeout: '5m', exec: { script: 'kubectl rollout restart deployment/{{.config.name}} -n {{.config.tags.namespace}}', connections: { kubernetes: { connection: 'connection://platform/prod-cluster' } } } },
        { name: 'wait-for-rollout', exec: { script: 'kubectl rollout status deployment/{{.config.name}} -n {{.config.tags.namespace}} --timeout=4m' } },
      ],
    },
  },
  {
    key: 'scale-deployment', namespace: 'platform', source: 'KubernetesCRD',
    spec: {
      title: 'Scale deployment', description: 'Change the replica count of a deployment', category: 'Kubernetes', icon: 'scale',
      configs: [{ types: ['Kubernetes::Deployment'], tagSelector: 'cluster=prod-eu-west-1' }],
      parameters: [{ name: 'replicas', label: 'Replicas', type: 'text', default: '{{.config.config.spec.replicas}}', required: true }],
      approval: { type: 'any', approvers: { teams: ['Platform SRE'] } },
      actions: [{ name: 'scale', exec: { script: 'kubectl scale deployment/{{.config.name}} -n {{.config.tags.namespace}} --replicas={{.params.replicas}}' } }],
    },
  },
  {
    key: 'rollback-release', namespace: 'platform', source: 'KubernetesCRD',
    spec: {
      title: 'Roll back release', description: 'Pin a deployment to its previous image through the gitops repository', category: 'Release', icon: 'git',
      configs: [{ types: ['Kubernetes::Deployment'] }],
      parameters: [{ name: 'version', label: 'Version to pin', type: 'text', required: true }],
      actions: [
        {
          name: 'open-pull-request',
          gitops: {
            repo: { url: 'https://github.com/acme-shop/gitops', connection: 'connection://default/github', base: 'main', branch: 'rollback/{{.config.name}}-{{.params.version}}' },
            commit: { author: 'Lookout', email: 'lookout@acme-shop.io', message: 'chore: roll back {{.config.name}} to {{.params.version}}' },
            pr: { title: 'Roll back {{.config.name}} to {{.params.version}}', tags: ['rollback'] },
            patches: [{ path: 'apps/{{.config.tags.namespace}}/{{.config.name}}/kustomization.yaml', yq: '.images[0].newTag = "{{.params.version}}"' }],
          },
        },
        { name: 'notify-channel', if: 'always()', notification: { connection: 'connection://default/team-chat', title: 'Rollback of {{.config.name}} requested', message: 'PR opened by {{.user.name}}' } },
      ],
    },
  },
  {
    key: 'rds-snapshot', namespace: 'payments', source: 'UI',
    spec: {
      title: 'Take RDS snapshot', description: 'Manual snapshot before risky maintenance', category: 'AWS', icon: 'aws-rds',
      configs: [{ types: ['AWS::RDS::DBInstance'] }],
      parameters: [{ name: 'label', label: 'Snapshot label', type: 'text', default: 'manual-{{.config.name}}' }],
      actions: [{ name: 'create-snapshot', exec: { script: 'aws rds create-db-snapshot --db-instance-identifier {{.config.name}} --db-snapshot-identifier {{.params.label}}-$(date +%s)', connections: { aws: { connection: 'connection://default/aws-prod' } } } }],
    },
  },
  {
    key: 'diagnose-failing-check', namespace: 'default', source: 'UI',
    spec: {
      title: 'Diagnose failing check', description: 'Collect recent logs and the last responses of a failing HTTP check', category: 'Troubleshooting', icon: 'stethoscope',
      checks: [{ types: ['http'] }],
      on: { canary: [{ event: 'failed', labels: { critical: 'true' } }] },
      actions: [
        { name: 'fetch-endpoint', http: { url: '{{.check.spec.url}}', method: 'GET' } },
        { name: 'recent-logs', logs: { loki: { query: '{app="{{.check.labels.app}}"} |= "error"' }, start: 'now-15m', limit: '200' } },
      ],
    },
  },
]

type RunDef = {
  playbook: string
  status: string
  ageMinutes: number
  durationSeconds: number | null
  target: { config: string } | { check: string }
  by: 'sre' | 'payments-oncall' | 'platform-lead' | null
  parameters: Record<string, string>
  actions: { name: string; status: string; result?: unknown; error?: string }[]
  error?: string
  approvedBy?: 'platform-lead'
}

const deploy = (name: string) => `deploy:${PROD_CLUSTER}:${name}`

const RUNS: RunDef[] = [
  { playbook: 'restart-deployment', status: 'completed', ageMinutes: 6 * 24 * 60, durationSeconds: 94, target: { config: deploy('search-api') }, by: 'sre', parameters: { reason: 'memory leak after 4.1.6' },
    actions: [{ name: 'rollout-restart', status: 'completed', result: { stdout: 'deployment.apps/search-api restarted', stderr: '', exitCode: 0 } }, { name: 'wait-for-rollout', status: 'completed', result: { stdout: 'deployment "search-api" successfully rolled out', stderr: '', exitCode: 0 } }] },
  { playbook: 'restart-deployment', status: 'failed', ageMinutes: 55, durationSeconds: 242, target: { config: deploy('refunds-api') }, by: 'payments-oncall', parameters: { reason: 'pods crash-looping' }, error: 'action wait-for-rollout failed',
    actions: [{ name: 'rollout-restart', status: 'completed', result: { stdout: 'deployment.apps/refunds-api restarted', stderr: '', exitCode: 0 } }, { name: 'wait-for-rollout', status: 'failed', error: 'error: deployment "refunds-api" exceeded its progress deadline', result: { stdout: 'Waiting for deployment "refunds-api" rollout to finish: 0 of 2 updated replicas are available...', stderr: 'error: deployment "refunds-api" exceeded its progress deadline', exitCode: 1 } }] },
  { playbook: 'rollback-release', status: 'running', ageMinutes: 3, durationSeconds: null, target: { config: deploy('refunds-api') }, by: 'sre', parameters: { version: 'v3.7.2' },
    actions: [{ name: 'open-pull-request', status: 'running' }] },
  { playbook: 'scale-deployment', status: 'completed', ageMinutes: 3 * 24 * 60, durationSeconds: 8, target: { config: deploy('checkout-web') }, by: 'sre', parameters: { replicas: '3' }, approvedBy: 'platform-lead',
    actions: [{ name: 'scale', status: 'completed', result: { stdout: 'deployment.apps/checkout-web scaled', stderr: '', exitCode: 0 } }] },
  { playbook: 'scale-deployment', status: 'pending_approval', ageMinutes: 25, durationSeconds: null, target: { config: deploy('search-indexer') }, by: 'payments-oncall', parameters: { replicas: '2' }, actions: [] },
  { playbook: 'rds-snapshot', status: 'completed', ageMinutes: 2 * 24 * 60 + 30, durationSeconds: 12, target: { config: 'rds:orders-db' }, by: 'platform-lead', parameters: { label: 'before-param-change' },
    actions: [{ name: 'create-snapshot', status: 'completed', result: { stdout: '{"DBSnapshot": {"Status": "creating"}}', stderr: '', exitCode: 0 } }] },
  { playbook: 'rds-snapshot', status: 'cancelled', ageMinutes: 9 * 24 * 60, durationSeconds: 2, target: { config: 'rds:ledger-db' }, by: 'sre', parameters: { label: 'manual-ledger-db' }, actions: [{ name: 'create-snapshot', status: 'skipped' }] },
  { playbook: 'diagnose-failing-check', status: 'completed', ageMinutes: 68, durationSeconds: 6, target: { check: 'refunds-api-health' }, by: null, parameters: {},
    actions: [{ name: 'fetch-endpoint', status: 'completed', result: { code: 503, headers: { 'Content-Type': 'text/plain' }, content: 'upstream connect error or disconnect/reset before headers' } }, { name: 'recent-logs', status: 'completed', result: { logs: [{ message: 'panic: env REFUND_PROVIDER_URL not set', labels: { app: 'refunds-api' } }] } }] },
  { playbook: 'diagnose-failing-check', status: 'scheduled', ageMinutes: 1, durationSeconds: null, target: { check: 'node-memory-pressure' }, by: null, parameters: {}, actions: [] },
]

export function buildPlaybooks(
  ctx: SeedContext,
  people: PeopleRefs,
  catalog: CatalogRefs,
  health: HealthRefs,
): { rows: Record<string, Row[]>; refs: { playbook(key: string): string; runs: Row[] } } {
  const random = ctx.random('playbooks')
  const ids = new Map<string, string>()
  const specs = new Map<string, Record<string, unknown>>()
  const playbook = (key: string) => {
    const id = ids.get(key)
    if (!id) throw new Error(`unknown demo playbook ${key}`)
    return id
  }
  const playbooks: Row[] = PLAYBOOKS.map((def) => {
    const id = ctx.id('playbook', `${def.namespace}/${def.key}`)
    ids.set(def.key, id)
    specs.set(def.key, def.spec)
    return {
      id,
      namespace: def.namespace,
      name: def.key,
      title: def.spec.title,
      icon: def.spec.icon,
      description: def.spec.description,
      spec: def.spec,
      created_by: people.person('platform-lead').id,
      source: def.source,
      category: def.spec.category,
      created_at: ctx.ago(random.int(40, 200) * DAY),
      updated_at: ctx.ago(random.int(1, 30) * DAY),
      deleted_at: null,
    }
  })

  const runs: Row[] = []
  const actions: Row[] = []
  const approvals: Row[] = []
  RUNS.forEach((run, index) => {
    const id = ctx.id('playbook_run', `${run.playbook}#${index}`)
    const created = run.ageMinutes * MINUTE
    // An approved run only starts once the approval is in.
    const started = run.status === 'pending_approval' || run.status === 'scheduled' ? null : created - (run.approvedBy ? 3 * MINUTE : 5_000)
    const end = run.durationSeconds !== null && started !== null ? started - run.durationSeconds * 1000 : null
    runs.push({
      id,
      playbook_id: playbook(run.playbook),
      spec: specs.get(run.playbook),
      status: run.status,
      created_at: ctx.ago(created),
      start_time: started === null ? null : ctx.ago(started),
      scheduled_time: ctx.ago(created - 1_000),
      end_time: end === null ? null : ctx.ago(end),
      timeout: 1_800_000_000_000,
      created_by: run.by ? people.person(run.by).id : null,
      notification_send_id: null,
      check_id: 'check' in run.target ? health.check(run.target.check) : null,
      config_id: 'config' in run.target ? catalog.config(run.target.config) : null,
      component_id: null,
      parameters: run.parameters,
      request: run.by ? null : { event: 'check.failed', source: 'playbook.on.canary' },
      agent_id: '00000000-0000-0000-0000-000000000000',
      parent_id: null,
      error: run.error ?? null,
    })
    const span = run.durationSeconds ?? 60
    run.actions.forEach((action, actionIndex) => {
      const actionStart = started === null ? created : started - (actionIndex * span * 1000) / Math.max(1, run.actions.length)
      const finished = ['completed', 'failed', 'skipped'].includes(action.status)
      const actionEnd = finished ? Math.max(0, actionStart - (span * 1000) / Math.max(1, run.actions.length) + 500) : null
      actions.push({
        id: ctx.id('playbook_run_action', `${run.playbook}#${index}/${action.name}`),
        name: action.name,
        status: action.status,
        retry_count: 0,
        playbook_run_id: id,
        start_time: action.status === 'skipped' ? null : ctx.ago(actionStart),
        scheduled_time: ctx.ago(actionStart + 500),
        end_time: actionEnd === null ? null : ctx.ago(actionEnd),
        result: action.result ?? null,
        agent_id: '00000000-0000-0000-0000-000000000000',
        error: action.error ?? null,
      })
    })
    if (run.approvedBy) {
      approvals.push({
        id: ctx.id('playbook_approval', `${run.playbook}#${index}`),
        run_id: id,
        person_id: people.person(run.approvedBy).id,
        team_id: null,
        created_at: ctx.ago(created - 2 * MINUTE),
      })
    }
  })

  return {
    rows: { playbooks, playbook_runs: runs, playbook_run_actions: actions, playbook_approvals: approvals },
    refs: { playbook, runs },
  }
}
