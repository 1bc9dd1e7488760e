import { describe, expect, it } from 'vitest'
import {
  activeFilterCount,
  buildHealthView,
  groupByOptions,
  labelFilterId,
  labelOptions,
  showRuntimeAge,
  showTransitionAge,
  tabByOptions,
  type CheckSummary,
} from '#app/components/health/health-model.ts'
import { canRunNow, DURATION_FILTER_ERROR, parseDurationFilter, parseRefreshRate, thinGraph } from '#app/components/health/check-detail-model.ts'
import { parseDetailParams, parseHealthParams } from '#app/components/health/health-params.ts'

const check = (id: string, extra: Partial<CheckSummary>): CheckSummary => ({
  id,
  name: id,
  canary_name: 'canary',
  namespace: 'default',
  type: 'http',
  status: 'healthy',
  agent_id: '00000000-0000-0000-0000-000000000000',
  labels: {},
  uptime: { passed: 10, failed: 0 },
  latency: {},
  ...extra,
})

const CHECKS: CheckSummary[] = [
  check('alpha', { status: 'unhealthy', namespace: 'payments', canary_name: 'pay', labels: { team: 'payments', critical: 'true' }, uptime: { passed: 3, failed: 1 }, latency: { p99: 2500 } }),
  check('beta', { namespace: 'payments', canary_name: 'pay', labels: { team: 'payments', critical: 'false' }, latency: { p95: 40, p99: 90 } }),
  check('Gamma', { namespace: '', canary_name: 'web', description: 'the shop', labels: { team: 'web' }, agent_id: 'a1' }),
  check('delta', { status: 'unhealthy', namespace: 'default', canary_name: 'web', labels: { team: 'web' }, uptime: { passed: 0, failed: 4 } }),
]

const view = (search: string) => buildHealthView(CHECKS, parseHealthParams(new URLSearchParams(search)), new Map([['a1', 'eu-agent']]))

describe('health params', () => {
  it('applies the spec defaults and ignores bad values', () => {
    const params = parseHealthParams(new URLSearchParams('layout=weird&timeRange=7x&sortBy=drop&page=-3&pageSize=7'))
    expect(params).toMatchObject({ layout: 'table', timeRange: '1h', groupBy: 'canary_name', tabBy: 'namespace', hidePassing: true, sortBy: null, page: 1, pageSize: 50 })
    expect(parseHealthParams(new URLSearchParams('hidePassing=false')).hidePassing).toBe(false)
  })

  it('keeps good values as given', () => {
    const id = '0190F0F0-0000-7000-8000-00000000BEEF'
    const params = parseHealthParams(
      new URLSearchParams(`checkId=${id}&layout=card&timeRange=1w&sortBy=latency&sortDesc=true&page=4&pageSize=100&groupBy=&expanded=a,,b&pivotBy=label`),
    )
    expect(params).toMatchObject({ checkId: id.toLowerCase(), layout: 'card', timeRange: '1w', sortBy: 'latency', sortDesc: true, page: 4, pageSize: 100 })
    expect(params).toMatchObject({ groupBy: 'canary_name', expanded: ['a', 'b'], pivot: { pivotBy: 'label', pivotLabel: null, pivotCellType: null } })
    expect(parseHealthParams(new URLSearchParams('checkId=not-a-uuid&page=0&query=' + 'x'.repeat(300)))).toMatchObject({ checkId: null, page: 1, query: 'x'.repeat(200) })
  })

  it('ignores __proto__ and constructor in labels', () => {
    const params = parseHealthParams(new URLSearchParams({ labels: '{"__proto__":1,"constructor":-1,"canary:team:web":1}' }))
    expect(Object.keys(params.labels)).toEqual(['canary:team:web'])
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(activeFilterCount(params)).toBe(2)
  })
})

describe('health pipeline', () => {
  it('hides passing checks by default and groups by canary name', () => {
    const result = view('')
    expect(result.totalChecks).toBe(2)
    expect(result.rows.map((row) => row.name)).toEqual(['pay', 'web'])
  })

  it('searches description, canary name and name case-insensitively', () => {
    expect(view('hidePassing=false&groupBy=no_grouping&query=SHOP').rows.map((row) => row.name)).toEqual(['Gamma'])
    expect(view('hidePassing=false&groupBy=no_grouping&query=pay').totalChecks).toBe(2)
  })

  it('includes and excludes labels', () => {
    const include = encodeURIComponent(JSON.stringify({ [labelFilterId('team', 'payments')]: 1 }))
    expect(view(`hidePassing=false&groupBy=no_grouping&labels=${include}`).rows.map((row) => row.name)).toEqual(['alpha', 'beta'])
    const exclude = encodeURIComponent(JSON.stringify({ [labelFilterId('team', 'payments')]: -1 }))
    expect(view(`hidePassing=false&groupBy=no_grouping&labels=${exclude}`).rows.map((row) => row.name)).toEqual(['delta', 'Gamma'])
  })

  it("builds tabs with 'All' first, 'none' for no namespace, and agent names", () => {
    expect(view('hidePassing=false').tabs.map((tab) => tab.label)).toEqual(['All', 'default', 'none', 'payments'])
    expect(view('hidePassing=false&tabBy=agent_id').tabs.map((tab) => tab.label)).toEqual(['All', 'eu-agent', 'local'])
    expect(view('hidePassing=false&groupBy=no_grouping&tab=payments').rows.map((row) => row.name)).toEqual(['alpha', 'beta'])
  })

  it('sorts by name by default and by a column with desc', () => {
    expect(view('hidePassing=false&groupBy=no_grouping').rows.map((row) => row.name)).toEqual(['alpha', 'beta', 'delta', 'Gamma'])
    expect(view('hidePassing=false&groupBy=no_grouping&sortBy=latency&sortDesc=true').rows[0]!.name).toBe('alpha')
    expect(view('hidePassing=false&groupBy=no_grouping&sortBy=health').rows.map((row) => row.status)).toEqual(['unhealthy', 'unhealthy', 'healthy', 'healthy'])
  })

  it('aggregates group rows: good, mixed, bad and passing children', () => {
    const rows = view('hidePassing=false&expanded=web')
    const pay = rows.rows.find((row) => row.name === 'pay')!
    const web = rows.rows.find((row) => row.name === 'web')!
    expect(pay).toMatchObject({ kind: 'group', status: 'mixed', childCount: 2, passingChildren: 1, expanded: false, children: [] })
    expect(web).toMatchObject({ kind: 'group', status: 'mixed', expanded: true })
    expect(web.kind === 'group' && web.children.map((child) => child.name)).toEqual(['delta', 'Gamma'])
    const bad = buildHealthView([CHECKS[0]!, CHECKS[3]!], parseHealthParams(new URLSearchParams('groupBy=type')))
    expect(bad.rows[0]).toMatchObject({ status: 'bad' })
  })

  it('shows latency p95, else p97, else p99', () => {
    const rows = view('hidePassing=false&groupBy=no_grouping').rows
    expect(rows.find((row) => row.name === 'beta')!.latency).toBe(40)
    expect(rows.find((row) => row.name === 'alpha')!.latency).toBe(2500)
  })

  it('pages the rows', () => {
    const many = Array.from({ length: 120 }, (_, i) => check(`c${String(i).padStart(3, '0')}`, { status: 'unhealthy' }))
    const result = buildHealthView(many, parseHealthParams(new URLSearchParams('groupBy=no_grouping&page=3')))
    expect(result).toMatchObject({ pageCount: 3, page: 3, totalRows: 120 })
    expect(result.rows).toHaveLength(20)
    expect(result.rows[0]!.name).toBe('c100')
  })

  it('offers the spec group-by and tab-by options plus label keys, and boolean labels as toggles', () => {
    expect(groupByOptions(CHECKS).map((option) => option.label)).toEqual(['No Grouping', 'Group Name', 'Name', 'Description', 'Type', 'critical', 'team'])
    expect(tabByOptions(CHECKS).map((option) => option.value)).toEqual(['namespace', 'agent_id', 'label:critical', 'label:team'])
    expect(labelOptions(CHECKS)).toEqual([
      { key: 'critical', values: ['false', 'true'], boolean: true },
      { key: 'team', values: ['payments', 'web'], boolean: false },
    ])
  })

  it('shows time-ago only inside the spec windows', () => {
    const now = new Date('2026-08-21T12:00:00Z')
    expect(showRuntimeAge('2026-08-21T11:30:00Z', now)).toBe(false)
    expect(showRuntimeAge('2026-08-21T10:00:00Z', now)).toBe(true)
    expect(showRuntimeAge('2026-08-10T10:00:00Z', now)).toBe(false)
    expect(showTransitionAge('2026-08-15T10:00:00Z', now)).toBe(true)
    expect(showTransitionAge('2026-08-01T10:00:00Z', now)).toBe(false)
  })
})

describe('check detail rules', () => {
  it('accepts only ms and s durations, converting seconds', () => {
    expect(parseDurationFilter('250ms')).toEqual({ ok: true, ms: 250 })
    expect(parseDurationFilter('1.5s')).toEqual({ ok: true, ms: 1500 })
    expect(parseDurationFilter('5m')).toEqual({ ok: false, error: 'duration is allowed only in milli seconds & seconds' })
    expect(parseDurationFilter('')).toEqual({ ok: true, ms: null })
  })

  it('reads the history filters and page, falling back on bad values', () => {
    const detail = parseDetailParams(new URLSearchParams('checkTab=history&historyStatus=unhealthy&historyDuration=2s&historyPage=3'))
    expect(detail).toMatchObject({ tab: 'history', status: 'unhealthy', durationMs: 2000, durationError: null, page: 3 })
    const bad = parseDetailParams(new URLSearchParams('checkTab=nope&historyStatus=maybe&historyDuration=5m&historyPage=-2'))
    expect(bad).toMatchObject({ tab: 'history', status: 'all', durationMs: null, durationError: DURATION_FILTER_ERROR, page: 1 })
  })

  it('shows Run Now to admin, editor, responder and commander only', () => {
    expect(canRunNow(['viewer', 'editor'])).toBe(true)
    expect(canRunNow(['commander'])).toBe(true)
    expect(canRunNow(['viewer', 'guest'])).toBe(false)
  })

  it('reads the refresh-rate setting', () => {
    expect(parseRefreshRate('30s')).toBe(30_000)
    expect(parseRefreshRate('2m')).toBe(120_000)
    expect(parseRefreshRate('1w')).toBe(604_800_000)
    expect(parseRefreshRate('0')).toBe(0)
    expect(parseRefreshRate('soon')).toBe(0)
  })

  it('thins graphs to at most 300 points', () => {
    const points = Array.from({ length: 1000 }, (_, i) => ({ time: new Date(i * 60_000).toISOString(), status: i !== 5, duration: 10, passed: 1 }))
    const thin = thinGraph(points)
    expect(thin).toHaveLength(300)
    expect(thin[1]!.status).toBe(false)
    expect(thin.reduce((sum, point) => sum + (point.passed ?? 0), 0)).toBe(1000)
  })
})
