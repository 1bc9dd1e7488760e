import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import pino from 'pino'
import { SMTPServer } from 'smtp-server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPostgresDb, type Db } from '#server/db/client.ts'
import { createEventConsumer } from '#server/backend/events/event-consumer.ts'
import { createNotificationDispatcher } from '#server/backend/notifications/notification-dispatcher.ts'
import { createNotificationHandlers } from '#server/backend/notifications/notification-matching.ts'
import { createTestDb, TEST_ENGINE, type TestDb } from '#tests/support/test-db.ts'

/** The notification pipeline (resource-specs §3.1, §3.2): queue event → rule → send history → a real HTTP delivery. */

const logger = pino({ level: 'silent' })
const MS = 1_000_000

type Received = { path: string; method: string; headers: Record<string, string | string[] | undefined>; title: string; message: string; body: Record<string, unknown> }
type Mail = { to: string[]; raw: string }

/** A loopback webhook receiver: answers each path with the next status of its script (then 200). */
async function startReceiver(): Promise<{ server: Server; port: number; received: Received[]; script: Map<string, number[]> }> {
  const received: Received[] = []
  const script = new Map<string, number[]>()
  const server = createServer((req, res) => {
    let text = ''
    req.on('data', (chunk: Buffer) => (text += chunk.toString()))
    req.on('end', () => {
      const path = req.url ?? ''
      const body = JSON.parse(text || '{}') as Record<string, unknown>
      received.push({ path, method: req.method ?? '', headers: req.headers, title: String(body.title ?? ''), message: String(body.message ?? ''), body })
      const status = script.get(path)?.shift() ?? 200
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'broken')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, port: (server.address() as AddressInfo).port, received, script }
}

/** A loopback SMTP server without TLS or auth, recording each mail's recipients and text. */
async function startSmtp(): Promise<{ server: SMTPServer; port: number; mails: Mail[] }> {
  const mails: Mail[] = []
  const server = new SMTPServer({
    logger: false,
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((rcpt) => rcpt.address), raw: Buffer.concat(chunks).toString('utf8') })
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, port: (server.server.address() as AddressInfo).port, mails }
}

async function waitUntil<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

describe('notification delivery pipeline', () => {
  let testDb: TestDb
  let db: Db
  let receiver: Awaited<ReturnType<typeof startReceiver>>
  let smtp: Awaited<ReturnType<typeof startSmtp>>
  const hook = (name: string) => `generic+http://127.0.0.1:${receiver.port}/hook/${name}`
  const at = (name: string) => receiver.received.filter((entry) => entry.path === `/hook/${name}`)

  const consumer = () => createEventConsumer({ db, logger, backoffBaseMs: 0, handlers: createNotificationHandlers(db, logger) })
  const dispatcher = (retryBaseMs = 50) =>
    createNotificationDispatcher({ db, logger, retryBaseMs, leaseMs: 5_000, smtpUrl: `smtp://127.0.0.1:${smtp.port}/?encryption=None&auth=None`, mailFrom: 'Lookout <alerts@lookout.test>' })
  /** Matches the queued events, then delivers what is due. */
  const pump = async () => {
    await consumer().drain()
    await dispatcher().runOnce()
  }

  beforeAll(async () => {
    testDb = await createTestDb()
    db = testDb.db
    receiver = await startReceiver()
    smtp = await startSmtp()
  })
  afterAll(async () => {
    receiver?.server.close()
    await new Promise<void>((resolve) => (smtp ? smtp.server.close(() => resolve()) : resolve()))
    await testDb?.drop()
  })

  async function insertCheck(name: string): Promise<{ id: string; canary: string }> {
    const canary = (await db.query<{ id: string }>(`INSERT INTO canaries (name, namespace, spec) VALUES ($1, 'default', '{}') RETURNING id`, [`${name}-canary`])).rows[0]!.id
    const id = (await db.query<{ id: string }>(`INSERT INTO checks (canary_id, type, name, status) VALUES ($1, 'http', $2, 'healthy') RETURNING id`, [canary, name])).rows[0]!.id
    await db.query(`INSERT INTO checks_unlogged (check_id, canary_id, status) VALUES ($1, $2, 'healthy')`, [id, canary])
    return { id, canary }
  }
  const setCheck = (id: string, status: 'healthy' | 'unhealthy') => db.query('UPDATE checks_unlogged SET status = $2 WHERE check_id = $1', [id, status])

  async function insertRule(name: string, fields: Record<string, unknown>): Promise<string> {
    const columns = ['name', ...Object.keys(fields)]
    const values = [name, ...Object.values(fields).map((value) => (value !== null && typeof value === 'object' && !Array.isArray(value)) || (Array.isArray(value) && typeof value[0] === 'object') ? JSON.stringify(value) : value)]
    const { rows } = await db.query<{ id: string }>(
      `INSERT INTO notifications (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING id`,
      values,
    )
    return rows[0]!.id
  }
  const historyOf = async (ruleId: string) =>
    (
      await db.query<{ status: string; error: string | null; retries: number; count: number; body: string | null; silenced_by: string | null; parent_id: string | null; resource_id: string }>(
        'SELECT status, error, retries, count, body, silenced_by, parent_id, resource_id FROM notification_send_history WHERE notification_id = $1 ORDER BY created_at, id',
        [ruleId],
      )
    ).rows
  const ruleError = async (ruleId: string) => (await db.query<{ error: string | null }>('SELECT error FROM notifications WHERE id = $1', [ruleId])).rows[0]!.error

  it("a failing check delivers the rule's message once, with the per-event default title", async () => {
    const check = await insertCheck('pay-api')
    const rule = await insertRule('failing-pay', { events: ['check.failed'], filter: "check.name == 'pay-api'", custom_services: [{ name: 'hook', url: hook('once') }] })
    await setCheck(check.id, 'unhealthy')
    await pump()
    await pump()
    expect(at('once')).toHaveLength(1)
    expect(at('once')[0]!.title).toBe('Check pay-api has failed')
    expect(at('once')[0]!.message).toContain('Status: unhealthy')
    const history = await historyOf(rule)
    expect(history).toMatchObject([{ status: 'sent', error: null, resource_id: check.id }])
    expect(history[0]!.body).toContain('Check: pay-api (http)')
  })

  it('a filter that is false writes nothing and sends nothing', async () => {
    const check = await insertCheck('quiet-api')
    const rule = await insertRule('never', { events: ['check.failed'], filter: "check.name == 'quiet-api' && check.type == 'tcp'", custom_services: [{ url: hook('never') }] })
    await setCheck(check.id, 'unhealthy')
    await pump()
    expect(await historyOf(rule)).toHaveLength(0)
    expect(at('never')).toHaveLength(0)
  })

  it('repeatInterval: a second failure within the interval is recorded as repeat-interval, not sent', async () => {
    const check = await insertCheck('flappy-api')
    const rule = await insertRule('repeat', {
      events: ['check.failed'],
      filter: "check.name == 'flappy-api'",
      title: '{{.check.name}} is down',
      repeat_interval: '1h',
      custom_services: [{ url: hook('repeat') }],
    })
    await setCheck(check.id, 'unhealthy')
    await pump()
    await setCheck(check.id, 'healthy')
    await pump()
    await setCheck(check.id, 'unhealthy')
    await pump()
    expect(at('repeat').map((entry) => entry.title)).toEqual(['flappy-api is down'])
    expect((await historyOf(rule)).map((row) => row.status)).toEqual(['sent', 'repeat-interval'])
  })

  it('an active silence on the check records silenced (with the silence) and sends nothing; an expired one does not', async () => {
    const check = await insertCheck('silenced-api')
    const other = await insertCheck('expired-silence-api')
    const rule = await insertRule('silenced', { events: ['check.failed'], filter: "check.name.endsWith('silence-api') || check.name == 'silenced-api'", custom_services: [{ url: hook('silenced') }] })
    const silence = (await db.query<{ id: string }>(`INSERT INTO notification_silences (check_id, "from", until) VALUES ($1, now() - interval '1 minute', NULL) RETURNING id`, [check.id])).rows[0]!.id
    await db.query(`INSERT INTO notification_silences (check_id, "from", until) VALUES ($1, now() - interval '2 hours', now() - interval '1 hour')`, [other.id])
    await setCheck(check.id, 'unhealthy')
    await setCheck(other.id, 'unhealthy')
    await pump()
    const history = await historyOf(rule)
    expect(history.find((row) => row.resource_id === check.id)).toMatchObject({ status: 'silenced', silenced_by: silence })
    expect(history.find((row) => row.resource_id === other.id)).toMatchObject({ status: 'sent' })
    expect(at('silenced')).toHaveLength(1)
  })

  it('waitFor: a check that recovers within the delay is skipped; one still failing is sent after it', async () => {
    const recovers = await insertCheck('recovering-api')
    const stays = await insertCheck('still-down-api')
    const rule = await insertRule('wait', {
      events: ['check.failed'],
      filter: "check.name in ['recovering-api', 'still-down-api']",
      title: '{{.check.name}} still failing',
      wait_for: 300 * MS,
      custom_services: [{ url: hook('wait') }],
    })
    await setCheck(recovers.id, 'unhealthy')
    await setCheck(stays.id, 'unhealthy')
    await pump()
    expect((await historyOf(rule)).map((row) => row.status)).toEqual(['evaluating-waitfor', 'evaluating-waitfor'])
    await setCheck(recovers.id, 'healthy')
    const settled = await waitUntil('both waitFor rows to settle', async () => {
      await dispatcher().runOnce()
      const rows = await historyOf(rule)
      return rows.every((row) => row.status !== 'evaluating-waitfor') && rows
    })
    expect(settled.find((row) => row.resource_id === recovers.id)!.status).toBe('skipped')
    expect(settled.find((row) => row.resource_id === stays.id)!.status).toBe('sent')
    expect(at('wait').map((entry) => entry.title)).toEqual(['still-down-api still failing'])
  })

  it('inhibitions: a pod is not notified while its deployment was, by the same rule', async () => {
    const rule = await insertRule('inhibit', {
      events: ['config.unhealthy'],
      filter: "config.name.startsWith('checkout-')",
      inhibitions: [{ direction: 'incoming', from: 'Kubernetes::Pod', to: ['Kubernetes::Deployment'] }],
      custom_services: [{ url: hook('inhibit') }],
    })
    const deployment = (await db.query<{ id: string }>(`INSERT INTO config_items (name, type, config_class, health) VALUES ('checkout-deploy', 'Kubernetes::Deployment', 'Deployment', 'unhealthy') RETURNING id`)).rows[0]!.id
    await pump()
    const pod = (await db.query<{ id: string }>(`INSERT INTO config_items (name, type, config_class, health, parent_id) VALUES ('checkout-pod', 'Kubernetes::Pod', 'Pod', 'unhealthy', $1) RETURNING id`, [deployment])).rows[0]!.id
    await pump()
    const history = await historyOf(rule)
    const sentRow = history.find((row) => row.resource_id === deployment)
    expect(sentRow).toMatchObject({ status: 'sent' })
    expect(history.find((row) => row.resource_id === pod)).toMatchObject({ status: 'inhibited' })
    expect(at('inhibit').map((entry) => entry.title)).toEqual(['Kubernetes::Deployment checkout-deploy is unhealthy'])
  })

  it('fallback: a primary that refuses the message hands it to the fallback after fallback.delay', async () => {
    const check = await insertCheck('fallback-api')
    receiver.script.set('/hook/primary', [400])
    const rule = await insertRule('fallback', {
      events: ['check.failed'],
      filter: "check.name == 'fallback-api'",
      custom_services: [{ url: hook('primary') }],
      fallback_custom_services: [{ url: hook('fallback') }],
      // Long enough that the first pump cannot reach it on a loaded machine (the row would already be sent).
      fallback_delay: 2_000 * MS,
    })
    await setCheck(check.id, 'unhealthy')
    await pump()
    const [row] = await historyOf(rule)
    expect(row).toMatchObject({ status: 'attempting_fallback' })
    expect(row!.error).toContain('400')
    expect(await ruleError(rule)).toContain('400')
    await waitUntil('the fallback send', async () => {
      await dispatcher().runOnce()
      return (await historyOf(rule))[0]!.status === 'sent'
    })
    expect(at('primary')).toHaveLength(1)
    expect(at('fallback').map((entry) => entry.title)).toEqual(['Check fallback-api has failed'])
    expect(await ruleError(rule)).toBeNull()
  })

  it('a 500 is retried with backoff, then sent; the rule shows the error meanwhile', async () => {
    const check = await insertCheck('flaky-receiver-api')
    receiver.script.set('/hook/flaky', [500])
    const rule = await insertRule('flaky', { events: ['check.failed'], filter: "check.name == 'flaky-receiver-api'", custom_services: [{ url: hook('flaky') }] })
    await setCheck(check.id, 'unhealthy')
    await consumer().drain()
    await dispatcher(300).runOnce()
    const [first] = await historyOf(rule)
    // runOnce delivers what is due now; the retry may already have run when the backoff was short.
    if (first!.status === 'pending') {
      expect(first).toMatchObject({ retries: 1 })
      expect(first!.error).toContain('500')
      expect(await ruleError(rule)).toContain('500')
    }
    const done = await waitUntil('the retried send', async () => {
      await dispatcher().runOnce()
      const [row] = await historyOf(rule)
      return row!.status === 'sent' && row
    })
    expect(done).toMatchObject({ retries: 1, error: null })
    expect(at('flaky')).toHaveLength(2)
    expect(await ruleError(rule)).toBeNull()
  })

  it('recipients: a person and an address by e-mail, a team (members mailed, its spec notification posted), a webhook with method and headers', async () => {
    const check = await insertCheck('routing-api')
    const lead = (await db.query<{ id: string }>(`INSERT INTO people (name, email) VALUES ('Ada Lead', 'ada@lookout.test') RETURNING id`)).rows[0]!.id
    const member = (await db.query<{ id: string }>(`INSERT INTO people (name, email) VALUES ('Bo Member', 'bo@lookout.test') RETURNING id`)).rows[0]!.id
    const team = (await db.query<{ id: string }>(
      `INSERT INTO teams (name, created_by, spec) VALUES ('routing-team', $1, $2::jsonb) RETURNING id`,
      [lead, JSON.stringify({ notifications: [{ name: 'chat', url: hook('team-chat') }, { name: 'never', filter: 'false', url: hook('team-never') }] })],
    )).rows[0]!.id
    await db.query('INSERT INTO team_members (team_id, person_id) VALUES ($1, $2)', [team, member])
    const rule = await insertRule('routing', {
      events: ['check.failed'],
      filter: "check.name == 'routing-api'",
      title: 'Routed: {{.check.name}}',
      person_id: lead,
      team_id: team,
      custom_services: [{ name: 'oncall', email: 'oncall@lookout.test' }, { name: 'hook', webhook: { url: `http://127.0.0.1:${receiver.port}/hook/webhook`, method: 'PUT', headers: [{ name: 'X-Token', value: 'abc' }] }, properties: { severity: 'high' } }],
    })
    await setCheck(check.id, 'unhealthy')
    await pump()
    expect((await historyOf(rule)).map((row) => row.status)).toEqual(['sent', 'sent', 'sent', 'sent'])
    const recipients = smtp.mails.map((mail) => mail.to.join(',')).sort()
    expect(recipients).toEqual(['ada@lookout.test', 'bo@lookout.test', 'oncall@lookout.test'])
    expect(smtp.mails.every((mail) => mail.raw.includes('Routed: routing-api'))).toBe(true)
    expect(at('team-chat').map((entry) => entry.title)).toEqual(['Routed: routing-api'])
    expect(at('team-never')).toHaveLength(0)
    const [webhook] = at('webhook')
    expect(webhook).toMatchObject({ method: 'PUT', title: 'Routed: routing-api', body: expect.objectContaining({ severity: 'high' }) })
    expect(webhook!.headers['x-token']).toBe('abc')
  })

  it('a connection recipient resolves connection://namespace/name and fills its credentials into the URL', async () => {
    const check = await insertCheck('conn-api')
    await db.query(`INSERT INTO connections (name, namespace, type, url, password) VALUES ('team-hook', 'ops', 'generic_webhook', $1, 's3cret')`, [`${hook('conn')}?@X-Key=$(password)`])
    const rule = await insertRule('via-connection', { namespace: 'ops', events: ['check.failed'], filter: "check.name == 'conn-api'", custom_services: [{ connection: 'connection://ops/team-hook' }] })
    await setCheck(check.id, 'unhealthy')
    await pump()
    expect((await historyOf(rule)).map((row) => row.status)).toEqual(['sent'])
    expect(at('conn')[0]!.headers['x-key']).toBe('s3cret')
    // The send names the connection as its recipient (data-model §8: connection_id).
    const { rows } = await db.query<{ connection_id: string | null; id: string }>(
      `SELECT h.connection_id, c.id FROM notification_send_history h, connections c WHERE h.notification_id = $1 AND c.name = 'team-hook'`,
      [rule],
    )
    expect(rows[0]!.connection_id).toBe(rows[0]!.id)
  })

  it('a playbook recipient starts a run for the check and records pending_playbook_run', async () => {
    const check = await insertCheck('remediate-api')
    const playbook = (await db.query<{ id: string }>(`INSERT INTO playbooks (name, spec, source) VALUES ('restart-api', $1::jsonb, 'UI') RETURNING id`, [JSON.stringify({ actions: [{ name: 'go', exec: { script: 'echo hi' } }] })])).rows[0]!.id
    const rule = await insertRule('remediate', { events: ['check.failed'], filter: "check.name == 'remediate-api'", playbook_id: playbook })
    await setCheck(check.id, 'unhealthy')
    await pump()
    const { rows } = await db.query<{ status: string; playbook_run_id: string | null }>('SELECT status, playbook_run_id FROM notification_send_history WHERE notification_id = $1', [rule])
    expect(rows).toHaveLength(1)
    expect(rows[0]!.status).toBe('pending_playbook_run')
    const run = await db.query<{ check_id: string; playbook_id: string }>('SELECT check_id, playbook_id FROM playbook_runs WHERE id = $1', [rows[0]!.playbook_run_id])
    expect(run.rows[0]).toEqual({ check_id: check.id, playbook_id: playbook })
    // The run's end settles the dispatch.
    await db.query(`UPDATE playbook_runs SET status = 'completed', end_time = now() WHERE id = $1`, [rows[0]!.playbook_run_id])
    await dispatcher().runOnce()
    expect((await historyOf(rule))[0]!.status).toBe('sent')
  })

  it('groupBy: a second resource of the same group within the interval is grouped, not sent', async () => {
    const rule = await insertRule('grouped', {
      events: ['config.unhealthy'],
      filter: "config.name.startsWith('grp-')",
      group_by: ['tag:namespace'],
      group_by_interval: 3_600_000 * MS,
      custom_services: [{ url: hook('group') }],
    })
    const first = (await db.query<{ id: string }>(`INSERT INTO config_items (name, type, config_class, health, tags) VALUES ('grp-a', 'Kubernetes::Pod', 'Pod', 'unhealthy', '{"namespace":"shop"}') RETURNING id`)).rows[0]!.id
    await pump()
    const second = (await db.query<{ id: string }>(`INSERT INTO config_items (name, type, config_class, health, tags) VALUES ('grp-b', 'Kubernetes::Pod', 'Pod', 'unhealthy', '{"namespace":"shop"}') RETURNING id`)).rows[0]!.id
    const other = (await db.query<{ id: string }>(`INSERT INTO config_items (name, type, config_class, health, tags) VALUES ('grp-c', 'Kubernetes::Pod', 'Pod', 'unhealthy', '{"namespace":"billing"}') RETURNING id`)).rows[0]!.id
    await pump()
    const history = await historyOf(rule)
    const firstRow = history.find((row) => row.resource_id === first)!
    expect(firstRow.status).toBe('sent')
    expect(history.find((row) => row.resource_id === second)).toMatchObject({ status: 'grouped' })
    expect(history.find((row) => row.resource_id === other)).toMatchObject({ status: 'sent' })
    expect(at('group')).toHaveLength(2)
    const members = await db.query<{ groups: number; resources: number }>(
      'SELECT count(DISTINCT g.id)::int AS groups, count(*)::int AS resources FROM notification_group_resources r JOIN notification_groups g ON g.id = r.group_id WHERE g.notification_id = $1',
      [rule],
    )
    expect(members.rows[0]).toEqual({ groups: 2, resources: 3 })
  })

  it('restart: a row whose sender died is sent once its lease lapses; a live lease keeps it from everyone else', async () => {
    const check = await insertCheck('orphan-api')
    const rule = await insertRule('orphan', { events: ['check.failed'], filter: "check.name == 'orphan-api'", custom_services: [{ url: hook('orphan') }] })
    await setCheck(check.id, 'unhealthy')
    await consumer().drain()
    const [row] = (await db.query<{ id: string }>('SELECT id FROM notification_send_history WHERE notification_id = $1', [rule])).rows
    await db.query(`INSERT INTO lookout.notification_send_leases (history_id, lease_owner, lease_until) VALUES ($1, 'busy-process', now() + interval '1 hour')`, [row!.id])
    await dispatcher().runOnce()
    expect(at('orphan')).toHaveLength(0)
    expect((await historyOf(rule))[0]!.status).toBe('pending')
    await db.query(`UPDATE lookout.notification_send_leases SET lease_owner = 'dead-process', lease_until = now() - interval '1 second' WHERE history_id = $1`, [row!.id])
    await dispatcher().runOnce()
    expect(at('orphan')).toHaveLength(1)
    expect((await historyOf(rule))[0]!.status).toBe('sent')
    expect((await db.query('SELECT 1 FROM lookout.notification_send_leases WHERE history_id = $1', [row!.id])).rows).toHaveLength(0)
  })

  it('a pending row this pipeline did not queue (no event in its payload) ends as error once, instead of failing every claim', async () => {
    const check = await insertCheck('foreign-api')
    const rule = await insertRule('foreign', { events: ['check.failed'], custom_services: [{ url: hook('foreign') }] })
    await db.query(
      `INSERT INTO notification_send_history (notification_id, resource_id, source_event, status, payload) VALUES ($1, $2, 'check.failed', 'pending', $3)`,
      [rule, check.id, JSON.stringify({ id: check.id, event: 'check.failed' })],
    )
    await dispatcher().runOnce()
    expect(await historyOf(rule)).toMatchObject([{ status: 'error', error: 'this send was not queued by this pipeline (its payload names no event and recipient), so it cannot be delivered' }])
    await dispatcher().runOnce()
    expect(at('foreign')).toHaveLength(0)
  })

  it.skipIf(TEST_ENGINE !== 'postgres')('two processes on PostgreSQL deliver 200 failures exactly once each', { timeout: 120_000 }, async () => {
    const rule = await insertRule('bulk', { events: ['check.failed'], filter: "check.name.startsWith('bulk-')", title: '{{.check.name}}', custom_services: [{ url: hook('bulk') }] })
    const canary = (await db.query<{ id: string }>(`INSERT INTO canaries (name, namespace, spec) VALUES ('bulk-canary', 'default', '{}') RETURNING id`)).rows[0]!.id
    await db.query(
      `WITH made AS (INSERT INTO checks (canary_id, type, name, status) SELECT $1, 'http', 'bulk-' || n, 'healthy' FROM generate_series(1, 200) n RETURNING id)
       INSERT INTO checks_unlogged (check_id, canary_id, status) SELECT id, $1, 'healthy' FROM made`,
      [canary],
    )
    const second = await createPostgresDb(testDb.url!, { max: 5 })
    const processes = [db, second].map((processDb, index) => ({
      consumer: createEventConsumer({ db: processDb, logger, pollMs: 50, backoffBaseMs: 0, concurrency: 2, handlers: createNotificationHandlers(processDb, logger), processId: `p${index}` }),
      dispatcher: createNotificationDispatcher({ db: processDb, logger, pollIntervalMs: 50, concurrency: 8, processId: `p${index}` }),
    }))
    try {
      await Promise.all(processes.flatMap((process) => [process.consumer.start(), process.dispatcher.start()]))
      await db.query(`UPDATE checks_unlogged SET status = 'unhealthy' WHERE canary_id = $1`, [canary])
      await waitUntil(
        'every bulk row sent',
        async () => (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM notification_send_history WHERE notification_id = $1 AND status = 'sent'`, [rule])).rows[0]!.n === 200,
        90_000,
      )
    } finally {
      for (const process of processes) {
        await process.consumer.stop()
        await process.dispatcher.stop()
      }
      await second.close()
    }
    const titles = at('bulk').map((entry) => entry.title)
    expect(titles).toHaveLength(200)
    expect(new Set(titles).size).toBe(200)
    expect((await historyOf(rule)).every((row) => row.status === 'sent')).toBe(true)
  })
})
