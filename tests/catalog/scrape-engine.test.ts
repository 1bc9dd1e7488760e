import { readFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestDb, TEST_PG_ADMIN_URL, type TestDb } from '#tests/support/test-db.ts'
import type { Db } from '#server/db/client.ts'
import type { ScrapeEngine } from '#server/backend/catalog/scrape-engine.ts'
import { parseGoTime } from '#server/backend/catalog/scrape-pipeline.ts'
import { insertScraper, itemsOf, tempFolder, testScrapeEngine, waitFor } from './scrape-fixtures.ts'

let testDb: TestDb
let db: Db
let engine: ScrapeEngine
const folders: { cleanup(): void }[] = []

beforeAll(async () => {
  testDb = await createTestDb()
  db = testDb.db
  engine = testScrapeEngine(db)
})

afterAll(async () => {
  for (const folder of folders) folder.cleanup()
  await testDb?.drop()
})

function folder(files: Record<string, string> = {}) {
  const made = tempFolder(files)
  folders.push(made)
  return made
}

async function run(scraperId: string) {
  const outcome = await engine.runNow(scraperId)
  expect(outcome).not.toBeNull()
  return outcome!
}

async function changesOf(configId: string) {
  const { rows } = await db.query<{ change_type: string; diff: string | null; patches: unknown; summary: string; source: string; severity: string }>(
    'SELECT change_type, diff, patches, summary, source, severity FROM config_changes WHERE config_id = $1 ORDER BY created_at, id',
    [configId],
  )
  return rows
}

describe('file scraper', () => {
  it('reads globs less ignore, YAML to JSON, one config per file, with static and JSONPath fields', async () => {
    const files = folder({
      'hosts/web.yaml': 'hostname: web-1\nos: debian\nowner: team-a\nstate: up\n',
      'hosts/db.json': '{"hostname": "db-1", "os": "alpine", "owner": "team-b", "state": "down"}',
      'hosts/skip.yaml': 'hostname: skipped\n',
      'notes.txt': 'not matched',
    })
    const id = await insertScraper(db, 'inventory', {
      file: [{
        type: 'Inventory::Host', class: 'Host', id: '$.hostname', name: '$.hostname', status: '$.state',
        labels: { os: '$.os', site: 'lab' },
        tags: [{ name: 'owner', jsonpath: '$.owner' }, { name: 'env', value: 'test' }],
        paths: [path.join(files.dir, 'hosts/*')],
        ignore: ['**/skip.yaml'],
      }],
    })
    const outcome = await run(id)
    expect(outcome.status).toBe('SUCCESS')
    expect(outcome.summary).toMatchObject({ added: 2, updated: 0, unchanged: 0, deleted: 0, errors: 0 })
    const items = await itemsOf(db, id)
    expect(items.map((item) => item.name)).toEqual(['db-1', 'web-1'])
    const web = items.find((item) => item.name === 'web-1')!
    expect(web).toMatchObject({ type: 'Inventory::Host', config_class: 'Host', status: 'up', external_id: ['web-1'] })
    expect(web.config).toEqual({ hostname: 'web-1', os: 'debian', owner: 'team-a', state: 'up' })
    expect(web.labels).toEqual({ os: 'debian', site: 'lab' })
    expect(web.tags).toEqual({ owner: 'team-a', env: 'test' })
    const { rows: [job] } = await db.query<{ status: string; resource_type: string; resource_id: string; success_count: number; details: Record<string, unknown> }>(
      'SELECT status, resource_type, resource_id, success_count, details FROM job_history WHERE id = $1',
      [outcome.jobHistoryId],
    )
    expect(job).toMatchObject({ status: 'SUCCESS', resource_type: 'config_scraper', resource_id: id, success_count: 2 })
    // config-db's scrape summary (type → non-zero counts), with the run's totals beside it.
    expect(job!.details).toEqual({ scrape_summary: { 'Inventory::Host': { added: 2 } }, totals: { added: 2, updated: 0, unchanged: 0, deleted: 0, errors: 0 } })
  })

  it('splits one document into items with `items`, and stores a diff change only when a config changed', async () => {
    const files = folder({ 'services.yaml': 'services:\n  - {id: s1, name: api, replicas: 2}\n  - {id: s2, name: web, replicas: 1}\n' })
    const id = await insertScraper(db, 'services', {
      file: [{ type: 'App::Service', id: '$.id', name: '$.name', items: '$.services[*]', paths: [path.join(files.dir, '*.yaml')] }],
    })
    expect((await run(id)).summary).toMatchObject({ added: 2 })
    const before = await itemsOf(db, id)
    const api = before.find((item) => item.name === 'api')!
    const updatedAt = async () => (await db.query<{ updated_at: Date }>('SELECT updated_at FROM config_items WHERE id = $1', [api.id])).rows[0]!.updated_at
    const firstUpdate = await updatedAt()

    // Unchanged: nothing written, no change.
    expect((await run(id)).summary).toMatchObject({ added: 0, updated: 0, unchanged: 2, deleted: 0 })
    expect(await changesOf(api.id)).toEqual([])
    expect(new Date(await updatedAt()).getTime()).toBe(new Date(firstUpdate).getTime())

    files.write('services.yaml', 'services:\n  - {id: s1, name: api, replicas: 3}\n  - {id: s2, name: web, replicas: 1}\n')
    expect((await run(id)).summary).toMatchObject({ updated: 1, unchanged: 1 })
    const changes = await changesOf(api.id)
    expect(changes).toHaveLength(1)
    expect(changes[0]!.change_type).toBe('diff')
    expect(changes[0]!.diff).toContain('-  "replicas": 2')
    expect(changes[0]!.diff).toContain('+  "replicas": 3')
    expect(changes[0]!.patches).toEqual([{ op: 'replace', path: '/replicas', value: 3 }])
    expect(changes[0]!.summary).toBe('replicas')
    const web = before.find((item) => item.name === 'web')!
    expect(await changesOf(web.id)).toEqual([])

    // A vanished item is soft-deleted.
    files.write('services.yaml', 'services:\n  - {id: s1, name: api, replicas: 3}\n')
    expect((await run(id)).summary).toMatchObject({ deleted: 1, unchanged: 1 })
    const [gone] = (await itemsOf(db, id)).filter((item) => item.name === 'web')
    expect(gone!.deleted_at).not.toBeNull()
    expect(gone!.delete_reason).toBe('stale')
  })

  it('stores a first run of more items than one batch (statistics refreshed between batches)', async () => {
    const hosts = Array.from({ length: 2_500 }, (_, index) => ({ id: `h${index}`, shared: index % 2 === 0 ? 'even' : `odd-${index}` }))
    const files = folder({ 'hosts.json': JSON.stringify({ hosts }) })
    const id = await insertScraper(db, 'many', { file: [{ type: 'Lab::Host', id: '$.id', items: '$.hosts[*]', paths: [path.join(files.dir, '*.json')] }] })
    expect((await run(id)).summary).toMatchObject({ added: 2_500 })
    expect((await run(id)).summary).toMatchObject({ unchanged: 2_500, added: 0, updated: 0 })
  })

  it('writes the health trigger change when an item\'s health changes', async () => {
    const files = folder({ 'node.json': '{"id": "n1", "ok": "healthy"}' })
    const id = await insertScraper(db, 'health', { file: [{ type: 'Lab::Node', id: '$.id', health: '$.ok', paths: [path.join(files.dir, '*.json')] }] })
    await run(id)
    files.write('node.json', '{"id": "n1", "ok": "unhealthy"}')
    await run(id)
    const [item] = await itemsOf(db, id)
    expect(item!.health).toBe('unhealthy')
    const types = (await changesOf(item!.id)).map((change) => [change.change_type, change.source])
    expect(types).toContainEqual(['Unhealthy', 'config-db-health-trigger'])
    expect(types.map(([type]) => type)).toContain('diff')
  })

  it('reads no file for a spec no exec holder wrote (file and kubernetesFile)', async () => {
    const files = folder({ 'secret.json': '{"id": "s"}' })
    const id = await insertScraper(db, 'file-untrusted', {
      file: [{ type: 'Lab::Secret', id: '$.id', paths: [path.join(files.dir, '*.json')] }],
      kubernetesFile: [{ paths: [path.join(files.dir, '*.json')] }],
    }, 'UI', { trusted: false })
    const outcome = await run(id)
    expect(outcome.status).toBe('FAILED')
    expect([...outcome.errors!].sort()).toEqual([
      "file[0]: file scrapers read this server's files and run only when someone holding the exec permission wrote the spec; ask an admin to save this scraper",
      "kubernetesFile[0]: kubernetesFile scrapers read this server's files and run only when someone holding the exec permission wrote the spec; ask an admin to save this scraper",
    ])
    expect(await itemsOf(db, id)).toEqual([])
  })

  it('keeps stored items through a run with errors, and staleItemAge keeps vanished items until they are old', async () => {
    const files = folder({ 'a.json': '{"id": "a"}', 'b.json': '{"id": "b"}' })
    const id = await insertScraper(db, 'stale', { retention: { staleItemAge: '1h' }, file: [{ type: 'Lab::Thing', id: '$.id', paths: [path.join(files.dir, '*.json')] }] })
    await run(id)
    files.write('b.json', '{"id": ')
    const partial = await run(id)
    expect(partial.status).toBe('WARNING')
    expect(partial.errors!.join('\n')).toContain('b.json')
    expect((await itemsOf(db, id)).every((item) => item.deleted_at === null)).toBe(true)
    files.remove('b.json')
    const outcome = await run(id)
    expect(outcome.summary).toMatchObject({ deleted: 0, unchanged: 1 })
    expect((await itemsOf(db, id)).every((item) => item.deleted_at === null)).toBe(true)
  })
})

describe('timestamps', () => {
  it('reads Go layouts', () => {
    expect(parseGoTime('2026-03-04 05:06:07', '2006-01-02 15:04:05')!.toISOString()).toBe('2026-03-04T05:06:07.000Z')
    expect(parseGoTime('04/Mar/2026:05:06:07 +0100', '02/Jan/2006:15:04:05 -0700')!.toISOString()).toBe('2026-03-04T04:06:07.000Z')
    expect(parseGoTime('2026-03-04T05:06:07.250Z', '2006-01-02T15:04:05.999Z07:00')!.toISOString()).toBe('2026-03-04T05:06:07.250Z')
    expect(parseGoTime('Mar 4, 2026 at 5:06pm', 'Jan 2, 2006 at 3:04pm')!.toISOString()).toBe('2026-03-04T17:06:00.000Z')
    expect(parseGoTime('yesterday', '2006-01-02')).toBeNull()
  })

  it('sets created_at from createFields and deletes items whose deleteFields hold a time', async () => {
    const files = folder({
      'live.json': '{"id": "live", "made": "2025-12-01 08:00:00"}',
      'gone.json': '{"id": "gone", "made": "2025-12-02 08:00:00", "removed": "2026-01-05 09:30:00"}',
    })
    const id = await insertScraper(db, 'timestamps', {
      file: [{ type: 'Lab::Dated', id: '$.id', createFields: ['$.created', '$.made'], deleteFields: ['$.removed'], timestampFormat: '2006-01-02 15:04:05', paths: [path.join(files.dir, '*.json')] }],
    })
    await run(id)
    const items = Object.fromEntries((await itemsOf(db, id)).map((item) => [item.name, item]))
    expect(new Date(items.live!.created_at).toISOString()).toBe('2025-12-01T08:00:00.000Z')
    expect(items.live!.deleted_at).toBeNull()
    expect(new Date(items.gone!.deleted_at!).toISOString()).toBe('2026-01-05T09:30:00.000Z')
    // Deleted at the source and unchanged: a re-run writes nothing for it.
    expect((await run(id)).summary).toMatchObject({ unchanged: 2, updated: 0, added: 0 })
  })
})

describe('transform', () => {
  it('applies expr, exclude, mask, aliases, locations, relationships and analysis', async () => {
    const files = folder({
      'cluster.json': '{"id": "c1", "kind": "Cluster", "name": "prod"}',
      'app.json': '{"id": "a1", "kind": "App", "name": "shop", "cluster": "c1", "secret": "hunter2", "debug": {"trace": true}, "version": "1.2"}',
    })
    const id = await insertScraper(db, 'transformed', {
      file: [{
        type: '$.type', id: '$.id', name: '$.name',
        paths: [path.join(files.dir, '*.json')],
        transform: {
          expr: `{"config": config, "type": "Lab::" + config.kind,
                  "analysis": config.kind == "App" && config.version < "2" ? [{"analyzer": "old-version", "analysis_type": "technical_debt", "severity": "low", "summary": "version " + config.version}] : []}`,
          exclude: [{ types: ['Lab::App'], jsonpath: '$.debug' }],
          mask: [{ selector: 'config.kind == "App"', jsonpath: '$.secret', value: 'md5sum' }],
          aliases: [{ type: 'Lab::Cluster', values: ['cluster/{{.config.name}}'] }],
          locations: [{ type: 'Lab::App', values: ['$.cluster'] }],
          relationship: [{ filter: 'config.kind == "App"', type: { value: 'Lab::Cluster' }, external_id: { expr: 'config.cluster' }, relation: 'RunsOn' }],
        },
      }],
    })
    const outcome = await run(id)
    expect(outcome.errors ?? []).toEqual([])
    // The relationship's target may be scraped in the same run; a second run links it regardless of order.
    await run(id)
    const items = await itemsOf(db, id)
    const app = items.find((item) => item.type === 'Lab::App')!
    const cluster = items.find((item) => item.type === 'Lab::Cluster')!
    expect(app.config).not.toHaveProperty('debug')
    expect(app.config.secret).toBe('2ab96390c7dbe3439de74d0c9b0b1767')
    expect(cluster.external_id).toEqual(['c1', 'cluster/prod'])
    const { rows: locations } = await db.query('SELECT location FROM config_locations WHERE id = $1', [app.id])
    expect(locations).toEqual([{ location: 'c1' }])
    const { rows: links } = await db.query('SELECT config_id, related_id, relation FROM config_relationships WHERE scraper_id = $1 AND deleted_at IS NULL', [id])
    expect(links).toEqual([{ config_id: app.id, related_id: cluster.id, relation: 'RunsOn' }])
    const { rows: analyses } = await db.query('SELECT analyzer, analysis_type, severity, summary, status FROM config_analysis WHERE config_id = $1', [app.id])
    expect(analyses).toEqual([{ analyzer: 'old-version', analysis_type: 'technical_debt', severity: 'low', summary: 'version 1.2', status: 'open' }])
  })

  it('maps and excludes changes with transform.changes, and retention keeps the newest count', async () => {
    const files = folder({ 'x.json': '{"id": "x", "n": 0}' })
    const id = await insertScraper(db, 'changes', {
      retention: { changes: [{ name: 'Scaled', count: 1 }] },
      file: [{
        type: 'Lab::X', id: '$.id', paths: [path.join(files.dir, '*.json')],
        transform: { changes: { mapping: [{ filter: 'change.summary == "n"', type: 'Scaled', severity: 'low' }], exclude: ['config.n == 2'] } },
      }],
    })
    await run(id)
    for (const n of [1, 2, 3, 4]) {
      files.write('x.json', `{"id": "x", "n": ${n}}`)
      await run(id)
    }
    const [item] = await itemsOf(db, id)
    const changes = await changesOf(item!.id)
    // n=1, 3, 4 became Scaled changes (n=2 excluded); retention kept the newest one.
    expect(changes.map((change) => [change.change_type, change.severity])).toEqual([['Scaled', 'low']])
    expect(changes[0]!.diff).toContain('+  "n": 4')
  })
})

describe('retention', () => {
  it('removes old changes by age, soft-deletes items by updated age and purges deleted ones by deleted age', async () => {
    const files = folder({ 'a.json': '{"id": "a", "n": 1}', 'b.json': '{"id": "b"}', 'c.json': '{"id": "c"}' })
    const id = await insertScraper(db, 'retained', {
      retention: { changes: [{ name: 'diff', age: '1h' }], types: [{ name: 'Lab::Kept', updatedAge: '2h', deletedAge: '1d' }] },
      file: [{ type: 'Lab::Kept', id: '$.id', paths: [path.join(files.dir, '*.json')] }],
    })
    await run(id)
    files.write('a.json', '{"id": "a", "n": 2}')
    files.remove('b.json')
    await run(id)
    const byName = async () => Object.fromEntries((await itemsOf(db, id)).map((item) => [item.name, item]))
    const items = await byName()
    expect(items.b!.deleted_at).not.toBeNull()
    expect(await changesOf(items.a!.id)).toHaveLength(1)
    // Age them: a's change two hours old, b deleted two days ago, c not updated for three hours.
    // (Past the update triggers, which keep the first deletion time and stamp updated_at.)
    await db.transaction(async (tx) => {
      await tx.query('SET LOCAL session_replication_role = replica')
      await tx.query("UPDATE config_changes SET created_at = now() - interval '2 hours' WHERE config_id = $1", [items.a!.id])
      await tx.query("UPDATE config_items SET deleted_at = now() - interval '2 days' WHERE id = $1", [items.b!.id])
      await tx.query("UPDATE config_items SET updated_at = now() - interval '3 hours' WHERE id = $1", [items.c!.id])
    })
    await run(id)
    const after = await byName()
    expect(await changesOf(items.a!.id)).toEqual([])
    expect(after.b).toBeUndefined()
    expect(after.c!.deleted_at).not.toBeNull()
    expect(after.c!.delete_reason).toBe('retention')
    expect(after.a!.deleted_at).toBeNull()
  })
})

describe('exec and kubernetesFile scrapers', () => {
  it('reads a script\'s JSON output, one config per element', async () => {
    const id = await insertScraper(db, 'exec-scraper', {
      exec: [{ type: 'Lab::User', id: '$.login', name: '$.login', script: 'echo \'[{"login": "ana"}, {"login": "bo"}]\'' }],
    })
    const outcome = await run(id)
    expect(outcome.status).toBe('SUCCESS')
    expect((await itemsOf(db, id)).map((item) => item.name)).toEqual(['ana', 'bo'])
  })

  it('runs no script whose spec no exec holder wrote', async () => {
    const id = await insertScraper(db, 'exec-untrusted', { exec: [{ type: 'Lab::User', id: '$.id', script: 'echo \'{"id": "x"}\'' }] }, 'UI', { trusted: false })
    const outcome = await run(id)
    expect(outcome.status).toBe('FAILED')
    expect(outcome.errors).toEqual(['exec[0]: exec scrapers run only when someone holding the exec permission wrote the spec; ask an admin to save this scraper'])
    expect(await itemsOf(db, id)).toEqual([])
  })

  it('reports a failing script in job history', async () => {
    const id = await insertScraper(db, 'exec-fail', { exec: [{ type: 'Lab::User', id: '$.id', script: 'echo broken >&2; exit 3' }] })
    const outcome = await run(id)
    expect(outcome.status).toBe('FAILED')
    expect(outcome.errors!.join()).toContain('exit code 3: broken')
  })

  it('takes id, type, class, name, labels and namespace from Kubernetes metadata', async () => {
    const files = folder({
      'manifests.yaml': `apiVersion: apps/v1
kind: Deployment
metadata: {name: shop, namespace: prod, uid: 0b5c2f6e-1111-4a5e-9c1e-5f0e6f0b1a01, labels: {app: shop}, creationTimestamp: "2026-01-02T03:04:05Z"}
spec: {replicas: 2}
---
apiVersion: v1
kind: List
items:
  - {apiVersion: v1, kind: Service, metadata: {name: shop, namespace: prod}}
`,
    })
    const id = await insertScraper(db, 'k8s-files', { kubernetesFile: [{ paths: [path.join(files.dir, '*.yaml')] }] })
    const outcome = await run(id)
    expect(outcome.status).toBe('SUCCESS')
    const items = await itemsOf(db, id)
    expect(items.map((item) => [item.type, item.name, item.config_class, item.external_id[0]])).toEqual([
      ['Kubernetes::Deployment', 'shop', 'Deployment', '0b5c2f6e-1111-4a5e-9c1e-5f0e6f0b1a01'],
      ['Kubernetes::Service', 'shop', 'Service', 'Service/prod/shop'],
    ])
    expect(items[0]!.labels).toEqual({ app: 'shop', namespace: 'prod' })
    expect(items[0]!.tags).toEqual({ namespace: 'prod' })
    expect(new Date(items[0]!.created_at).toISOString()).toBe('2026-01-02T03:04:05.000Z')
  })
})

describe('postgres scraper entries', () => {
  it('run as sql entries on PostgreSQL', async () => {
    const spec = { postgres: [{ connection: TEST_PG_ADMIN_URL, query: "SELECT 'r1' AS id, 'first' AS name UNION ALL SELECT 'r2', 'second'", type: 'Lab::Row', id: '$.id', name: '$.name' }] }
    // The database is this server's own address: reachable only for specs an exec holder wrote (insertScraper trusts).
    const id = await insertScraper(db, 'pg-rows', spec)
    const outcome = await run(id)
    expect(outcome.errors ?? []).toEqual([])
    expect((await itemsOf(db, id)).map((item) => item.name)).toEqual(['first', 'second'])
  })
})

describe('timeouts and parents', () => {
  it('stops a scraper at its timeout: FAILED, the script killed, nothing stored', async () => {
    const id = await insertScraper(db, 'too-slow', { timeout: '1s', exec: [{ type: 'Lab::Slow', id: '$.id', script: 'sleep 20; echo \'{"id": "late"}\'' }] })
    const started = Date.now()
    const outcome = await run(id)
    expect(Date.now() - started).toBeLessThan(8_000)
    expect(outcome.status).toBe('FAILED')
    expect(outcome.errors!.join()).toMatch(/timed out/)
    expect(await itemsOf(db, id)).toEqual([])
  })

  it('makes a relationship rule with parent: true the item\'s parent (a hard relationship and a path)', async () => {
    const files = folder({ 'ns.json': '{"id": "ns-1", "kind": "Namespace", "name": "shop"}', 'pod.json': '{"id": "pod-1", "kind": "Pod", "name": "web", "ns": "shop"}' })
    const id = await insertScraper(db, 'parents', {
      file: [{
        type: '$.kind', id: '$.id', name: '$.name', paths: [path.join(files.dir, '*.json')],
        transform: { relationship: [{ filter: 'config.kind == "Pod"', type: { value: 'Namespace' }, name: { expr: 'config.ns' }, parent: true }] },
      }],
    })
    await run(id)
    const items = Object.fromEntries((await itemsOf(db, id)).map((item) => [item.type, item]))
    expect(items.Pod!.parent_id).toBe(items.Namespace!.id)
    const { rows } = await db.query<{ path: string }>('SELECT path FROM config_items WHERE id = $1', [items.Pod!.id])
    expect(rows[0]!.path).toBe(items.Namespace!.id)
    const { rows: hard } = await db.query("SELECT 1 FROM config_relationships WHERE config_id = $1 AND related_id = $2 AND relation = 'hard'", [items.Namespace!.id, items.Pod!.id])
    expect(hard).toHaveLength(1)
  })
})

describe('platform scrapers', () => {
  it('records a job-history error naming the platform, never a crash', async () => {
    const id = await insertScraper(db, 'cloud', { kubernetes: [{ clusterName: 'prod' }], aws: [{ region: ['eu-west-1'] }] }, 'KubernetesCRD')
    const outcome = await run(id)
    expect(outcome.status).toBe('FAILED')
    const { rows: [job] } = await db.query<{ status: string; error_count: number; details: { errors: string[] } }>('SELECT status, error_count, details FROM job_history WHERE id = $1', [outcome.jobHistoryId])
    expect(job!.status).toBe('FAILED')
    expect(job!.error_count).toBe(2)
    const errors = [...job!.details.errors].sort()
    expect(errors[0]).toMatch(/^aws\[0\]: aws scrapers need AWS/)
    expect(errors[1]).toMatch(/^kubernetes\[0\]: kubernetes scrapers need a Kubernetes cluster/)
  })
})

describe('the engine', () => {
  it('returns null for an unknown scraper and RUNNING at once for an async run', async () => {
    expect(await engine.runNow('0190f0f0-0000-7000-8000-00000000beef')).toBeNull()
    const id = await insertScraper(db, 'slow', { exec: [{ type: 'Lab::Slow', id: '$.id', script: 'sleep 0.5; echo \'{"id": "s"}\'' }] })
    const started = Date.now()
    const outcome = await engine.runNow(id, { async: true })
    expect(outcome!.status).toBe('RUNNING')
    expect(Date.now() - started).toBeLessThan(400)
    const { rows: [running] } = await db.query<{ status: string }>('SELECT status FROM job_history WHERE id = $1', [outcome!.jobHistoryId])
    expect(running!.status).toBe('RUNNING')
    await waitFor(async () => (await db.query<{ status: string }>('SELECT status FROM job_history WHERE id = $1', [outcome!.jobHistoryId])).rows[0]?.status === 'SUCCESS')
    expect(await itemsOf(db, id)).toHaveLength(1)
  })

  it('runs scrapers on their schedule in two processes, never one scraper twice at once', async () => {
    const files = folder()
    const log = path.join(files.dir, 'runs.log')
    // Each run logs its start and end around a pause, so overlapping runs would interleave.
    const id = await insertScraper(db, 'shared', {
      schedule: '@every 1s',
      exec: [{ type: 'Lab::Tick', id: '$.id', script: `echo "start $(date +%s%N)" >> ${log}; sleep 0.3; echo "end $(date +%s%N)" >> ${log}; echo '{"id": "tick"}'` }],
    })
    const second = await insertScraper(db, 'shared-too', { schedule: '@every 1s', file: [{ type: 'Lab::None', id: '$.id', paths: [path.join(files.dir, 'none-*.json')] }] })
    const a = testScrapeEngine(db, { processId: 'engine-a' })
    const b = testScrapeEngine(db, { processId: 'engine-b' })
    await Promise.all([a.start(), b.start()])
    try {
      await waitFor(async () => (await db.query("SELECT 1 FROM job_history WHERE resource_id = $1 AND status = 'SUCCESS'", [id])).rows.length >= 4, 20_000)
    } finally {
      await Promise.all([a.stop(), b.stop()])
    }
    const lines = readFileSync(log, 'utf8').trim().split('\n')
    // Strictly alternating start/end: no run began before the previous one ended.
    lines.forEach((line, index) => expect(line.startsWith(index % 2 === 0 ? 'start' : 'end')).toBe(true))
    expect(lines.length).toBeGreaterThanOrEqual(8)
    const { rows: owners } = await db.query<{ last_owner: string }>('SELECT last_owner FROM lookout.scraper_schedule WHERE scraper_id = ANY($1::uuid[])', [[id, second]])
    expect(owners.every((row) => ['engine-a', 'engine-b'].includes(row.last_owner))).toBe(true)
    const { rows: leases } = await db.query('SELECT 1 FROM lookout.scraper_schedule WHERE lease_owner IS NOT NULL')
    expect(leases).toEqual([])
  }, 30_000)

  it('uses the scrapers.default.schedule property for scrapers without a schedule', async () => {
    await db.query("INSERT INTO properties (name, value) VALUES ('scrapers.default.schedule', '@every 7m') ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value")
    const id = await insertScraper(db, 'defaulted', { file: [{ type: 'Lab::None', id: '$.id', paths: ['/nonexistent-lookout/*.json'] }] })
    await engine.syncNow()
    const { rows: [row] } = await db.query<{ schedule: string }>('SELECT schedule FROM lookout.scraper_schedule WHERE scraper_id = $1', [id])
    expect(row!.schedule).toBe('@every 7m')
    await db.query("DELETE FROM properties WHERE name = 'scrapers.default.schedule'")
  })
})
