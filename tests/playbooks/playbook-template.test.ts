import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { PlaybookRunActionRow, PlaybookRunRow, PlaybookSpec, PlaybookTemplateEnv } from '#server/backend/playbooks/playbook-model.ts'
import { sealSecret } from '#server/backend/secrets/sealed-secrets.ts'
import {
  evaluatePlaybookCel,
  loadParameterEnv,
  loadTemplateEnv,
  renderActionFields,
  renderPlaybookTemplate,
  templateParameterDefaults,
} from '#server/backend/playbooks/playbook-template.ts'
import type { Db } from '#server/db/client.ts'
import { createTestDb, type TestDb } from '#tests/support/test-db.ts'

let testDb: TestDb
let db: Db
let personId: string
let configId: string
let otherConfigId: string
let componentId: string
let playbookId: string

const spec: PlaybookSpec = {
  title: 'Scale a deployment',
  parameters: [
    { name: 'replicas', type: 'text' },
    { name: 'target', type: 'config' },
    { name: 'fleet', type: 'configs' },
    { name: 'token', type: 'secret' },
    { name: 'reason', default: 'scaling {{.config.name}} in {{.config.tags.namespace}}' },
  ],
  env: [
    { name: 'GREETING', value: 'hello {{.user.name}}' },
    { name: 'REPLICAS', value: '$(.params.replicas)' },
  ],
  actions: [{ name: 'scale', exec: { script: 'echo {{.config.name}}' } }],
}

async function insertRun(parameters: Record<string, string>, extra: Partial<PlaybookRunRow> = {}): Promise<PlaybookRunRow> {
  const { rows } = await db.query<PlaybookRunRow>(
    `INSERT INTO playbook_runs (playbook_id, spec, status, created_by, config_id, parameters, request)
     VALUES ($1, $2, 'running', $3, $4, $5, $6) RETURNING *`,
    [playbookId, JSON.stringify(spec), personId, extra.config_id === undefined ? configId : extra.config_id, JSON.stringify(parameters), extra.request ? JSON.stringify(extra.request) : null],
  )
  return { ...rows[0]!, timeout: Number(rows[0]!.timeout) }
}

async function insertAction(runId: string, name: string, status: string, result: Record<string, unknown>, startedSecondsAgo: number): Promise<PlaybookRunActionRow> {
  const { rows } = await db.query<PlaybookRunActionRow>(
    `INSERT INTO playbook_run_actions (playbook_run_id, name, status, result, start_time, end_time)
     VALUES ($1, $2, $3, $4, now() - make_interval(secs => $5), now() - make_interval(secs => $5) + interval '1 second') RETURNING *`,
    [runId, name, status, JSON.stringify(result), startedSecondsAgo],
  )
  return rows[0]!
}

beforeAll(async () => {
  testDb = await createTestDb()
  db = testDb.db
  personId = (await db.query<{ id: string }>(`INSERT INTO people (name, email) VALUES ('Ada Lovelace', 'ada@example.com') RETURNING id`)).rows[0]!.id
  configId = (
    await db.query<{ id: string }>(
      `INSERT INTO config_items (config_class, type, name, config, tags, labels)
       VALUES ('Deployment', 'Kubernetes::Deployment', 'web', $1, $2, $3) RETURNING id`,
      [JSON.stringify({ spec: { replicas: 3 } }), JSON.stringify({ namespace: 'shop', cluster: 'eu' }), JSON.stringify({ app: 'web' })],
    )
  ).rows[0]!.id
  otherConfigId = (
    await db.query<{ id: string }>(
      `INSERT INTO config_items (config_class, type, name, tags) VALUES ('Deployment', 'Kubernetes::Deployment', 'api', $1) RETURNING id`,
      [JSON.stringify({ namespace: 'shop' })],
    )
  ).rows[0]!.id
  await db.query(`INSERT INTO config_items (config_class, type, name, tags) VALUES ('Pod', 'Kubernetes::Pod', 'web-1', '{"namespace":"shop"}')`)
  componentId = (
    await db.query<{ id: string }>(`INSERT INTO components (name, external_id, status, type) VALUES ('checkout', 'checkout', 'healthy', 'Service') RETURNING id`)
  ).rows[0]!.id
  playbookId = (
    await db.query<{ id: string }>(
      `INSERT INTO playbooks (name, namespace, title, spec, source, category) VALUES ('scale', 'ops', 'Scale', $1, 'UI', 'Remediation') RETURNING id`,
      [JSON.stringify(spec)],
    )
  ).rows[0]!.id
})

afterAll(async () => {
  await testDb?.drop()
})

describe('loadTemplateEnv', () => {
  it('exposes the target config row, the creator, the playbook, params looked up, secrets decrypted and env templated', async () => {
    const token = await sealSecret(db, 's3cr3t-value')
    const run = await insertRun({
      replicas: '5',
      target: otherConfigId,
      fleet: JSON.stringify({ types: ['Kubernetes::Deployment'], tagSelector: 'namespace=shop' }),
      token,
    }, { request: { method: 'POST' } })
    const env = await loadTemplateEnv(db, run)

    expect(renderPlaybookTemplate('{{.config.name}}/{{.config.tags.namespace}}/{{.config.config.spec.replicas}}/{{.config.labels.app}}', env)).toBe('web/shop/3/web')
    expect(renderPlaybookTemplate('{{.user.name}} <{{.user.email}}>', env)).toBe('Ada Lovelace <ada@example.com>')
    expect(renderPlaybookTemplate('{{.playbook.name}} {{.playbook.namespace}} "{{.playbook.title}}" {{.run.id}} {{.request.method}}', env)).toBe(
      `scale ops "Scale a deployment" ${run.id} POST`,
    )
    expect(renderPlaybookTemplate('{{.params.target.name}} {{.params.target.type}}', env)).toBe('api Kubernetes::Deployment')
    expect((env.params.fleet as { name: string }[]).map((item) => item.name)).toEqual(['api', 'web'])
    expect(env.params.token).toBe('s3cr3t-value')
    expect(env.secrets).toEqual(['s3cr3t-value'])
    // The stored run keeps the ciphertext.
    expect(run.parameters!.token).not.toContain('s3cr3t')
    expect(env.env).toEqual({ GREETING: 'hello Ada Lovelace', REPLICAS: '5' })
    // A parameter the run does not carry takes its templated default.
    expect(env.params.reason).toBe('scaling web in shop')
    expect(env.agent?.id).toBe('00000000-0000-0000-0000-000000000000')
  })

  it('exposes a component target and the action row, and lists the run\'s other actions oldest first', async () => {
    const run = await insertRun({}, { config_id: null })
    await db.query('UPDATE playbook_runs SET config_id = NULL, component_id = $2 WHERE id = $1', [run.id, componentId])
    await insertAction(run.id, 'first', 'completed', { stdout: 'one' }, 30)
    await insertAction(run.id, 'second', 'failed', { stdout: 'two', exitCode: 2 }, 20)
    const current = await insertAction(run.id, 'third', 'running', {}, 1)
    const env = await loadTemplateEnv(db, { ...run, config_id: null, component_id: componentId }, current)
    expect(env.config).toBeUndefined()
    expect(renderPlaybookTemplate('{{.component.name}} {{.component.status}} {{.action.name}}', env)).toBe('checkout healthy third')
    expect(env.actions.map((action) => action.name)).toEqual(['first', 'second'])
  })
})

describe('loadParameterEnv', () => {
  it('templates parameter defaults against the chosen config before any run exists', async () => {
    const env = await loadParameterEnv(db, { playbookId, spec, configId, createdBy: personId, parameters: { replicas: '2' } })
    expect(env.run).toEqual({})
    expect(env.actions).toEqual([])
    expect(templateParameterDefaults(spec.parameters ?? [], env)).toEqual({ reason: 'scaling web in shop' })
    expect(renderPlaybookTemplate('{{.params.replicas}} by {{.user.email}} on {{.playbook.name}}', env)).toBe('2 by ada@example.com on scale')
  })
})

function envWith(actions: PlaybookTemplateEnv['actions'], extra: Partial<PlaybookTemplateEnv> = {}): PlaybookTemplateEnv {
  return { params: { name: 'web', count: '3' }, env: { REGION: 'eu' }, playbook: { name: 'p' }, run: { id: 'r1' }, actions, secrets: [], ...extra }
}

const earlier: PlaybookTemplateEnv['actions'] = [
  { name: 'fetch', status: 'completed', result: { stdout: 'fetched', exitCode: 0 }, error: null, start_time: new Date('2026-01-01T00:00:00Z'), end_time: null },
  { name: 'check', status: 'failed', result: { stdout: 'bad', exitCode: 3 }, error: 'exit code 3', start_time: new Date('2026-01-01T00:01:00Z'), end_time: null },
]

describe('renderPlaybookTemplate', () => {
  it('renders {{ }} and $( ) and leaves shell command substitution alone', () => {
    const env = envWith(earlier)
    expect(renderPlaybookTemplate('kubectl scale $(.params.name) --replicas=$(params.count) # {{.env.REGION}}', env)).toBe('kubectl scale web --replicas=3 # eu')
    expect(renderPlaybookTemplate('echo $(date +%s) $(env) $(hostname)', env)).toBe('echo $(date +%s) $(env) $(hostname)')
    expect(renderPlaybookTemplate('plain text', env)).toBe('plain text')
  })

  it('offers getLastAction(), getAction("name") and the legacy last_result', () => {
    const env = envWith(earlier)
    expect(renderPlaybookTemplate('{{(getLastAction).name}}:{{(getLastAction).result.stdout}}:{{(getLastAction).error}}', env)).toBe('check:bad:exit code 3')
    expect(renderPlaybookTemplate('{{(getAction "fetch").result.stdout}} {{.last_result.stdout}}', env)).toBe('fetched bad')
    expect(renderPlaybookTemplate('$(getAction "fetch")', env)).toContain('fetched')
  })

  it('names the field of a broken template', () => {
    expect(() => renderPlaybookTemplate('{{if .params.name}}', envWith([]), 'exec.script')).toThrow(/exec\.script/)
  })

  it('renders every string of an action block, keys kept, skipped keys left as written', () => {
    const env = envWith([])
    const rendered = renderActionFields({ url: 'http://x/{{.params.name}}', headers: [{ name: 'X-{{.params.name}}', value: '$(.params.count)' }], body: '{{.params.name}}', n: 3 }, env, { skip: ['body'] })
    expect(rendered).toEqual({ url: 'http://x/web', headers: [{ name: 'X-web', value: '3' }], body: '{{.params.name}}', n: 3 })
  })

  it('templates parameter defaults in order, so later defaults see earlier ones', () => {
    const env = envWith([], { config: { name: 'web', tags: { namespace: 'shop' } }, params: {} })
    expect(
      templateParameterDefaults(
        [{ name: 'ns', default: '{{.config.tags.namespace}}' }, { name: 'target', default: '{{.params.ns}}/{{.config.name}}' }, { name: 'none' }],
        env,
      ),
    ).toEqual({ ns: 'shop', target: 'shop/web' })
  })
})

describe('evaluatePlaybookCel', () => {
  it('evaluates over the environment with getLastAction(), getAction() and the caller\'s functions', () => {
    const env = envWith(earlier, { config: { name: 'web', config: { spec: { replicas: 3 } } } })
    expect(evaluatePlaybookCel('config.config.spec.replicas == 3 && params.name == "web"', env)).toBe(true)
    expect(evaluatePlaybookCel('getLastAction().status == "failed" && getAction("fetch").result.stdout == "fetched"', env)).toBe(true)
    expect(evaluatePlaybookCel('getLastAction().result.exitCode > 2', env)).toBe(true)
    expect(evaluatePlaybookCel('getAction("missing") == null', env)).toBe(true)
    expect(evaluatePlaybookCel('failure() && !success()', env, { success: () => false, failure: () => true })).toBe(true)
    expect(evaluatePlaybookCel('always()', env, { always: () => true })).toBe(true)
    expect(evaluatePlaybookCel('custom()', env, { custom: () => 'yes' })).toBe('yes')
    expect(() => evaluatePlaybookCel('success()', env)).toThrow(/only available/)
    expect(evaluatePlaybookCel('config == null', envWith([]))).toBe(true)
  })
})
