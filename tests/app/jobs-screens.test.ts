import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { AppLoadContext } from '@remix-run/node'
import request from 'supertest'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { jobResourceHref } from '#app/components/jobs/job-vocabulary.ts'
import { parseJobHistorySearch } from '#app/lib/job-history-search.ts'
import { action as eventQueueAction, loader as eventQueueLoader } from '#app/routes/_console.settings.event-queue-status.tsx'
import { loader as jobsLoader } from '#app/routes/_console.settings.jobs.tsx'
import { pruneCheckStatuses } from '#server/backend/health/result-store.ts'
import { endRun, PLAYBOOK_RUN_JOB_NAME } from '#server/backend/playbooks/run-state.ts'
import { personWith } from '#tests/rbac/rbac-fixture.ts'
import { bearer } from '#tests/support/test-app.ts'
import { useTestApp } from '#tests/support/use-test-app.ts'

/**
 * The jobs history and event queue screens' loaders and action against the real gateway and
 * backend on a loopback port, as Remix calls them: the spec's defaults (SUCCESS, last 2 days, 150
 * a page), filters, sorting and paging in the URL, the details dialog's data, the engines that
 * write job rows (playbook runs, retention), and retry/discard of failed events, admins only.
 */
describe('jobs history and event queue screens', () => {
  const testApp = useTestApp()
  let server: http.Server
  let base: string
  let scraperId: string

  beforeAll(async () => {
    server = http.createServer((req, res) => testApp.app(req, res))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const db = testApp.db
    scraperId = (await db.query<{ id: string }>(`INSERT INTO config_scrapers (name, spec, source) VALUES ('kube-scraper', '{}'::jsonb, 'UI') RETURNING id`)).rows[0]!.id
    const insert = (name: string, status: string, hoursAgo: number, extra: { type?: string; id?: string; duration?: number; details?: unknown } = {}) =>
      db.query(
        `INSERT INTO job_history (name, status, resource_type, resource_id, duration_millis, details, time_start, created_at, success_count, error_count)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb, now() - $7 * interval '1 hour', now() - $7 * interval '1 hour', 1, 0)`,
        [name, status, extra.type ?? null, extra.id ?? null, extra.duration ?? 100, JSON.stringify(extra.details ?? {}), hoursAgo],
      )
    // 160 recent successful runs: more than one page of 150.
    await db.query(
      `INSERT INTO job_history (name, status, resource_type, resource_id, duration_millis, details, time_start, created_at)
       SELECT 'Canary', 'SUCCESS', 'canary', gen_random_uuid()::text, i, '{}'::jsonb, now() - i * interval '1 minute', now() - i * interval '1 minute'
       FROM generate_series(1, 160) AS i`,
    )
    await insert('Scraper', 'FAILED', 1, { type: 'config_scraper', id: scraperId, duration: 45_000, details: { errors: ['connection refused'], scrape_summary: { 'Kubernetes::Pod': { added: 2 } } } })
    await insert('Scraper', 'SUCCESS', 2, { type: 'config_scraper', id: scraperId, duration: 90_000, details: { scrape_summary: { 'Kubernetes::Pod': { unchanged: 2 } } } })
    await insert('Topology', 'SUCCESS', 72, { type: 'topology', id: scraperId })
  })

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })

  const context = () => ({ gateway: { gatewayBaseUrl: base, gatewayTimeoutMs: 10_000 }, cspNonce: 'n', publicEnv: { frontendVersion: 't', mode: 'embedded' } }) as AppLoadContext
  const get = (path: string, headers: Record<string, string> = bearer) => ({ request: new Request(`http://console.test${path}`, { headers }), context: context(), params: {} })
  const loadJobs = async (search = '') => (await jobsLoader(get(`/settings/jobs${search}`)))

  it('parses bad URL values back to the spec defaults instead of failing', () => {
    const search = parseJobHistorySearch(new URLSearchParams('status=BOGUS&range=9y&pageSize=7&page=-3&sortBy=drop&job=x&resourceType=team'))
    expect(search).toMatchObject({ status: 'SUCCESS', range: '2d', pageSize: 150, page: 1, sortBy: null, job: null, resourceType: null })
    expect(parseJobHistorySearch(new URLSearchParams('status=all')).status).toBeNull()
  })

  it('lists SUCCESS runs of the last 2 days, 150 a page, newest first', async () => {
    const first = await loadJobs()
    expect(first.total).toBe(161)
    expect(first.rows).toHaveLength(150)
    expect(first.pageCount).toBe(2)
    expect(first.rows.every((row) => row.status === 'SUCCESS')).toBe(true)
    // The 72-hour-old topology run is outside the default range.
    expect(first.rows.some((row) => row.name === 'Topology')).toBe(false)
    const times = first.rows.map((row) => Date.parse(row.created_at))
    expect(times).toEqual([...times].sort((a, b) => b - a))
    const second = await loadJobs('?page=2')
    expect(second.rows).toHaveLength(11)
  })

  it('filters by status, name, resource type, duration and range, and sorts by a column', async () => {
    const failed = await loadJobs('?status=FAILED')
    expect(failed.rows.map((row) => [row.name, row.resource_name, row.tabs])).toEqual([['Scraper', 'kube-scraper', ['errors', 'scrape']]])
    const slow = await loadJobs('?status=all&duration=1m')
    expect(slow.rows.map((row) => row.duration_millis)).toEqual([90_000])
    const scrapers = await loadJobs('?status=all&resourceType=config_scraper&sortBy=duration_millis&sortDesc=false')
    expect(scrapers.rows.map((row) => row.duration_millis)).toEqual([45_000, 90_000])
    const week = await loadJobs('?name=Topology&range=1w')
    expect(week.rows).toHaveLength(1)
    expect(week.names).toEqual(expect.arrayContaining(['Canary', 'Scraper', 'Topology']))
  })

  it('opens the details dialog only for a job that has something to show', async () => {
    const failed = (await loadJobs('?status=FAILED')).rows[0]!
    const opened = await loadJobs(`?status=FAILED&job=${failed.id}&tab=scrape`)
    expect(opened.job).toMatchObject({ id: failed.id, name: 'Scraper', details: { errors: ['connection refused'] } })
    expect(opened.search.tab).toBe('scrape')
    const plain = (await loadJobs()).rows.find((row) => row.name === 'Canary')!
    expect((await loadJobs(`?job=${plain.id}`)).job).toBeNull()
  })

  it('links each resource type where the spec says', () => {
    expect(jobResourceHref('canary', 'c1')).toBe('/settings/canaries/c1')
    expect(jobResourceHref('config_scraper', 's1')).toBe('/catalog/scrapers/s1')
    expect(jobResourceHref('topology', 't1')).toBe('/settings/topologies/t1')
    expect(jobResourceHref('playbook', 'p1')).toBe('/playbooks/runs?playbook=p1')
    expect(jobResourceHref(null, 'x')).toBeNull()
  })

  it('writes one job row when a playbook run ends, and one per retention pass', async () => {
    const db = testApp.db
    const playbookId = (await db.query<{ id: string }>(`INSERT INTO playbooks (name, spec, source) VALUES ('restart', '{"actions":[]}'::jsonb, 'UI') RETURNING id`)).rows[0]!.id
    const runId = (await db.query<{ id: string }>(`INSERT INTO playbook_runs (playbook_id, spec, status, start_time) VALUES ($1, '{"actions":[]}'::jsonb, 'running', now()) RETURNING id`, [playbookId])).rows[0]!.id
    expect(await db.transaction((tx) => endRun(tx, runId, { status: 'failed', error: 'step one broke' }, { from: ['running'] }))).toBe(true)
    const { rows } = await db.query<{ status: string; resource_type: string; resource_id: string; details: { run_id: string; errors: string[] } }>(
      'SELECT status, resource_type, resource_id, details FROM job_history WHERE name = $1',
      [PLAYBOOK_RUN_JOB_NAME],
    )
    expect(rows).toEqual([{ status: 'FAILED', resource_type: 'playbook', resource_id: playbookId, details: expect.objectContaining({ run_id: runId, errors: ['step one broke'] }) }])

    await pruneCheckStatuses(db, 30)
    const retention = await loadJobs('?name=CheckStatusRetention')
    expect(retention.rows).toHaveLength(1)
    expect(retention.rows[0]!.tabs).toEqual(['summary'])
  })

  describe('event queue', () => {
    const post = (fields: Record<string, string>, headers: Record<string, string> = bearer) => ({
      request: new Request('http://console.test/settings/event-queue-status', {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields),
      }),
      context: context(),
      params: {},
    })
    const settle = async (run: () => Promise<unknown>): Promise<{ status: number; location: string | null; body: unknown }> => {
      let answer: unknown
      try {
        answer = await run()
      } catch (thrown) {
        answer = thrown
      }
      if (answer instanceof Response) return { status: answer.status, location: answer.headers.get('location'), body: null }
      const single = answer as { data: unknown; init?: { status?: number } | null }
      return { status: single.init?.status ?? 200, location: null, body: single.data }
    }

    beforeAll(async () => {
      await testApp.db.query(
        `INSERT INTO event_queue (name, event_id, attempts, error, last_attempt, created_at) VALUES
           ('test.jobs.failing', gen_random_uuid(), 10, 'upstream 500', now() - interval '1 minute', now() - interval '1 hour'),
           ('test.jobs.failing', gen_random_uuid(), 4, 'upstream timeout', now(), now() - interval '2 hours'),
           ('test.jobs.failing', gen_random_uuid(), 0, NULL, NULL, now()),
           ('test.jobs.other', gen_random_uuid(), 10, 'bad payload', now(), now())`,
      )
    })

    const summaryOf = async (name: string) => {
      const loaded = (await eventQueueLoader(get('/settings/event-queue-status'))) as unknown as { data: { rows: Array<Record<string, unknown>>; canManage: boolean } }
      return { row: loaded.data.rows.find((row) => row.name === name), canManage: loaded.data.canManage }
    }

    it('summarises each event name', async () => {
      const { row, canManage } = await summaryOf('test.jobs.failing')
      expect(canManage).toBe(true)
      expect(row).toMatchObject({ pending: 3, failed: 2, last_error: 'upstream timeout' })
      expect(Number(row!.average_attempts)).toBeCloseTo(4.67, 2)
    })

    it('refuses retry and discard to a non-admin, in the console and on the API', async () => {
      const editor = await personWith(testApp.db, ['editor'])
      expect((await settle(() => eventQueueAction(post({ intent: 'retry', name: 'test.jobs.failing' }, editor.headers)))).status).toBe(403)
      const api = await request(testApp.app).patch('/api/db/event_queue?name=eq.test.jobs.failing').set(editor.headers).send({ attempts: 0 })
      expect(api.status).toBe(403)
      const { rows } = await testApp.db.query<{ attempts: number }>(`SELECT attempts FROM event_queue WHERE name = 'test.jobs.failing' AND error IS NOT NULL`)
      expect(rows.map((row) => row.attempts).sort()).toEqual([10, 4])
    })

    it('rejects an empty event name with the field error', async () => {
      const answer = await settle(() => eventQueueAction(post({ intent: 'retry', name: '' })))
      expect(answer.status).toBe(400)
      expect(JSON.stringify(answer.body)).toContain('Event name is required')
    })

    it('retries the failed events of a name, then discards those of another', async () => {
      const retried = await settle(() => eventQueueAction(post({ intent: 'retry', name: 'test.jobs.failing' })))
      expect(retried).toMatchObject({ status: 303, location: '/settings/event-queue-status' })
      const { rows } = await testApp.db.query<{ attempts: number; error: string | null; last_attempt: string | null }>(`SELECT attempts, error, last_attempt FROM event_queue WHERE name = 'test.jobs.failing'`)
      expect(rows).toHaveLength(3)
      expect(rows.every((row) => row.attempts === 0 && row.error === null && row.last_attempt === null)).toBe(true)

      const discarded = await settle(() => eventQueueAction(post({ intent: 'discard', name: 'test.jobs.other' })))
      expect(discarded.status).toBe(303)
      expect((await summaryOf('test.jobs.other')).row).toBeUndefined()
      expect((await summaryOf('test.jobs.failing')).row).toMatchObject({ pending: 3, failed: 0 })
    })
  })
})
