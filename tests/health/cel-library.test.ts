import { describe, expect, it } from 'vitest'
import { evaluateCel, ExpressionError } from '#server/backend/health/expressions.ts'
import { evaluatePlaybookCel } from '#server/backend/playbooks/playbook-template.ts'
import type { PlaybookTemplateEnv } from '#server/backend/playbooks/playbook-model.ts'

const playbookEnv: PlaybookTemplateEnv = { params: { version: '1.4.2' }, env: {}, playbook: { name: 'p', namespace: 'default' }, run: { id: 'r' }, actions: [], secrets: [] }

describe('the shared CEL library (resource-specs §0.6 extras)', () => {
  it('formats sizes and durations and compares versions against constraints', () => {
    expect(evaluateCel('HumanSize(2048)', {})).toBe('2.0KiB')
    expect(evaluateCel('HumanDuration(90000000000)', {})).toBe(evaluateCel('HumanDuration(d)', { d: 90_000_000_000 }))
    expect(evaluateCel('Duration("7d") == Duration("168h")', {})).toBe(true)
    expect(evaluateCel('SemverCompare("v1.2.3", ">=1.2.0 <2")', {})).toBe(true)
    expect(evaluateCel('SemverCompare("1.2.3", "<1.0")', {})).toBe(false)
    expect(evaluateCel('SemverCompare("2.0.0-rc.1", ">=2.0.0-0")', {})).toBe(true)
  })

  it('has uuid, crypto, time and k8s functions', () => {
    expect(evaluateCel('uuid.IsValid(uuid.V4()) && !uuid.IsValid("nope")', {})).toBe(true)
    expect(evaluateCel('crypto.SHA256("a")', {})).toBe('ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb')
    expect(evaluateCel('crypto.SHA1("a")', {})).toBe('86f7e437faa5a7fce15d1ddcb9eaeaea377667b8')
    expect(evaluateCel('time.Now() > timestamp("2020-01-01T00:00:00Z")', {})).toBe(true)
    expect(evaluateCel('time.InTimeRange(timestamp("2026-01-01T06:30:00Z"), "06:00", "07:00")', {})).toBe(true)
    expect(evaluateCel('time.InTimeRange(timestamp("2026-01-01T23:30:00Z"), "22:00", "02:00")', {})).toBe(true)
    expect(evaluateCel('time.InTimeRange(timestamp("2026-01-01T12:00:00Z"), "22:00", "02:00")', {})).toBe(false)
    expect(evaluateCel('time.Parse("2006-01-02", "2026-03-04") == timestamp("2026-03-04T00:00:00Z")', {})).toBe(true)
    // Go layouts: offsets, fractions, month names, 12-hour clocks, literal letters.
    const parsed = (layout: string, value: string) => (evaluateCel(`time.Parse("${layout}", "${value}")`, {}) as Date).toISOString()
    expect(parsed('2006-01-02T15:04:05Z07:00', '2026-03-04T10:20:30+02:00')).toBe('2026-03-04T08:20:30.000Z')
    expect(parsed('2006-01-02 15:04:05.000 -0700', '2026-03-04 10:20:30.125 -0130')).toBe('2026-03-04T11:50:30.125Z')
    expect(parsed('02 Jan 06 3:04PM', '04 Mar 26 9:05AM')).toBe('2026-03-04T09:05:00.000Z')
    expect(parsed('02 Jan 06', '04 Mar 70')).toBe('1970-03-04T00:00:00.000Z')
    expect(parsed('Monday, January 2, 2006 at 15h04', 'Wednesday, March 4, 2026 at 10h20')).toBe('2026-03-04T10:20:00.000Z')
    expect(() => evaluateCel('time.Parse("2006-01-02", "04/03/2026")', {})).toThrow('does not match the layout')
    expect(() => evaluateCel('time.Parse("2006-01-02 MST", "2026-03-04 UTC")', {})).toThrow('zone abbreviations')
    expect(typeof evaluateCel('time.ZoneName()', {})).toBe('string')
    expect(evaluateCel('k8s.isHealthy(pod)', { pod: { status: { phase: 'Running' } } })).toBe(true)
    expect(evaluateCel('k8s.isHealthy(d)', { d: { spec: { replicas: 3 }, status: { conditions: [{ type: 'Available', status: 'False' }] } } })).toBe(false)
    expect(evaluateCel('k8s.isHealthy(d)', { d: { spec: { replicas: 3 }, status: { readyReplicas: 3 } } })).toBe(true)
    expect(() => evaluateCel('time.InTimeRange(time.Now(), "25:00", "07:00")', {})).toThrow(ExpressionError)
    // A check's own variable of one of these names is read as the variable.
    expect(evaluateCel('time == "noon"', { time: 'noon' })).toBe(true)
  })

  it('reads optional fields with .? and orValue, in checks and in playbooks', () => {
    expect(evaluateCel("check.labels.?critical.orValue('') == 'true'", { check: { labels: {} } })).toBe(false)
    expect(evaluateCel("check.labels.?critical.orValue('') == 'true'", { check: { labels: { critical: 'true' } } })).toBe(true)
    expect(evaluatePlaybookCel("params.?missing.orValue('fallback')", playbookEnv)).toBe('fallback')
  })

  it('serialises with toJSON in both forms', () => {
    expect(evaluateCel('{"a": 1}.toJSON()', {})).toBe('{"a":1}')
    expect(evaluateCel('toJSON([1, 2])', {})).toBe('[1,2]')
  })

  it('is the library of playbook CEL too', () => {
    expect(evaluatePlaybookCel('SemverCompare(params.version, "^1.4") && uuid.IsValid(uuid.V4())', playbookEnv)).toBe(true)
    expect(evaluatePlaybookCel('toJSON(params)', playbookEnv)).toBe('{"version":"1.4.2"}')
  })
})
