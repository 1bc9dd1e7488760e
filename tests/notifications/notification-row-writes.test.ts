import request from 'supertest'
import { describe, expect, it } from 'vitest'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { bearer } from '#tests/support/test-app.ts'

/**
 * Rules written straight through the data API (`/api/db/notifications`, data-model §8.1) are
 * checked like the rule editor's and `lookout apply`'s: events of the reference, a CEL filter
 * that parses, recipients that name a channel, durations in nanoseconds; a bad row answers 400
 * naming the column and nothing is stored.
 */
describe('/api/db/notifications writes', () => {
  const testApp = useTestApp()
  const post = (row: Record<string, unknown>) =>
    request(testApp.app).post('/api/db/notifications').set({ ...bearer, Prefer: 'return=representation' }).send(row)
  const stored = async (name: string) => (await testApp.db.query('SELECT 1 FROM notifications WHERE name = $1', [name])).rows.length

  it('stores a valid rule', async () => {
    const response = await post({
      name: 'row-ok',
      namespace: 'default',
      events: ['check.failed'],
      filter: "check.?labels.team.orValue('') == 'ops'",
      custom_services: [{ url: 'generic+http://127.0.0.1:9/hook', filter: "check.name != ''" }],
      wait_for: 60_000_000_000,
      repeat_interval: '1h',
    })
    expect(response.status, response.text).toBe(201)
    expect(await stored('row-ok')).toBe(1)
  })

  it.each([
    ['an event the reference does not have', { events: ['check.exploded'] }, 'events.0: "check.exploded" is not an event of the reference'],
    ['no events', { events: [] }, 'events: needs at least one event'],
    ['missing events', {}, 'events: is required'],
    ['a filter that is not CEL', { events: ['check.failed'], filter: 'check.name ==' }, 'filter: is not a valid CEL expression'],
    ['a channel with nothing to send to', { events: ['check.failed'], custom_services: [{ name: 'nowhere' }] }, 'custom_services.0: names no url, connection, email or webhook'],
    ['a channel filter that is not CEL', { events: ['check.failed'], custom_services: [{ url: 'ntfy://x/y', filter: '((' }] }, 'custom_services.0.filter: is not a valid CEL expression'],
    ['a negative wait', { events: ['check.failed'], wait_for: -1 }, 'wait_for: must not be negative'],
    ['a repeat interval that is no duration', { events: ['check.failed'], repeat_interval: 'often' }, 'repeat_interval: must be a duration'],
    ['a person that is no UUID', { events: ['check.failed'], person_id: 'alice' }, 'person_id: must be a UUID'],
  ])('refuses %s with 400 naming the column', async (_label, fields, message) => {
    const name = `row-bad-${Math.random().toString(36).slice(2, 8)}`
    const response = await post({ name, ...fields })
    expect(response.status, response.text).toBe(400)
    expect((response.body as { message: string }).message).toContain(message)
    expect(await stored(name)).toBe(0)
  })

  it('checks what a PATCH carries, and lets a soft delete through', async () => {
    await post({ name: 'row-patched', events: ['config.unhealthy'] })
    const patch = (row: Record<string, unknown>) => request(testApp.app).patch('/api/db/notifications?name=eq.row-patched').set(bearer).send(row)
    const refused = await patch({ filter: 'config.name ==' })
    expect(refused.status, refused.text).toBe(400)
    expect((await patch({ title: 'Config {{.config.name}} is unhealthy' })).status).toBe(204)
    expect((await patch({ deleted_at: new Date().toISOString() })).status).toBe(204)
  })
})
