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
