import { execFile } from 'node:child_process'
import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import express from 'express'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { ROOT } from '#tests/support/processes.ts'
import { createTestApp, TEST_TOKEN } from '#tests/support/test-app.ts'
import { canaryYaml } from './health-fixtures.ts'

const testApp = useTestApp()
let server: http.Server
let url: string
const seenAuth: string[] = []

beforeAll(async () => {
  // The whole server (authentication, RBAC, the exec permission), as the CLI meets it.
  const app = express()
  app.use((req, _res, next) => { seenAuth.push(req.headers.authorization ?? ''); next() }, createTestApp(testApp.db).app)
  server = http.createServer(app)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve))
})

function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'), path.join(ROOT, 'bin/lookout.ts'), ...args], {
      env: { ...process.env, LOOKOUT_URL: url, LOOKOUT_TOKEN: TEST_TOKEN },
    }, (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }))
  })
}

it('applies a folder of canaries, fails with the field path on a bad spec, lists and deletes', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'lookout-cli-'))
  mkdirSync(path.join(dir, 'nested'))
  writeFileSync(path.join(dir, 'a.yaml'), canaryYaml('cli-a', '  tcp: [{name: port, endpoint: "127.0.0.1:1"}]', '@every 5m'))
  writeFileSync(path.join(dir, 'nested', 'b.yml'), `${canaryYaml('cli-b', '  exec: [{name: e, script: "true"}]')}\n---\n${canaryYaml('cli-c', '  exec: [{name: e, script: "true"}]')}`)
  const applied = await cli('apply', '-f', dir)
  expect(applied.stderr).toBe('')
  expect(applied.code).toBe(0)
  expect(applied.stdout).toContain('canary default/cli-a created (1 checks)')
  expect(applied.stdout).toContain('canary default/cli-c created (1 checks)')
  expect(seenAuth).toContain(`Bearer ${TEST_TOKEN}`)
  expect((await cli('apply', '-f', path.join(dir, 'a.yaml'))).stdout).toContain('canary default/cli-a configured')

  const badFile = path.join(dir, 'bad.yaml')
  writeFileSync(badFile, canaryYaml('cli-bad', '  http: [{name: h, thresholdMillis: -1}]'))
  const bad = await cli('apply', '-f', badFile)
  expect(bad.code).toBe(1)
  expect(bad.stderr).toContain(`${badFile}: spec.http[0].thresholdMillis:`)
  expect((await testApp.db.query("SELECT 1 FROM canaries WHERE name = 'cli-bad'")).rows).toHaveLength(0)

  const listed = await cli('get', 'canaries')
  expect(listed.stdout).toMatch(/default\tcli-b\t1\t/)
  const deleted = await cli('delete', '-f', path.join(dir, 'nested'))
  expect(deleted.stdout).toContain('canary default/cli-b deleted')
  expect((await testApp.db.query("SELECT 1 FROM canaries WHERE name = 'cli-b' AND deleted_at IS NULL")).rows).toHaveLength(0)
}, 60_000)

it('applies Notification and NotificationSilence documents, configures them again, names a bad field and deletes', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'lookout-cli-notify-'))
  const file = path.join(dir, 'notify.yaml')
  const documents = (title: string, until: string) => `apiVersion: mission-control.flanksource.com/v1
kind: Notification
metadata: {name: cli-failing-http, namespace: ops}
spec:
  events: [check.failed]
  filter: "check.type == 'http'"
  repeatInterval: 1h
  waitFor: 2m
  title: "${title}"
  to: {connection: "connection://default/team-chat", properties: {channel: alerts}}
---
apiVersion: mission-control.flanksource.com/v1
kind: NotificationSilence
metadata: {name: cli-maintenance, namespace: ops}
spec:
  description: nightly maintenance
  filter: "check.type == 'http'"
  from: "2030-01-01"
  until: ${until}
`
  const rule = async () => (await testApp.db.query("SELECT * FROM notifications WHERE name = 'cli-failing-http' AND deleted_at IS NULL")).rows
  const silence = async () => (await testApp.db.query("SELECT * FROM notification_silences WHERE name = 'cli-maintenance' AND deleted_at IS NULL")).rows

  writeFileSync(file, documents('{{.check.name}} is failing', '"2030-01-02T06:00:00Z"'))
  const applied = await cli('apply', '-f', file)
  expect(applied.stderr).toBe('')
  expect(applied.stdout).toContain('notification ops/cli-failing-http created')
  expect(applied.stdout).toContain('notificationsilence ops/cli-maintenance created')
  expect(await rule()).toEqual([
    expect.objectContaining({
      namespace: 'ops',
      source: 'ConfigFile',
      events: ['check.failed'],
      filter: "check.type == 'http'",
      repeat_interval: '1h',
      custom_services: [{ name: 'connection', connection: 'connection://default/team-chat', properties: { channel: 'alerts' } }],
    }),
  ])
  // bigint nanoseconds: a number on PGlite, a string on the PostgreSQL server.
  expect((await rule()).map((row) => Number(row.wait_for))).toEqual([120 * 1e9])
  const created = (await silence())[0]!
  expect(created).toMatchObject({ namespace: 'ops', source: 'ConfigFile', description: 'nightly maintenance', recursive: false })
  expect(new Date(created.from as string).toISOString()).toBe('2030-01-01T00:00:00.000Z')
  expect(new Date(created.until as string).toISOString()).toBe('2030-01-02T06:00:00.000Z')

  // Applying again changes the same rows; a silence without `until` becomes indefinite.
  writeFileSync(file, documents('{{.check.name}} still failing', 'null'))
  const again = await cli('apply', '-f', file)
  expect(again.stdout).toContain('notification ops/cli-failing-http configured')
  expect(again.stdout).toContain('notificationsilence ops/cli-maintenance configured')
  expect((await rule()).map((row) => row.title)).toEqual(['{{.check.name}} still failing'])
  expect((await silence()).map((row) => ({ id: row.id, until: row.until }))).toEqual([{ id: created.id, until: null }])

  const badFile = path.join(dir, 'bad.yaml')
  writeFileSync(badFile, documents('x', '"next tuesday"').replace('check.failed', 'check.exploded').replace(/cli-/g, 'cli-bad-'))
  const bad = await cli('apply', '-f', badFile)
  expect(bad.code).toBe(1)
  expect(bad.stderr).toContain(`${badFile}: [0].spec.events[0]: "check.exploded" is not an event of the reference`)
  expect(bad.stderr).toContain(`${badFile}: [1].spec.until: "next tuesday" is not an RFC3339 time, a date or a date and time`)
  expect((await testApp.db.query("SELECT 1 FROM notifications WHERE name LIKE 'cli-bad-%' UNION ALL SELECT 1 FROM notification_silences WHERE name LIKE 'cli-bad-%'")).rows).toEqual([])

  // What only the server can judge: a recipient that does not exist, a filter that is not CEL.
  writeFileSync(badFile, documents('x', 'null').replace('{connection: "connection://default/team-chat", properties: {channel: alerts}}', '{person: nobody@example.test}'))
  const unknownPerson = await cli('apply', '-f', badFile)
  expect(unknownPerson.code).toBe(1)
  expect(unknownPerson.stderr).toContain('spec.to.person: no person "nobody@example.test" was found')
  writeFileSync(badFile, documents('x', 'null').split('---')[1]!.replace(`filter: "check.type == 'http'"`, 'filter: "check.type =="'))
  const badFilter = await cli('apply', '-f', badFile)
  expect(badFilter.code).toBe(1)
  expect(badFilter.stderr).toContain('invalid filter')
  expect((await silence()).map((row) => row.filter)).toEqual(["check.type == 'http'"])

  const deleted = await cli('delete', '-f', file)
  expect(deleted.stdout).toContain('notification ops/cli-failing-http deleted')
  expect(deleted.stdout).toContain('notificationsilence ops/cli-maintenance deleted')
  expect([...(await rule()), ...(await silence())]).toEqual([])
  expect((await cli('delete', '-f', file)).stdout).toContain('notification ops/cli-failing-http not found')
}, 60_000)
