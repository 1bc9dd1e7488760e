import request from 'supertest'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { getChecksSummaryJson } from '#server/backend/health/canary-summary.ts'
import { getSummaryViewJson, parseSummaryView, ROUNDED_MEAN } from '#server/backend/health/summary-view.ts'
import { buildHealthView, labelFilterId, summaryViewRequest, viewFromAnswer, type CheckSummary } from '#app/components/health/health-model.ts'
import { parseHealthParams } from '#app/components/health/health-params.ts'
import { SUMMARY_VIEW_PARAM, type SummaryViewAnswer } from '#contract/canary/summary-view.ts'

/*
 * The /health list computed in SQL (server/backend/health/summary-view.ts) against the same
 * list computed by the console from the whole summary (health-model.ts buildHealthView, the
 * upstream-mode path): for every combination of the list's parameters both must give the same
 * HealthView, so moving the work into the database changes nothing the page shows.
 */

const HOUR = 3_600_000

describe('the /health list in SQL equals the list the console builds from the whole summary', () => {
  const testApp = useTestApp({ LOOKOUT_ENGINE: 'off' })
  const end = new Date(Math.floor(Date.now() / HOUR) * HOUR - 3 * HOUR + 23 * 60_000)
  let agentNames = new Map<string, string>()
  const bearer = () => ({ authorization: `Bearer ${testApp.env.LOOKOUT_BOOTSTRAP_TOKEN}` })

  beforeAll(async () => {
    const db = testApp.db
    const { rows: agents } = await db.query<{ id: string; name: string }>(`INSERT INTO agents (name) VALUES ('eu-agent') RETURNING id, name`)
    agentNames = new Map(agents.map((agent) => [agent.id, agent.name]))
    // Canary names with case, punctuation, accents and an empty-ish namespace; labels of
    // strings (one key boolean-valued) and one non-string value.
    await db.query(
      `INSERT INTO canaries (name, namespace, labels, spec, source)
       SELECT n, CASE WHEN g % 4 = 0 THEN 'payments' WHEN g % 4 = 1 THEN 'default' ELSE 'web' END,
         jsonb_build_object('team', 'team-' || (g % 3), 'critical', (g % 2 = 0)::text) || CASE WHEN g = 5 THEN '{"weight": 3}'::jsonb ELSE '{}'::jsonb END,
         '{}'::jsonb, 'UI'
       FROM unnest(ARRAY['pay', 'Web', 'web-b', 'web_a', 'Éclair', 'zeta', 'alpha.1', 'Alpha-2', 'mixed', 'none', 'B10', 'b9']) WITH ORDINALITY AS t(n, g)`,
    )
    // 130 checks: names repeat across canaries (ties), some upper-case, some empty with a
    // description; statuses healthy, unhealthy and unknown; types mixed inside some canaries.
    await db.query(
      `INSERT INTO checks (canary_id, type, name, namespace, status, description, icon, labels, agent_id, last_transition_time)
       SELECT ca.id, CASE WHEN g % 7 = 0 THEN 'tcp' WHEN ca.name = 'mixed' AND g % 2 = 0 THEN 'dns' ELSE 'http' END,
         CASE WHEN g % 13 = 0 THEN '' WHEN g % 5 = 0 THEN upper('check-' || (g % 11)) ELSE 'check-' || (g % 11) END,
         CASE WHEN g % 6 = 0 THEN NULL WHEN g % 6 = 1 THEN '' ELSE ca.namespace END,
         CASE WHEN g % 5 = 1 THEN 'unhealthy' WHEN g % 9 = 0 THEN NULL ELSE 'healthy' END,
         CASE WHEN g % 13 = 0 THEN 'Described ' || g WHEN g % 4 = 0 THEN 'the shop ' || g END,
         CASE WHEN g % 3 = 0 THEN 'http' END,
         CASE WHEN g % 8 = 0 THEN jsonb_build_object('team', 'override', 'tier', 'gold') WHEN g % 8 = 1 THEN '{"tier": "silver"}'::jsonb ELSE '{}'::jsonb END,
         CASE WHEN g % 10 = 0 THEN $1::uuid ELSE '00000000-0000-0000-0000-000000000000'::uuid END,
         now() - g * interval '1 hour'
       FROM generate_series(1, 130) g
       JOIN canaries ca ON ca.name = (ARRAY['pay', 'Web', 'web-b', 'web_a', 'Éclair', 'zeta', 'alpha.1', 'Alpha-2', 'mixed', 'none', 'B10', 'b9'])[1 + g % 12]`,
      [agents[0]!.id],
    )
    // Runs over six hours before `end`: most checks pass, some fail now and then, every 9th
    // check has runs only long before the window (the latest-status fallback), every 11th none.
    await db.query(
      `INSERT INTO check_statuses (check_id, time, status, duration)
       SELECT k.id, $1::timestamptz - s * interval '10 minutes' - CASE WHEN k.n % 9 = 0 THEN interval '2 days' ELSE interval '0' END,
         NOT (k.n % 4 = 1 AND s % 3 = 0) AND NOT (k.n % 17 = 0), CASE WHEN k.n % 15 = 0 THEN 0 ELSE 20 + (k.n * 37 + s * 11) % 400 END
       FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM checks) k CROSS JOIN generate_series(0, 36) s
       WHERE k.n % 11 <> 0`,
      [end],
    )
  }, 60_000)

  async function both(search: string, timeRange: '1h' | '6h' = '1h') {
    const params = parseHealthParams(new URLSearchParams(search))
    const start = new Date(end.getTime() - (timeRange === '1h' ? 1 : 6) * HOUR)
    const checks = JSON.parse(await getChecksSummaryJson(testApp.db, { start, end })) as CheckSummary[]
    const fromConsole = buildHealthView(checks, params, agentNames)
    const answer = JSON.parse(await getSummaryViewJson(testApp.db, { start, end }, summaryViewRequest(params))) as SummaryViewAnswer
    return { fromConsole, fromSql: viewFromAnswer(answer, params), answer }
  }

  const groupings = ['no_grouping', 'canary_name', 'name', 'description', 'type', 'label:team', 'label:weight', 'namespace']
  const sorts = ['', 'sortBy=name', 'sortBy=name&sortDesc=true', 'sortBy=health', 'sortBy=health&sortDesc=true', 'sortBy=uptime', 'sortBy=uptime&sortDesc=true', 'sortBy=latency', 'sortBy=latency&sortDesc=true']

  it('for every grouping and sort, hiding passing checks or not', async () => {
    let compared = 0
    for (const groupBy of groupings) {
      for (const sort of sorts) {
        for (const hidePassing of ['true', 'false']) {
          const search = `hidePassing=${hidePassing}&groupBy=${groupBy}&${sort}&expanded=pay,Web,check-3,,http,team-1,none`
          const { fromConsole, fromSql } = await both(search)
          expect(fromSql, search).toEqual(fromConsole)
          compared += 1
        }
      }
    }
    expect(compared).toBe(groupings.length * sorts.length * 2)
  }, 120_000)

  it('for tabs, search, label filters, pages and a longer window', async () => {
    const team = (value: string, state: 1 | -1) => ({ [labelFilterId('team', value)]: state })
    const labels = (filters: Record<string, 1 | -1>) => `labels=${encodeURIComponent(JSON.stringify(filters))}`
    const searches = [
      'hidePassing=false&tab=payments',
      'hidePassing=false&tab=none&groupBy=no_grouping&sortBy=latency',
      'hidePassing=false&tab=nowhere',
      'hidePassing=false&tabBy=agent_id',
      'hidePassing=false&tabBy=agent_id&tab=eu-agent&groupBy=no_grouping',
      'hidePassing=false&tabBy=agent_id&tab=local',
      'hidePassing=false&tabBy=label:tier&tab=gold&groupBy=no_grouping',
      'hidePassing=false&tabBy=label:critical',
      'hidePassing=false&query=SHOP&groupBy=no_grouping',
      'hidePassing=false&query=éclair',
      'hidePassing=false&query=no-such-check',
      `hidePassing=false&groupBy=no_grouping&${labels(team('team-1', 1))}`,
      `hidePassing=false&groupBy=no_grouping&${labels({ ...team('team-1', 1), ...team('override', 1) })}`,
      `hidePassing=false&${labels({ ...team('team-1', -1), [labelFilterId('tier', 'gold')]: -1 })}`,
      `hidePassing=false&${labels({ [labelFilterId('critical', 'true')]: 1, [labelFilterId('tier', 'silver')]: -1 })}`,
      'hidePassing=false&groupBy=no_grouping&page=2',
      'hidePassing=false&groupBy=no_grouping&page=3&sortBy=uptime',
      'hidePassing=false&groupBy=no_grouping&page=99',
      'hidePassing=false&groupBy=no_grouping&pageSize=100&page=2&sortBy=health&sortDesc=true',
      'hidePassing=false&groupBy=name&page=2&pageSize=50',
      'layout=card&hidePassing=false&groupBy=type&expanded=http,tcp,dns',
    ]
    for (const search of searches) {
      for (const timeRange of ['1h', '6h'] as const) {
        const { fromConsole, fromSql } = await both(search, timeRange)
        expect(fromSql, `${search} over ${timeRange}`).toEqual(fromConsole)
      }
    }
    // The fixture does reach what it means to compare.
    const paged = await both('hidePassing=false&groupBy=no_grouping&page=99')
    expect(paged.fromSql).toMatchObject({ page: 3, pageCount: 3, totalRows: 130 - 0 })
    expect(paged.fromSql.rows.length).toBeGreaterThan(0)
    const tabs = await both('hidePassing=false&tabBy=agent_id')
    expect(tabs.fromSql.tabs.map((tab) => tab.label)).toEqual(expect.arrayContaining(['All', 'eu-agent', 'local']))
    const grouped = await both('hidePassing=false&expanded=pay')
    expect(grouped.answer.rows.find((row) => row.kind === 'group' && row.key === 'pay')).toMatchObject({ kind: 'group', children: expect.arrayContaining([expect.objectContaining({ canary_name: 'pay' })]) })
  }, 120_000)

  it('answers the extension through GET /api/summary and leaves the reference answer alone', async () => {
    const params = parseHealthParams(new URLSearchParams('hidePassing=false&groupBy=no_grouping'))
    const question = encodeURIComponent(JSON.stringify(summaryViewRequest(params)))
    const extended = await request(testApp.app).get(`/api/canary/api/summary?start=60m&${SUMMARY_VIEW_PARAM}=${question}`).set(bearer())
    expect(extended.status).toBe(200)
    expect(extended.body.checks_summary).toBeUndefined()
    expect(extended.body[SUMMARY_VIEW_PARAM]).toMatchObject({ counts: { all: 130 }, page: 1, totalRows: 130 })
    expect(extended.body[SUMMARY_VIEW_PARAM].rows).toHaveLength(50)
    const plain = await request(testApp.app).get('/api/canary/api/summary?start=60m').set(bearer())
    expect(Object.keys(plain.body)).toEqual(['runnerName', 'duration', 'checks_summary'].filter((key) => key in plain.body))
    expect(plain.body.checks_summary).toHaveLength(130)
    expect(plain.body[SUMMARY_VIEW_PARAM]).toBeUndefined()
    // A POST is the reference's request: the extension is a GET query parameter only.
    const posted = await request(testApp.app).post(`/api/canary/api/summary?${SUMMARY_VIEW_PARAM}=${question}`).set(bearer()).send({})
    expect(posted.body.checks_summary).toHaveLength(130)
  })

  it("rounds weighted means as the summary's numeric arithmetic does, ties and large sums included", async () => {
    // Groups of buckets (b.p95, b.total) whose weighted means fall on .5, just off it, and sums near 2^40.
    const { rows } = await testApp.db.query<{ g: number; fast: number | null; exact: number | null }>(
      `SELECT b.g, ${ROUNDED_MEAN('p95')} AS fast,
         round(sum(b.p95::numeric * b.total) FILTER (WHERE b.p95 IS NOT NULL) / nullif(sum(b.total) FILTER (WHERE b.p95 IS NOT NULL), 0))::integer AS exact
       FROM (
         SELECT g, CASE WHEN i % 2 = 0 THEN 100 + g ELSE 101 + g END AS p95, CASE WHEN g % 3 = 0 THEN 1 ELSE 2 + i % 2 * (g % 5) END AS total
         FROM generate_series(1, 400) g, generate_series(0, 3) i
         UNION ALL SELECT 1000, 59999, 2147483 UNION ALL SELECT 1000, 60000, 2147481
         UNION ALL SELECT 1001, NULL, 5
       ) b GROUP BY b.g`,
    )
    expect(rows.length).toBe(402)
    for (const row of rows) expect(row.fast, `group ${row.g}`).toBe(row.exact)
    expect(rows.filter((row) => row.exact !== null).length).toBe(401)
  })

  it('refuses a malformed question with a 400 naming it', async () => {
    const bad = await request(testApp.app).get(`/api/canary/api/summary?${SUMMARY_VIEW_PARAM}=${encodeURIComponent('{"page":0}')}`).set(bearer())
    expect(bad.status).toBe(400)
    expect(bad.body.error).toMatch(/^invalid request: lookout_view\./)
    const notJson = await request(testApp.app).get(`/api/canary/api/summary?${SUMMARY_VIEW_PARAM}=nope`).set(bearer())
    expect(notJson.status).toBe(400)
    expect(notJson.body.error).toBe('invalid request: lookout_view must be JSON')
    expect(() => parseSummaryView(JSON.stringify({ ...summaryViewRequest(parseHealthParams(new URLSearchParams())), sortBy: 'drop table' }))).toThrow(/sortBy/)
  })
})
