import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { AppLoadContext } from '@remix-run/node'
import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { getPlaybook, getRun, isRunApprover, getRunArtifact, getRunProgress, listPlaybooks, listRunResources, listRuns, listTargetChoices } from '#app/lib/playbooks.server.ts'
import { runDialogHref, safeReturnTo } from '#app/components/playbooks/playbook-links.ts'
import { listOptions, parameterConstraint } from '#app/components/playbooks/run-form-model.ts'
import { formatRunDuration } from '#app/components/playbooks/run-status.tsx'
import { parseRunsSearch, rangeStart } from '#app/lib/playbook-runs-search.ts'
import { parameterValuesSchema } from '#contract/playbook/playbook-parameters.ts'
import type { PlaybookParameterSpec } from '#contract/playbook/playbook-vocabulary.ts'
import { isQueryPost } from '#contract/query-posts.ts'
import { bearer, TEST_TOKEN } from '#tests/support/test-app.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'

/**
 * The playbook screens' data module against the real gateway and backend on a loopback port,
 * called as the loaders call it (a page request with the browser's session cookie): the
 * catalogue, the runs page's filtered and counted page, one run with its child run, approvals,
 * actions and artifacts, the progress fingerprint the events route compares, and the artifact
 * download refusing an artifact of another run.
 */
describe('playbook screens data', () => {
  const testApp = useTestApp()
  let server: http.Server
  let base: string
  let cookie: string
  const ids: Record<string, string> = {}

  const insert = async (sql: string, values: unknown[]) => (await testApp.db.query<{ id: string }>(sql, values)).rows[0]!.id

  beforeAll(async () => {
    server = http.createServer((req, res) => testApp.app(req, res))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const login = await request(testApp.app).post('/api/auth/login').send({ username: 'token', password: TEST_TOKEN })
    cookie = login.headers['set-cookie']![0]!.split(';')[0]!
    ids.config = await insert(`INSERT INTO config_items (name, type, config_class) VALUES ('web', 'Kubernetes::Deployment', 'Deployment') RETURNING id`, [])
    ids.other = await insert(`INSERT INTO config_items (name, type, config_class) VALUES ('db', 'AWS::RDS::DBInstance', 'DBInstance') RETURNING id`, [])
    const spec = (title: string, category: string, extra: Record<string, unknown> = {}) =>
      JSON.stringify({ title, category, actions: [{ name: 'say', exec: { script: 'echo hi' } }], ...extra })
    ids.restart = await insert(`INSERT INTO playbooks (name, title, category, spec, source) VALUES ('restart', 'Restart web', 'Kubernetes', $1, 'UI') RETURNING id`, [
      spec('Restart web', 'Kubernetes', { configs: [{ types: ['Kubernetes::Deployment'] }], parameters: [{ name: 'token', type: 'secret' }, { name: 'reason' }] }),
    ])
    ids.echo = await insert(`INSERT INTO playbooks (name, title, category, spec, source) VALUES ('echo', 'Echo', 'Diagnostics', $1, 'UI') RETURNING id`, [spec('Echo', 'Diagnostics')])
    await insert(`INSERT INTO playbooks (name, title, category, spec, source, deleted_at) VALUES ('gone', 'Gone', 'Diagnostics', $1, 'UI', now()) RETURNING id`, [spec('Gone', 'Diagnostics')])
    ids.run = await insert(
      `INSERT INTO playbook_runs (playbook_id, status, config_id, parameters, spec, created_at) VALUES ($1, 'completed', $2, '{"reason":"leak","token":"enc:abc"}', $3, now() - interval '5 minutes') RETURNING id`,
      [ids.restart, ids.config, spec('Restart web', 'Kubernetes', { parameters: [{ name: 'token', type: 'secret' }, { name: 'reason' }] })],
    )
    ids.child = await insert(`INSERT INTO playbook_runs (playbook_id, status, parent_id) VALUES ($1, 'running', $2) RETURNING id`, [ids.echo, ids.run])
    ids.oldRun = await insert(`INSERT INTO playbook_runs (playbook_id, status, created_at) VALUES ($1, 'failed', now() - interval '3 days') RETURNING id`, [ids.echo])
    ids.action = await insert(
      `INSERT INTO playbook_run_actions (name, status, playbook_run_id, start_time, end_time, result, retry_count) VALUES ('say', 'completed', $1, now() - interval '4 minutes', now() - interval '3 minutes', '{"stdout":"hi","stderr":"","exitCode":0}', 1) RETURNING id`,
      [ids.run],
    )
    ids.childAction = await insert(`INSERT INTO playbook_run_actions (name, status, playbook_run_id) VALUES ('say', 'running', $1) RETURNING id`, [ids.child])
    ids.artifact = await insert(
      `INSERT INTO artifacts (playbook_run_action_id, path, filename, content_type, size, checksum, content) VALUES ($1, 'say/out.txt', 'out.txt', 'text/plain', 5, 'x', convert_to('hello', 'UTF8')) RETURNING id`,
      [ids.action],
    )
    ids.otherAction = await insert(`INSERT INTO playbook_run_actions (name, status, playbook_run_id) VALUES ('say', 'failed', $1) RETURNING id`, [ids.oldRun])
    ids.otherArtifact = await insert(
      `INSERT INTO artifacts (playbook_run_action_id, path, filename, size, checksum, content) VALUES ($1, 'x', 'x.txt', 1, 'x', convert_to('x', 'UTF8')) RETURNING id`,
      [ids.otherAction],
    )
  })

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })

  function args() {
    const context = { gateway: { gatewayBaseUrl: base, gatewayTimeoutMs: 5_000 }, cspNonce: 'n', publicEnv: { frontendVersion: 't', mode: 'embedded' } } as AppLoadContext
    return { request: new Request('http://console.test/playbooks', { headers: { cookie } }), context }
  }

  it('lists the catalogue without deleted playbooks, searches it, and offers the resources a playbook selects', async () => {
    const all = await listPlaybooks(args())
    expect(all.map((row) => row.title)).toEqual(['Echo', 'Restart web'])
    expect((await listPlaybooks(args(), 'kubern')).map((row) => row.name)).toEqual(['restart'])
    expect(await listPlaybooks(args(), 'nothing like it')).toEqual([])
    const restart = await getPlaybook(args(), ids.restart!)
    expect(restart?.spec?.parameters?.map((param) => param.name)).toEqual(['token', 'reason'])
    expect(await getPlaybook(args(), 'not-a-uuid')).toBeNull()
    const choices = await listTargetChoices(args(), restart!)
    expect(choices.config_id?.map((row) => row.name)).toEqual(['web'])
    expect(choices.component_id).toBeUndefined()
    expect(await listTargetChoices(args(), (await getPlaybook(args(), ids.echo!))!)).toEqual({})
  })

  it('pages top-level runs newest first with the total, filtered by playbook, status, resource and time', async () => {
    const page = await listRuns(args(), { playbook: null, status: null, resource: null, since: null, page: 1, pageSize: 1 })
    expect(page.total).toBe(2)
    expect(page.rows.map((row) => row.id)).toEqual([ids.run])
    expect(page.rows[0]).toMatchObject({ playbooks: { title: 'Restart web' }, config: { name: 'web' } })
    const second = await listRuns(args(), { playbook: null, status: null, resource: null, since: null, page: 2, pageSize: 1 })
    expect(second.rows.map((row) => row.id)).toEqual([ids.oldRun])
    expect((await listRuns(args(), { playbook: ids.echo!, status: null, resource: null, since: null, page: 1, pageSize: 50 })).rows.map((row) => row.id)).toEqual([ids.oldRun])
    expect((await listRuns(args(), { playbook: null, status: 'failed', resource: null, since: null, page: 1, pageSize: 50 })).total).toBe(1)
    expect((await listRuns(args(), { playbook: null, status: null, resource: ids.config!, since: null, page: 1, pageSize: 50 })).rows.map((row) => row.id)).toEqual([ids.run])
    expect((await listRuns(args(), { playbook: null, status: null, resource: null, since: new Date(Date.now() - 3_600_000), page: 1, pageSize: 50 })).total).toBe(1)
    expect(await listRunResources(args())).toEqual([{ id: ids.config, name: 'web', kind: 'config' }])
  })

  it('reads one run with its child runs, actions and artifacts, and its progress', async () => {
    const detail = await getRun(args(), ids.run!)
    expect(detail?.run).toMatchObject({ id: ids.run, status: 'completed', parameters: { reason: 'leak' }, config: { name: 'web' }, playbook_approvals: [] })
    expect(detail?.children.map((row) => row.id)).toEqual([ids.child])
    expect(detail?.actions.map((row) => [row.playbook_run_id, row.status, row.retry_count])).toEqual([
      [ids.run, 'completed', 1],
      [ids.child, 'running', null],
    ])
    expect(detail?.actions[0]?.artifacts?.map((row) => row.filename)).toEqual(['out.txt'])
    expect(await getRun(args(), ids.child!)).toMatchObject({ run: { parent_id: ids.run } })
    expect(await getRun(args(), '0190f0f0-0000-7000-8000-00000000beef')).toBeNull()

    const before = await getRunProgress(args(), ids.run!)
    expect(before).toEqual(await getRunProgress(args(), ids.run!))
    await testApp.db.query(`UPDATE playbook_run_actions SET status = 'completed', end_time = now() WHERE id = $1`, [ids.childAction])
    expect(await getRunProgress(args(), ids.run!)).not.toEqual(before)
    expect(await getRunProgress(args(), '0190f0f0-0000-7000-8000-00000000beef')).toBeNull()
  })

  it('serves an artifact of the run and refuses one of another run', async () => {
    const artifact = await getRunArtifact(args(), ids.run!, ids.artifact!)
    expect(artifact && { ...artifact, body: Buffer.from(artifact.body).toString('utf8') }).toEqual({ filename: 'out.txt', contentType: 'text/plain', body: 'hello' })
    expect(await getRunArtifact(args(), ids.run!, ids.otherArtifact!)).toBeNull()
    expect(await getRunArtifact(args(), ids.oldRun!, ids.otherArtifact!)).toMatchObject({ filename: 'x.txt', contentType: 'application/octet-stream' })
  })

  it('offers Approve to an approver by email in people, or a member of an approver team by name, only', async () => {
    const whoami = await request(testApp.app).get('/api/auth/whoami').set(bearer)
    const user = (whoami.body as { payload: { user: { id: string; name: string; email?: string } } }).payload.user
    const withEmail = { ...user, email: 'Approver@Example.com' }
    expect(await isRunApprover(args(), withEmail, { approvers: { people: ['someone-else@example.com'] } })).toBe(false)
    expect(await isRunApprover(args(), withEmail, { approvers: { people: ['approver@example.com'] } })).toBe(true)
    // Only an email names a person, as the API reads it.
    expect(await isRunApprover(args(), { id: user.id }, { approvers: { people: [user.id] } })).toBe(false)
    expect(await isRunApprover(args(), user, null)).toBe(false)
    expect(await isRunApprover(args(), user, { approvers: { teams: ['Approvers'] } })).toBe(false)
    const team = await insert(`INSERT INTO teams (name, created_by) VALUES ('Approvers', $1) RETURNING id`, [user.id])
    await testApp.db.query(`INSERT INTO team_members (team_id, person_id) VALUES ($1, $2)`, [team, user.id])
    expect(await isRunApprover(args(), user, { approvers: { teams: ['Approvers'] } })).toBe(true)
    expect(await isRunApprover(args(), user, { approvers: { teams: [team] } })).toBe(false)
  })
})

describe('playbook screens URL and form model', () => {
  it('falls back to defaults for bad runs-page parameters', () => {
    expect(parseRunsSearch(new URLSearchParams('playbook=nope&status=bogus&resource=1;drop&range=7y&page=-3&pageSize=7'))).toEqual({
      playbook: null,
      status: null,
      resource: null,
      range: null,
      page: 1,
      pageSize: 50,
    })
    const id = '0190f0f0-0000-7000-8000-00000000beef'
    expect(parseRunsSearch(new URLSearchParams(`playbook=${id}&status=pending_approval&resource=${id}&range=1d&page=3&pageSize=100`))).toEqual({
      playbook: id,
      status: 'pending_approval',
      resource: id,
      range: '1d',
      page: 3,
      pageSize: 100,
    })
    expect(rangeStart('1h', new Date('2026-01-01T10:00:00Z'))?.toISOString()).toBe('2026-01-01T09:00:00.000Z')
    expect(rangeStart(null, new Date())).toBeNull()
  })

  it('lets a page loader ask for a playbook\'s parameters without vouching for an origin, and nothing else of /playbook', () => {
    expect(isQueryPost('POST', '/api/playbook/0190f0f0-0000-7000-8000-00000000beef/params')).toBe(true)
    expect(isQueryPost('POST', '/api/playbook/abc/params/')).toBe(true)
    expect(isQueryPost('GET', '/api/playbook/abc/params')).toBe(false)
    for (const path of ['/api/playbook/run', '/api/playbook/run/approve/abc', '/api/playbook/a/b/params', '/api/playbook//params']) expect(isQueryPost('POST', path)).toBe(false)
  })

  it('returns only to a path on this site', () => {
    expect(safeReturnTo('/catalog/abc?tab=1')).toBe('/catalog/abc?tab=1')
    for (const bad of ['https://evil.example', '//evil.example', '/\\evil.example', null, '']) expect(safeReturnTo(bad)).toBe('/playbooks')
    expect(runDialogHref('p1', { config_id: 'c1' }, '/catalog/c1')).toBe('/playbooks/p1/run?config_id=c1&returnTo=%2Fcatalog%2Fc1')
  })

  it('derives the native constraints and list options from the parameters', () => {
    expect(
      parameterConstraint([
        { name: 'name', required: true, properties: { regex: '^[a-z]+$', minLength: 2, maxLength: '10' } },
        { name: 'host', properties: { format: 'dns1123' } },
        { name: 'flag', type: 'checkbox', required: true },
        { name: 'targets', type: 'configs' },
        { name: 'size', type: 'bytes', required: true },
        { name: 'cpu', type: 'millicores' },
        { name: 'odd', properties: { regex: '[-a-z]+' } },
      ]),
    ).toEqual({
      'params.name': { required: true, pattern: '[\\s\\S]*(?:^[a-z]+$)[\\s\\S]*', minLength: 2, maxLength: 10 },
      'params.host': { pattern: '[a-z0-9]([\\-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([\\-a-z0-9]*[a-z0-9])?)*', maxLength: 253 },
      'params.flag': { required: true },
      'params.targets': {},
      'params.size': { required: true, pattern: '\\d+(\\.\\d+)?(Mi|Gi|Ti)' },
      'params.cpu': { pattern: '\\d+m' },
      // Not a pattern the browser's v mode reads: left to the server.
      'params.odd': {},
    })
    expect(listOptions({ name: 'l', type: 'list', properties: { options: ['a', { label: 'Bee', value: 'b' }, { nope: 1 }] } })).toEqual([
      { label: 'a', value: 'a' },
      { label: 'Bee', value: 'b' },
    ])
  })

  it('never lets the browser refuse a value the shared parameter schema accepts', () => {
    const params: PlaybookParameterSpec[] = [
      { name: 'name', required: true, properties: { regex: 'ab+', minLength: 2, maxLength: 8 } },
      { name: 'host', properties: { format: 'dns1123' } },
      { name: 'size', type: 'bytes' },
      { name: 'cpu', type: 'millicores' },
      { name: 'flag', type: 'checkbox' },
    ]
    const constraint = parameterConstraint(params)
    const browserRefuses = (name: string, value: string) => {
      const field = constraint[`params.${name}`] ?? {}
      if (value === '') return Boolean(field.required)
      if (field.minLength !== undefined && value.length < field.minLength) return true
      if (field.maxLength !== undefined && value.length > field.maxLength) return true
      return field.pattern !== undefined && !new RegExp(`^(?:${field.pattern})$`, 'v').test(value)
    }
    const schema = parameterValuesSchema(params, { mode: 'form' })
    const samples: Record<string, string[]> = {
      name: ['', 'a', 'ab', 'xxabbx', 'zzzzzzzzz', 'abbbbbbbbb', 'ABB'],
      host: ['', 'web-1', 'Web_1', 'a.b.c', '-bad', 'x'.repeat(254)],
      size: ['', '512Mi', '1.5Gi', '10', '3Ki'],
      cpu: ['', '500m', '0.5', 'm'],
      flag: ['', 'true', 'false'],
    }
    for (const [name, values] of Object.entries(samples)) {
      for (const value of values) {
        const accepted = schema.safeParse({ name: 'abb', [name]: value }).success
        if (browserRefuses(name, value)) expect(accepted, `${name}=${value}`).toBe(false)
      }
    }
  })

  it('formats run durations', () => {
    const now = new Date('2026-01-01T10:00:00Z')
    expect(formatRunDuration(null, null, now)).toBe('')
    expect(formatRunDuration('2026-01-01T09:58:26Z', '2026-01-01T10:00:00Z', now)).toBe('1m 34s')
    expect(formatRunDuration('2026-01-01T08:00:00Z', null, now)).toBe('2h')
    expect(formatRunDuration('2026-01-01T10:00:00.000Z', '2026-01-01T10:00:00.250Z', now)).toBe('250ms')
  })
})
