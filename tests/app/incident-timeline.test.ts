import { describe, expect, it } from 'vitest'
import { buildTimeline, type HistorySource } from '#app/lib/incident-detail.ts'

/** The incident timeline names who did what for every event kind, and misses no comment. */

const kavya = { name: 'Kavya Rahman' }
const hypothesis = { title: 'Payment provider rejects requests', type: 'root' }
const check = { type: 'check', description: 'refunds-api-health is unhealthy', check: { name: 'refunds-api-health' }, config: null, component: null }
let clock = 0
const at = () => `2026-11-21T16:${String(clock++).padStart(2, '0')}:00+00:00`

function event(type: string, extra: Partial<HistorySource> = {}): HistorySource {
  return { id: `h-${type}-${clock}`, type, description: null, created_at: at(), created_by: kavya, ...extra }
}

describe('incident timeline', () => {
  it('says who and what for every event kind', () => {
    const history = [
      event('incident.created', { description: 'INC-7' }),
      event('responder.created', { responder: { type: 'email', person: null, team: { name: 'Payments' } } }),
      event('responder.created', { responder: { type: 'person', person: { name: 'Ola Berg' }, team: null } }),
      event('hypothesis.created', { description: 'possible', hypothesis }),
      event('hypothesis.status_updated', { description: 'likely', hypothesis }),
      event('evidence.created', { hypothesis, evidence: check }),
      event('evidence.done_definition_added', { hypothesis, evidence: check }),
      event('responder.commented', { comment_id: 'c-1', comment: { comment: 'Credentials rotated.' } }),
      event('incident.status_updated', { description: 'resolved' }),
    ]
    const lines = buildTimeline(history, [{ id: 'c-1', comment: 'Credentials rotated.', created_at: history[7]!.created_at, created_by: kavya }]).map(
      (entry) => `${entry.actor} ${entry.text}${entry.quote !== null ? ` ${entry.quote}` : ''}`,
    )
    expect(lines).toEqual([
      'Kavya Rahman created the incident INC-7',
      'Kavya Rahman added Payments as a responder',
      'Kavya Rahman added Ola Berg as a responder',
      'Kavya Rahman added the root hypothesis “Payment provider rejects requests”',
      'Kavya Rahman marked the hypothesis “Payment provider rejects requests” as Likely',
      'Kavya Rahman added the check refunds-api-health as evidence to “Payment provider rejects requests”',
      'Kavya Rahman added the check refunds-api-health to the definition of done of “Payment provider rejects requests”',
      'Kavya Rahman commented: Credentials rotated.',
      'Kavya Rahman changed the status to Resolved',
    ])
  })

  it('adds comments by people who are not responders, in time order', () => {
    const created = event('incident.created', { description: 'INC-8', created_at: '2026-11-22T09:00:00+00:00' })
    const later = event('incident.status_updated', { description: 'mitigated', created_at: '2026-11-22T09:05:00+00:00' })
    const comment = { id: 'c-2', comment: 'Looking into it', created_at: '2026-11-22T09:01:00+00:00', created_by: { name: 'Ola Berg' } }
    const entries = buildTimeline([created, later], [comment])
    expect(entries.map((entry) => entry.type)).toEqual(['incident.created', 'comment', 'incident.status_updated'])
    expect(entries[1]).toMatchObject({ actor: 'Ola Berg', text: 'commented:', quote: 'Looking into it' })
  })

  it('still reads when the pointed-at rows are gone', () => {
    const [entry] = buildTimeline([event('evidence.created', { evidence: null, hypothesis: null, created_by: null })], [])
    expect(`${entry!.actor} ${entry!.text}`).toBe('Someone added evidence to a hypothesis')
  })
})
