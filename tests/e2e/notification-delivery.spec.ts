import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { expect, test, type Locator, type Page } from './support/test.ts'
import { project, ready, screenshotAtSizes } from './support/page.ts'
import { signInWithToken } from './support/sign-in.ts'
import { E2E_HOOK_PORT, E2E_TOKEN } from '../../playwright.config.ts'

/**
 * Issue 17's done-when, with JavaScript on and off: a connection of each family of the type grid
 * is created through its form and tested (a pass for reachable peers, the probe's error for an
 * unreachable one or a type without a probe); a rule written in the rules editor sends a failing
 * check's message to a generic webhook connection, which reaches a loopback receiver this spec
 * runs; the send shows on /notifications and the check's history; a silence added from that page
 * holds the next failure, recorded as silenced, and the receiver gets nothing more.
 *
 * The receiver listens on E2E_HOOK_PORT, the one loopback port the e2e server lets notification
 * deliveries reach (playwright.config.ts). It also plays the check's target (its status is ours
 * to set) and the HTTP connection's peer. Names carry the project name, since both projects
 * share one server.
 */

const HOOK = `http://127.0.0.1:${E2E_HOOK_PORT}`
const API_AUTH = { authorization: `Bearer ${E2E_TOKEN}` }

type Delivery = { path: string; body: string }
let receiver: http.Server
const deliveries: Delivery[] = []
let targetStatus = 200
let scratch = ''

test.beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const url = req.url ?? '/'
      if (url.startsWith('/hook-')) deliveries.push({ path: url, body: Buffer.concat(chunks).toString('utf8') })
      res.writeHead(url.startsWith('/target-') ? targetStatus : 200, { 'content-type': 'text/plain' })
      res.end('ok')
    })
  })
  await new Promise<void>((resolve, reject) => {
    receiver.once('error', reject)
    receiver.listen(E2E_HOOK_PORT, '127.0.0.1', resolve)
  })
  // A folder and a git repository (branch main, one commit) for the folder and git connections.
  scratch = mkdtempSync(path.join(os.tmpdir(), 'lookout-e2e-delivery-'))
  const repo = path.join(scratch, 'repo')
  execFileSync('git', ['init', '--quiet', '--initial-branch=main', repo])
  writeFileSync(path.join(repo, 'README.md'), 'e2e\n')
  const identity = ['-c', 'user.name=e2e', '-c', 'user.email=e2e@example.org', '-c', 'commit.gpgsign=false']
  execFileSync('git', ['-C', repo, 'add', 'README.md'])
  execFileSync('git', ['-C', repo, ...identity, 'commit', '--quiet', '-m', 'e2e'])
})

test.afterAll(async () => {
  receiver.closeAllConnections()
  await new Promise<void>((resolve) => receiver.close(() => resolve()))
  if (scratch) rmSync(scratch, { recursive: true, force: true })
})

function unique(prefix: string): string {
  return `${prefix}-${project()}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`
}

/** Picks the type on the grid under its family, fills the form and saves; lands on the new connection. */
async function createConnection(page: Page, family: string, type: string, name: string, fill: (form: Locator) => Promise<void>): Promise<void> {
  await page.goto('/settings/connections/new')
  await ready(page)
  await page.getByTestId(`connection-family-${family}`).getByTestId(`connection-type-${type}`).click()
  await expect(page.getByTestId('connection-form')).toHaveAttribute('data-type', type)
  await ready(page)
  const form = page.getByTestId('connection-form')
  await form.locator('input[name="name"]').fill(name)
  await fill(form)
  await form.getByTestId('connection-save').click()
  await expect(page).toHaveURL(/\/settings\/connections\/[0-9a-f-]{36}$/)
  await expect(page.getByTestId('toast')).toHaveText(`Connection ${name} created successfully`)
  await ready(page)
}

/** Presses Test and answers the result shown where the button is. */
async function pressTest(page: Page): Promise<Locator> {
  await page.getByTestId('connection-test').click()
  const result = page.getByTestId('connection-test-result')
  await expect(result).toBeVisible({ timeout: 20_000 })
  return result
}

async function checkRow(page: Page, name: string): Promise<{ id: string; status: string | null } | undefined> {
  const response = await page.request.get(`/api/db/checks?name=eq.${encodeURIComponent(name)}&select=id,status`, { headers: API_AUTH })
  expect(response.ok()).toBe(true)
  return ((await response.json()) as Array<{ id: string; status: string | null }>)[0]
}

/** Run Now on the check's panel, then waits until the engine has recorded the wanted status. */
async function runNow(page: Page, checkId: string, name: string, wanted: 'healthy' | 'unhealthy'): Promise<void> {
  await page.goto(`/health?checkId=${checkId}`)
  await ready(page)
  await page.getByTestId('check-detail').getByTestId('run-now').click()
  await expect.poll(async () => (await checkRow(page, name))?.status, { timeout: 60_000, intervals: [500] }).toBe(wanted)
}

test.describe('notification delivery', () => {
  test('creates a connection of each family of the type grid and tests it', async ({ page }) => {
    test.setTimeout(180_000)
    await signInWithToken(page, '/settings/connections/new')
    await ready(page)
    for (const family of ['database', 'cloud', 'notification', 'git', 'ai', 'http', 'other']) await expect(page.getByTestId(`connection-family-${family}`)).toBeVisible()
    await screenshotAtSizes(page, 'delivery', 'type-grid')

    const passes = async (label: string) => {
      const result = await pressTest(page)
      await expect(result).toHaveAttribute('data-ok', 'true')
      await expect(result).toHaveText('Test passed: ok')
      await screenshotAtSizes(page, 'delivery', `test-${label}`)
    }
    const fails = async (label: string, message: string | RegExp) => {
      const result = await pressTest(page)
      await expect(result).toHaveAttribute('data-ok', 'false')
      await expect(result).toHaveText(message)
      await screenshotAtSizes(page, 'delivery', `test-${label}`)
    }

    // database: the PostgreSQL server the tests use (trust authentication: any password).
    await createConnection(page, 'database', 'postgres', unique('pg'), async (form) => {
      await form.locator('input[name="url"]').fill('postgres://127.0.0.1:5432/postgres')
      await form.getByTestId('connection-field-username-value').fill('postgres')
      await form.getByTestId('connection-field-password-value').fill('unused')
    })
    await passes('postgres')

    // cloud: no probe exists for cloud accounts; the test says so rather than passing.
    await createConnection(page, 'cloud', 'aws', unique('aws'), async (form) => {
      await form.locator('input[name="properties.region"]').fill('eu-west-1')
      await form.getByTestId('connection-field-username-value').fill('AKIAE2EEXAMPLE')
      await form.getByTestId('connection-field-password-value').fill('not-a-real-secret')
    })
    await fails('aws', 'Test failed: testing aws connections is not supported')

    // notification: an SMTP server on a port nothing listens on is an unreachable peer.
    await createConnection(page, 'notification', 'email', unique('mail'), async (form) => {
      await form.locator('input[name="host"]').fill('127.0.0.1')
      await form.locator('input[name="port"]').fill('1')
      await form.locator('input[name="fromAddress"]').fill('lookout@example.org')
      await form.locator('input[name="fromName"]').fill('Lookout')
      await form.locator('select[name="encryption"]').selectOption('None')
    })
    await fails('email-unreachable', /^Test failed: SMTP 127\.0\.0\.1:1: .*ECONNREFUSED/)

    // git: a local repository this spec made, its ref main present.
    await createConnection(page, 'git', 'git', unique('repo'), async (form) => {
      await form.locator('input[name="url"]').fill(pathToFileURL(path.join(scratch, 'repo')).href)
    })
    await passes('git')

    // ai: no probe for model providers either.
    await createConnection(page, 'ai', 'openai', unique('llm'), async (form) => {
      await form.locator('input[name="properties.model"]').fill('gpt-4o-mini')
      await form.getByTestId('connection-field-password-value').fill('sk-e2e-not-a-key')
    })
    await fails('openai', 'Test failed: testing openai connections is not supported')

    // http: the loopback receiver.
    await createConnection(page, 'http', 'http', unique('web'), async (form) => {
      await form.locator('input[name="url"]').fill(`${HOOK}/up`)
      await form.getByTestId('connection-field-username-value').fill('ops')
      await form.getByTestId('connection-field-password-value').fill('s3cret')
    })
    await passes('http')

    // other: a folder of the server's machine.
    await createConnection(page, 'other', 'folder', unique('files'), async (form) => {
      await form.locator('input[name="properties.path"]').fill(scratch)
    })
    await passes('folder')
  })

  test('a rule written in the editor delivers a failing check to a webhook; a silence holds the next failure', async ({ page }) => {
    test.setTimeout(240_000)
    targetStatus = 200
    deliveries.length = 0
    const hookPath = `/hook-${project()}`

    // The recipient: a generic webhook connection whose URL is built from the form's parts.
    const webhookName = unique('hook')
    await signInWithToken(page, '/settings/connections/new')
    await createConnection(page, 'notification', 'generic_webhook', webhookName, async (form) => {
      await form.locator('input[name="webhookUrl"]').fill(`${HOOK}${hookPath}`)
    })
    await expect(page.getByTestId('connection-built-url')).toHaveText(new RegExp(`^generic\\+http://127\\.0\\.0\\.1:${E2E_HOOK_PORT}${hookPath}`))

    // A check of the receiver's target path, passing at first (the failure must be a change of status).
    const checkName = unique('delivery')
    const created = await page.request.post('/api/canary/api/canaries', {
      headers: API_AUTH,
      data: {
        apiVersion: 'canaries.flanksource.com/v1',
        kind: 'Canary',
        metadata: { name: checkName, namespace: 'e2e' },
        spec: { schedule: '@every 1h', http: [{ name: checkName, url: `${HOOK}/target-${project()}`, responseCodes: [200] }] },
      },
    })
    expect(created.ok()).toBe(true)
    await expect.poll(async () => (await checkRow(page, checkName))?.status, { timeout: 60_000, intervals: [500] }).toBe('healthy')
    const checkId = (await checkRow(page, checkName))!.id

    // The rule, through the editor's Form tab.
    const ruleName = unique('delivery-rule')
    // This rule's sends on the check's history (the history names rules as namespace/name).
    const ruleSends = page.getByTestId('send-row').filter({ has: page.getByTestId('send-rule').getByText(`default/${ruleName}`, { exact: true }) })
    await page.goto('/notifications/rules/new')
    await ready(page)
    const editor = page.getByTestId('rule-editor')
    await editor.getByTestId('rule-name').fill(ruleName)
    await editor.getByTestId('rule-event-check.failed').check()
    await editor.getByTestId('rule-recipient-kind').selectOption('connection')
    await editor.getByTestId('rule-recipient').fill(`connection://default/${webhookName}`)
    await editor.getByTestId('rule-filter').fill(`check.name == '${checkName}'`)
    await editor.getByTestId('rule-title').fill('{{.check.name}} is failing')
    await screenshotAtSizes(page, 'delivery', 'rule-editor')
    await editor.getByTestId('rule-save').click()
    await expect(page).toHaveURL(/\/notifications\/rules$/)
    await expect(page.getByTestId('toast')).toHaveText('Notification created successfully')
    await expect(page.locator(`[data-testid="rule-row"][data-name="${ruleName}"]`).getByTestId('rule-recipients')).toHaveText(`connection: connection://default/${webhookName}`)

    // The check fails: its message reaches the receiver.
    targetStatus = 500
    await runNow(page, checkId, checkName, 'unhealthy')
    await screenshotAtSizes(page, 'delivery', 'check-failing')
    await expect.poll(() => deliveries.length, { timeout: 60_000, intervals: [500] }).toBe(1)
    expect(deliveries[0]!.path).toBe(hookPath)
    const message = JSON.parse(deliveries[0]!.body) as { title?: string; message?: string }
    expect(message.title).toBe(`${checkName} is failing`)

    // The send, on /notifications and on the check's own history.
    await page.goto(`/notifications?search=${encodeURIComponent(checkName)}`)
    await ready(page)
    const summary = page.getByTestId('notification-row').filter({ hasText: checkName })
    await expect(summary.getByTestId('notification-sent')).toHaveText('1')
    await screenshotAtSizes(page, 'delivery', 'summary-sent')
    await summary.getByTestId('notification-resource-link').click()
    await expect(page).toHaveURL(new RegExp(`/notifications/resource/${checkId}$`))
    await ready(page)
    await expect(ruleSends).toHaveCount(1)
    await expect(ruleSends).toHaveAttribute('data-status', 'sent')
    await ruleSends.getByTestId('send-link').click()
    await expect(page.getByTestId('send-detail')).toHaveAttribute('data-status', 'sent')
    await screenshotAtSizes(page, 'delivery', 'resource-sent')

    // Silence the check from its history page.
    await page.getByTestId('resource-silence').click()
    await expect(page).toHaveURL(new RegExp(`/notifications/silences/add\\?resource=check:${checkId}$`))
    await ready(page)
    const form = page.getByTestId('silence-form')
    await expect(form.getByTestId('silence-resource')).toHaveValue(`check:${checkId}`)
    const description = unique('hold')
    await form.getByTestId('silence-description').fill(description)
    await form.getByTestId('silence-indefinitely').check()
    await screenshotAtSizes(page, 'delivery', 'silence-form')
    await form.getByTestId('silence-save').click()
    await expect(page).toHaveURL(/\/notifications\/silences$/)
    await expect(page.getByTestId('toast')).toHaveText('Silence created successfully')
    const silence = page.locator(`[data-testid="silence-row"][data-description="${description}"]`)
    await expect(silence.getByTestId('silence-state')).toHaveAttribute('data-state', 'indefinite')

    // It passes, then fails again: the send is recorded as silenced and nothing reaches the receiver.
    targetStatus = 200
    await runNow(page, checkId, checkName, 'healthy')
    targetStatus = 500
    await runNow(page, checkId, checkName, 'unhealthy')
    await expect(async () => {
      await page.goto(`/notifications/resource/${checkId}?status=silenced`)
      await expect(ruleSends).toHaveCount(1, { timeout: 1_000 })
    }).toPass({ timeout: 60_000, intervals: [1_000] })
    await ready(page)
    await expect(ruleSends).toHaveAttribute('data-status', 'silenced')
    await ruleSends.getByTestId('send-link').click()
    await expect(page.getByTestId('send-detail')).toHaveAttribute('data-status', 'silenced')
    await expect(page.getByTestId('send-silence-link')).toBeVisible()
    await screenshotAtSizes(page, 'delivery', 'resource-silenced')
    expect(deliveries).toHaveLength(1)
    // The summary counts every rule's sends about the check: rules other specs left behind that
    // match any failing check are silenced with ours, so the count is read off the silenced list.
    const silencedSends = await page.getByTestId('send-row').count()
    expect(silencedSends).toBeGreaterThanOrEqual(1)

    await page.goto(`/notifications?search=${encodeURIComponent(checkName)}`)
    await ready(page)
    await expect(summary.getByTestId('notification-sent')).toHaveText('1')
    await expect(summary.getByTestId('notification-suppressed')).toHaveText(String(silencedSends))

    // End the silence, so the check is left as it was found.
    await page.goto('/notifications/silences')
    await ready(page)
    await silence.getByTestId('silence-end').click()
    await expect(page.getByTestId('toast')).toHaveText('Silence updated successfully')
    await expect(silence.getByTestId('silence-state')).toHaveAttribute('data-state', 'expired')
  })
})
