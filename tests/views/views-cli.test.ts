import { execFile } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { useTestApp } from '#tests/support/use-test-app.ts'
import { ROOT } from '#tests/support/processes.ts'
import { TEST_TOKEN } from '#tests/support/test-app.ts'

/** `lookout apply -f` with kind View: stored as a views row, judged first locally and then by the server. */
const testApp = useTestApp()
let server: http.Server
let url: string

beforeAll(async () => {
  server = http.createServer(testApp.app)
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

const viewYaml = (title: string, extra = '') => `apiVersion: mission-control.flanksource.com/v1
kind: View
metadata: {name: failing-checks, namespace: ops}
spec:
  display: {title: ${title}, icon: health, sidebar: true}
  queries:
    checks:
      configs: {types: [Kubernetes::Pod]}
  columns:
    - {name: id, type: string${extra}}
    - {name: name, type: string}
  panels:
    - {name: Failing, type: number, query: "SELECT COUNT(*) AS value FROM checks"}
`

it('applies a View, configures it again, names a bad field and deletes it', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'lookout-cli-view-'))
  const file = path.join(dir, 'view.yaml')
  writeFileSync(file, viewYaml('Failing checks', ', primaryKey: true'))
  const applied = await cli('apply', '-f', file)
  expect(applied.stderr).toBe('')
  expect(applied.stdout).toContain('view ops/failing-checks created')
  writeFileSync(file, viewYaml('Failing checks v2', ', primaryKey: true'))
  expect((await cli('apply', '-f', file)).stdout).toContain('view ops/failing-checks configured')
  const { rows } = await testApp.db.query<{ title: string; sidebar: boolean }>(`SELECT title, sidebar FROM views_summary WHERE namespace = 'ops' AND name = 'failing-checks'`)
  expect(rows).toEqual([{ title: 'Failing checks v2', sidebar: true }])

  writeFileSync(file, viewYaml('No key'))
  const bad = await cli('apply', '-f', file)
  expect(bad.code).toBe(1)
  expect(bad.stderr).toContain(`${file}: spec.columns: view must have at least one primary key column`)

  writeFileSync(file, viewYaml('Failing checks', ', primaryKey: true'))
  expect((await cli('delete', '-f', file)).stdout).toContain('view ops/failing-checks deleted')
  expect((await testApp.db.query(`SELECT 1 FROM views_summary WHERE name = 'failing-checks'`)).rows).toHaveLength(0)
}, 60_000)
