import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import type { Express } from 'express'
import type { Db } from '#server/db/client.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { createTestApp } from '#tests/support/test-app.ts'
import { RANDOM_ID, personWith } from './rbac-fixture.ts'

// The spec's role matrix (002 §6), written out independently of the implementation.
const AREAS = [
  'database', 'rbac', 'auth', 'responder', 'incident', 'evidences', 'comments', 'canaries', 'topologies',
  'config_scrapers', 'identities', 'connections', 'kratos', 'agents', 'feature_flags', 'logging_backends',
  'integrations', 'notifications', 'playbooks', 'playbook_runs', 'permissions', 'views',
] as const
type Area = (typeof AREAS)[number]
type Kind = 'read' | 'write'
const ROLES = ['admin', 'editor', 'commander', 'responder', 'viewer', 'guest'] as const
type Role = (typeof ROLES)[number]

const NOT_READ_BY_INCIDENT_ROLES: Area[] = ['rbac', 'identities', 'connections']
const INCIDENT_WRITES: Area[] = ['responder', 'incident', 'evidences', 'comments']

function specAllows(role: Role, area: Area, kind: Kind): boolean {
  // The one cell family we refuse on purpose: the token table is not served by /api/db to
  // anyone (docs/decisions/005-authorization.md); tokens go through /api/auth.
  if (area === 'kratos') return false
  // Permission rows decide who may do what: writing them is rbac work (issue 10 §4,
  // docs/security.md), so editors, who may not write rbac, may not write them either.
  if (area === 'permissions' && kind === 'write' && role === 'editor') return false
  switch (role) {
    case 'admin':
      return true
    case 'editor':
      return kind === 'read' || !['connections', 'identities', 'rbac'].includes(area)
    case 'commander':
    case 'responder':
      return kind === 'read' ? !NOT_READ_BY_INCIDENT_ROLES.includes(area) : INCIDENT_WRITES.includes(area)
    case 'viewer':
    case 'guest':
      return kind === 'read' && !NOT_READ_BY_INCIDENT_ROLES.includes(area)
  }
}

// A relation of each area to read and write through /api/db.
const DB_TABLE: Record<Area, string> = {
  database: 'teams',
  rbac: 'casbin_rule',
  auth: 'invites',
  responder: 'responders',
  incident: 'incidents',
  evidences: 'evidences',
  comments: 'comments',
  canaries: 'canaries',
  topologies: 'topologies',
  config_scrapers: 'config_scrapers',
  identities: 'identities',
  connections: 'connections',
  kratos: 'access_tokens',
  agents: 'agents',
  feature_flags: 'properties',
  logging_backends: 'logging_backends',
  integrations: 'integrations',
  notifications: 'notifications',
  playbooks: 'playbooks',
  playbook_runs: 'playbook_runs',
  permissions: 'permissions',
  views: 'views',
}
// Further relations per area, read only, so the whole map is walked (views, summaries).
const EXTRA_READS: Partial<Record<Area, string[]>> = {
  database: ['config_items', 'configs', 'config_changes', 'people', 'team_members', 'job_histories', 'artifacts', 'rpc/related_configs_recursive?config_id=' + RANDOM_ID],
  incident: ['incident_summary', 'hypotheses', 'incident_rules'],
  canaries: ['checks', 'check_statuses', 'canaries_with_status', 'check_summary'],
  topologies: ['components', 'topologies_with_status'],
  config_scrapers: ['config_scrapers_with_status'],
  identities: ['people_roles'],
  connections: ['connections_list'],
  agents: ['agents_summary'],
  integrations: ['integrations_with_status'],
  notifications: ['notification_silences', 'notifications_summary'],
  playbooks: ['playbook_names'],
  playbook_runs: ['playbook_run_actions', 'playbook_approvals'],
  permissions: ['permissions_summary', 'permission_groups', 'scopes'],
  views: ['views_summary', 'view_panels'],
}

type Probe = { area: Area; kind: Kind; method: 'get' | 'post' | 'patch' | 'delete'; path: string; body?: unknown; db: boolean }

function dbProbes(): Probe[] {
  const probes: Probe[] = []
  for (const area of AREAS) {
    const table = DB_TABLE[area]
    probes.push({ area, kind: 'read', method: 'get', path: `/api/db/${table}?limit=1`, db: true })
    for (const extra of EXTRA_READS[area] ?? []) {
      probes.push({ area, kind: 'read', method: 'get', path: `/api/db/${extra}${extra.includes('?') ? '&' : '?'}limit=1`, db: true })
    }
    // Writes that change nothing: an empty insert, and update/delete of an id that does not exist.
    const filter = table === 'casbin_rule' ? 'id=eq.-1' : table === 'properties' ? 'name=eq.no-such-property' : `id=eq.${RANDOM_ID}`
    probes.push({ area, kind: 'write', method: 'post', path: `/api/db/${table}`, body: [], db: true })
    probes.push({ area, kind: 'write', method: 'patch', path: `/api/db/${table}?${filter}`, body: {}, db: true })
    probes.push({ area, kind: 'write', method: 'delete', path: `/api/db/${table}?${filter}`, db: true })
  }
  return probes
}

// The other sub-bases, each attributed to its area (services not built yet answer 501 when allowed).
const ROUTE_PROBES: Probe[] = [
  { area: 'canaries', kind: 'read', method: 'get', path: '/api/canary/api/summary', db: false },
  { area: 'canaries', kind: 'read', method: 'get', path: `/api/canary/api/graph?check=${RANDOM_ID}`, db: false },
  { area: 'canaries', kind: 'write', method: 'delete', path: `/api/canary/${RANDOM_ID}`, db: false },
  { area: 'database', kind: 'read', method: 'post', path: '/api/catalog/summary', body: {}, db: false },
  { area: 'database', kind: 'read', method: 'post', path: '/api/resources/search', body: {}, db: false },
  { area: 'database', kind: 'write', method: 'post', path: '/api/catalog/config-items/bulk-delete', body: {}, db: false },
  { area: 'database', kind: 'read', method: 'get', path: `/api/artifacts/download/${RANDOM_ID}`, db: false },
  { area: 'topologies', kind: 'read', method: 'get', path: `/api/snapshot/topology/${RANDOM_ID}`, db: false },
  { area: 'topologies', kind: 'read', method: 'get', path: '/api/canary/api/topology', db: false },
  { area: 'config_scrapers', kind: 'write', method: 'post', path: `/api/config/run/${RANDOM_ID}`, body: {}, db: false },
  { area: 'agents', kind: 'read', method: 'get', path: '/api/agent/list', db: false },
  // Agents' write cell is probed through /api/db/agents; generating an agent is admin-only (tests/agents).
  { area: 'logging_backends', kind: 'read', method: 'post', path: '/api/logs', body: {}, db: false },
  { area: 'notifications', kind: 'read', method: 'post', path: '/api/notification/summary', body: {}, db: false },
  { area: 'notifications', kind: 'write', method: 'post', path: '/api/notification/silence', body: {}, db: false },
  { area: 'connections', kind: 'read', method: 'get', path: `/api/connection/${RANDOM_ID}`, db: false },
  { area: 'connections', kind: 'write', method: 'post', path: `/api/connection/test/${RANDOM_ID}`, db: false },
  { area: 'rbac', kind: 'read', method: 'get', path: '/api/rbac/dump', db: false },
  { area: 'rbac', kind: 'read', method: 'get', path: `/api/rbac/${RANDOM_ID}/roles`, db: false },
  { area: 'rbac', kind: 'write', method: 'post', path: `/api/rbac/${RANDOM_ID}/update_role`, body: { roles: ['viewer'] }, db: false },
  { area: 'identities', kind: 'write', method: 'post', path: '/api/people/update', body: { id: RANDOM_ID }, db: false },
  { area: 'identities', kind: 'write', method: 'delete', path: `/api/people/${RANDOM_ID}`, db: false },
  { area: 'playbooks', kind: 'read', method: 'get', path: '/api/playbook/list', db: false },
  { area: 'playbooks', kind: 'write', method: 'delete', path: `/api/playbook/${RANDOM_ID}`, db: false },
  { area: 'playbook_runs', kind: 'write', method: 'post', path: '/api/playbook/run', body: { id: RANDOM_ID }, db: false },
  { area: 'playbook_runs', kind: 'write', method: 'post', path: `/api/playbook/run/cancel/${RANDOM_ID}`, db: false },
  { area: 'views', kind: 'read', method: 'post', path: `/api/view/${RANDOM_ID}`, body: {}, db: false },
  { area: 'feature_flags', kind: 'write', method: 'post', path: '/api/properties', body: {}, db: false },
  { area: 'auth', kind: 'write', method: 'get', path: '/api/kubeconfig', db: false },
]

async function send(app: Express, probe: Probe, headers: Record<string, string>) {
  let call = request(app)[probe.method](probe.path).set(headers)
  if (probe.body !== undefined) call = call.set('Content-Type', 'application/json').send(JSON.stringify(probe.body))
  return call
}

describe('role matrix (spec 002 §6) through the real API', () => {
  const testApp = useTestApp()
  let db: Db
  let app: Express
  const people = new Map<Role, { id: string; headers: Record<string, string> }>()

  beforeAll(async () => {
    db = testApp.db
    app = createTestApp(db).app
    for (const role of ROLES) people.set(role, await personWith(db, [role]))
  })
  it.each(ROLES)('every area × read/write cell for %s matches the spec', async (role) => {
    const person = people.get(role)!
    const mismatches: string[] = []
    const probes = [...dbProbes(), ...ROUTE_PROBES]
    const covered = new Set<string>()
    for (const probe of probes) {
      const response = await send(app, probe, person.headers)
      const expected = specAllows(role, probe.area, probe.kind)
      covered.add(`${probe.area}:${probe.kind}`)
      if (response.status === 401 || (response.status === 404 && response.text === '')) {
        mismatches.push(`${probe.method.toUpperCase()} ${probe.path}: unexpected ${response.status}`)
        continue
      }
      if (response.status >= 500 && response.status !== 501) {
        mismatches.push(`${probe.method.toUpperCase()} ${probe.path}: server error ${response.status} ${response.text.slice(0, 200)}`)
        continue
      }
      const denied = response.status === 403
      if (denied === expected) {
        mismatches.push(`${probe.area} ${probe.kind} via ${probe.method.toUpperCase()} ${probe.path}: spec ${expected ? 'allows' : 'denies'}, got ${response.status}`)
        continue
      }
      if (denied) {
        expect(response.headers['x-rbac-subject']).toBe(person.id)
        expect(response.headers['x-rbac-object']).toBeTruthy()
        if (probe.db) {
          expect(response.body).toMatchObject({ code: '42501', message: 'unauthorized. Access Denied' })
        } else {
          expect(response.headers['content-type']).toMatch(/^text\/plain/)
          expect(response.text).toBe('unauthorized. Access Denied')
        }
      }
    }
    expect(mismatches).toEqual([])
    // Every cell of the matrix was exercised.
    expect(covered.size).toBe(AREAS.length * 2)
  })

  it('offers Run Now to admin, editor, responder and commander only', async () => {
    for (const role of ROLES) {
      const response = await request(app).post(`/api/canary/run/check/${RANDOM_ID}`).set(people.get(role)!.headers)
      const expected = ['admin', 'editor', 'responder', 'commander'].includes(role)
      expect({ role, denied: response.status === 403 }).toEqual({ role, denied: !expected })
    }
  })

  // Issue 10: running processes is its own permission (object exec, outside the matrix's
  // areas); no role but admin holds it, and a stored permission grants it to one person.
  it('grants exec to admin only, and to a person explicitly granted it', async () => {
    const { authorizer } = createTestApp(db).backend
    const execSpec = (name: string) => ({ name, namespace: 'default', spec: { schedule: '@never', exec: [{ name: 'x', script: 'true' }] } })
    for (const role of ROLES) {
      const person = people.get(role)!
      const decision = await authorizer.authorize({ personId: person.id }, { object: 'exec', area: null, action: 'exec:run' })
      const write = await request(app).post('/api/db/canaries').set(person.headers).send(execSpec(`exec-${role}`))
      expect({ role, allowed: decision.allowed, status: write.status }).toEqual({ role, allowed: role === 'admin', status: role === 'admin' ? 201 : 403 })
    }
    // The editor may write canaries, so its refusal names exec rather than the area.
    const refused = await request(app).post('/api/db/canaries').set(people.get('editor')!.headers).send(execSpec('exec-editor-again'))
    expect(refused.body.message).toMatch(/exec checks need the exec permission, which you do not hold/)
    const granted = await personWith(db, ['editor'], 'exec-granted')
    const grant = await request(app).post('/api/db/permissions').set(people.get('admin')!.headers)
      .send({ subject: granted.id, subject_type: 'person', object: 'exec', action: 'exec:run' })
    expect(grant.status, grant.text).toBe(201)
    expect((await request(app).post('/api/db/canaries').set(granted.headers).send(execSpec('exec-granted'))).status).toBe(201)
    expect((await authorizer.authorize({ personId: granted.id }, { object: 'exec', area: null, action: 'exec:run' })).allowed).toBe(true)
  })

  it('applies the union of several roles', async () => {
    const both = await personWith(db, ['viewer', 'responder'])
    expect((await request(app).delete(`/api/db/comments?id=eq.${RANDOM_ID}`).set(both.headers)).status).toBe(204)
    expect((await request(app).delete(`/api/db/canaries?id=eq.${RANDOM_ID}`).set(both.headers)).status).toBe(403)
    const editorViewer = await personWith(db, ['viewer', 'editor'])
    expect((await request(app).delete(`/api/db/canaries?id=eq.${RANDOM_ID}`).set(editorViewer.headers)).status).toBe(204)
  })

  it('grants nothing to a person without roles, and follows sessions as well as tokens', async () => {
    const nobody = await personWith(db, [])
    expect((await request(app).get('/api/db/canaries').set(nobody.headers)).status).toBe(403)
    const login = await request(app).post('/api/auth/login').send({ username: 'token', password: nobody.token })
    expect(login.status).toBe(200)
    const cookie = (login.headers['set-cookie'] as unknown as string[])[0]!.split(';')[0]!
    expect((await request(app).get('/api/db/canaries').set('Cookie', cookie)).status).toBe(403)
    // A role granted later applies to the existing session at once in this process.
    const admin = people.get('admin')!
    expect((await request(app).post(`/api/rbac/${nobody.id}/update_role`).set(admin.headers).send({ roles: ['viewer'] })).status).toBe(200)
    expect((await request(app).get('/api/db/canaries').set('Cookie', cookie)).status).toBe(200)
    // Same-origin, so the 403 is the role's answer and not the forgery guard's.
    expect((await request(app).delete(`/api/db/canaries?id=eq.${RANDOM_ID}`).set({ Cookie: cookie, 'Sec-Fetch-Site': 'same-origin' })).status).toBe(403)
  })
})
