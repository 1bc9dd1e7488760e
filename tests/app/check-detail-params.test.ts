import { describe, expect, it } from 'vitest'
import { DURATION_FILTER_ERROR } from '#app/components/health/check-detail-model.ts'
import { parseDetailParams, parseRunNow } from '#app/components/health/health-params.ts'
import { nextRunOf, type ScheduledCanary } from '#contract/canary/next-run.ts'

const parse = (query: string) => parseDetailParams(new URLSearchParams(query))

describe('the check panel search parameters (one schema, defaults on bad values)', () => {
  it('reads a preset, a custom value and the no-JS form of a custom value alike', () => {
    expect(parse('historyDuration=1s')).toMatchObject({ duration: '1s', durationIsPreset: true, durationMs: 1000, durationError: null })
    expect(parse('historyDuration=250ms')).toMatchObject({ duration: '250ms', durationIsPreset: false, durationMs: 250 })
    expect(parse('historyDuration=custom&historyDurationCustom=1.5s')).toMatchObject({ duration: '1.5s', durationIsPreset: false, durationMs: 1500 })
    expect(parse('historyDuration=')).toMatchObject({ duration: '', durationIsPreset: true, durationMs: null })
  })

  it('falls back to defaults on bad or repeated values and refuses minutes with the spec text', () => {
    expect(parse('checkTab=__proto__&historyStatus=maybe&historyPage=0')).toEqual({
      tab: 'history',
      status: 'all',
      duration: '',
      durationIsPreset: true,
      durationMs: null,
      durationError: null,
      page: 1,
    })
    expect(parse('historyPage=9999999&checkTab=spec')).toMatchObject({ page: 1, tab: 'spec' })
    expect(parse('historyPage=12&historyStatus=unhealthy')).toMatchObject({ page: 12, status: 'unhealthy' })
    expect(parse('historyDuration=custom&historyDurationCustom=5m')).toMatchObject({ durationMs: null, durationError: DURATION_FILTER_ERROR })
    expect(parse(`historyDuration=${'9'.repeat(100)}ms`).duration).toHaveLength(32)
  })
})

const NOW = new Date('2026-11-24T12:00:00Z')
const canary = (overrides: Partial<ScheduledCanary> = {}): ScheduledCanary => ({
  id: '0193a0c4-0000-7000-8000-000000000001',
  source: 'UI',
  agent_id: '00000000-0000-0000-0000-000000000000',
  deleted_at: null,
  annotations: null,
  spec: { schedule: '@every 5m' },
  ...overrides,
})
const check = (overrides: Partial<{ next_runtime: string | null; last_runtime: string | null; deleted_at: string | null }> = {}) => ({
  next_runtime: null,
  last_runtime: null,
  deleted_at: null,
  ...overrides,
})

describe('next run of a check (never in the past)', () => {
  it('is the engine-recorded time while it lies ahead, and "due" once it has passed', () => {
    expect(nextRunOf(check({ next_runtime: '2026-11-24T12:03:00Z' }), canary(), NOW)).toEqual({ kind: 'at', at: '2026-11-24T12:03:00.000Z' })
    expect(nextRunOf(check({ next_runtime: '2026-11-24T11:00:00Z' }), canary(), NOW)).toEqual({ kind: 'due' })
    expect(nextRunOf(check({ next_runtime: '2026-11-24T12:00:00.500Z' }), canary(), NOW)).toEqual({ kind: 'due' })
  })

  it('without a recorded time: the first tick after the last run (the @every grid, cron by croner), or due', () => {
    const every = nextRunOf(check({ last_runtime: '2026-11-24T11:58:00Z' }), canary(), NOW)
    expect(every.kind).toBe('at')
    const at = Date.parse((every as { at: string }).at)
    expect(at).toBeGreaterThan(NOW.getTime())
    expect(at).toBeLessThanOrEqual(Date.parse('2026-11-24T11:58:00Z') + 5 * 60_000)
    const hourly = canary({ spec: { schedule: '0 * * * *' } })
    expect(nextRunOf(check({ last_runtime: '2026-11-24T11:00:02Z' }), hourly, new Date('2026-11-24T11:10:00Z'))).toEqual({ kind: 'at', at: '2026-11-24T12:00:00.000Z' })
    expect(nextRunOf(check({ last_runtime: '2026-11-24T11:00:02Z' }), hourly, NOW)).toEqual({ kind: 'due' })
    expect(nextRunOf(check({ last_runtime: '2026-11-24T09:00:00Z' }), canary(), NOW)).toEqual({ kind: 'due' })
    expect(nextRunOf(check(), canary(), NOW)).toEqual({ kind: 'due' })
    // The deprecated interval (seconds) is a schedule too.
    expect(nextRunOf(check({ last_runtime: '2026-11-24T11:59:50Z' }), canary({ spec: { interval: 3600 } }), NOW).kind).toBe('at')
  })

  it('is "not scheduled" for checks nothing here runs', () => {
    const recorded = check({ next_runtime: '2026-11-24T12:03:00Z' })
    expect(nextRunOf(recorded, null, NOW)).toEqual({ kind: 'not-scheduled' })
    expect(nextRunOf(recorded, canary({ source: 'Demo' }), NOW)).toEqual({ kind: 'not-scheduled' })
    expect(nextRunOf(recorded, canary({ agent_id: '0193a0c4-0000-7000-8000-00000000aaaa' }), NOW)).toEqual({ kind: 'not-scheduled' })
    expect(nextRunOf(recorded, canary({ deleted_at: '2026-11-01T00:00:00Z' }), NOW)).toEqual({ kind: 'not-scheduled' })
    expect(nextRunOf(recorded, canary({ annotations: { suspend: 'true' } }), NOW)).toEqual({ kind: 'not-scheduled' })
    expect(nextRunOf(recorded, canary({ spec: { schedule: '@never' } }), NOW)).toEqual({ kind: 'not-scheduled' })
    expect(nextRunOf(recorded, canary({ spec: { schedule: 'not a cron' } }), NOW)).toEqual({ kind: 'not-scheduled' })
    expect(nextRunOf(recorded, canary({ spec: {} }), NOW)).toEqual({ kind: 'not-scheduled' })
    expect(nextRunOf(check({ ...recorded, deleted_at: '2026-11-01T00:00:00Z' }), canary(), NOW)).toEqual({ kind: 'not-scheduled' })
  })
})

describe('Run Now post', () => {
  const form = (entries: Record<string, string>) => {
    const data = new FormData()
    for (const [key, value] of Object.entries(entries)) data.set(key, value)
    return data
  }

  it('takes the run-now intent with a check UUID', () => {
    expect(parseRunNow(form({ intent: 'run-now', checkId: '0190F0F0-0000-7000-8000-00000000BEEF' }))).toEqual({ ok: true, checkId: '0190F0F0-0000-7000-8000-00000000BEEF' })
  })

  it('refuses another intent and a missing or malformed check id with the panel messages', () => {
    expect(parseRunNow(form({ intent: 'delete', checkId: '0190f0f0-0000-7000-8000-00000000beef' }))).toEqual({ ok: false, message: 'Unknown action' })
    expect(parseRunNow(form({ intent: 'run-now' }))).toEqual({ ok: false, message: 'A check id is required' })
    expect(parseRunNow(form({ intent: 'run-now', checkId: '------------------------------------' }))).toEqual({ ok: false, message: 'A check id is required' })
  })
})
