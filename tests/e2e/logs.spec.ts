import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { expect, test } from './support/test.ts'
import { hasJs, project, ready, screenshotAtSizes } from './support/page.ts'
import { signInWithToken } from './support/sign-in.ts'
import { E2E_TOKEN } from '../../playwright.config.ts'

/**
 * /logs (issue 18 item 5), with JavaScript on and off: a files log backend in a temp folder
 * (written through the API with the bootstrap token, an exec holder, so the server reads it),
 * searched by a GET form whose fields live in the URL, and the filter that narrows the lines.
 */

const api = { Authorization: `Bearer ${E2E_TOKEN}`, 'Content-Type': 'application/json' }
let folder: string

test.beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'lookout-e2e-logs-'))
})

test.afterAll(async () => {
  await rm(folder, { recursive: true, force: true })
})

test.describe('logs', () => {
  test('searches a files backend by time range and query, then filters the lines', { tag: '@smoke' }, async ({ page, request }) => {
    const name = `e2e-files-${project()}-${Date.now().toString(36)}`
    const at = (secondsAgo: number) => new Date(Date.now() - secondsAgo * 1000).toISOString()
    await writeFile(
      path.join(folder, `${name}.log`),
      [
        JSON.stringify({ time: at(30), level: 'error', msg: 'payment declined for order 42', service: 'checkout' }),
        `ts=${at(60)} level=warn msg="payment retried for order 41" service=checkout`,
        `ts=${at(90)} level=info msg="payment accepted for order 40" service=checkout`,
        `ts=${at(120)} level=info msg="cart viewed" service=web`,
        `ts=${at(3 * 86_400)} level=error msg="payment too old to show" service=checkout`,
      ].join('\n'),
    )
    const created = await request.post('/api/db/logging_backends', { headers: api, data: { name, spec: { files: { paths: [path.join(folder, `${name}.log`)], labels: { env: 'e2e' } } } } })
    expect(created.status(), await created.text()).toBe(201)

    await signInWithToken(page, '/logs')
    await ready(page)
    const form = page.getByTestId('logs-form')
    await expect(page.getByTestId('logs-prompt')).toBeVisible()
    await form.getByTestId('logs-source').selectOption(`backend:${name}`)
    await form.getByTestId('logs-range').selectOption('1d')
    await form.getByTestId('logs-query').fill('payment')
    await form.getByTestId('logs-search').click()
    await expect(page).toHaveURL(new RegExp(`[?&]source=backend%3A${name}`))
    await expect(page).toHaveURL(/[?&]range=1d/)
    const list = page.getByTestId('logs-list')
    await expect(list.getByTestId('log-line')).toHaveCount(3)
    await expect(list.getByTestId('log-message').first()).toContainText('payment declined for order 42')
    await expect(list.getByTestId('log-severity').first()).toHaveText('error')
    await expect(page.getByTestId('logs-count')).toHaveText('3 lines')
    await screenshotAtSizes(page, 'logs', 'search')

    // The filter narrows the loaded lines: as one types with JavaScript, by a submit without.
    await form.getByTestId('logs-filter').fill('warn')
    if (!hasJs()) {
      await form.getByTestId('logs-search').click()
      await expect(page).toHaveURL(/[?&]filter=warn/)
    }
    await expect(list.getByTestId('log-line')).toHaveCount(1)
    await expect(list.getByTestId('log-message')).toContainText('payment retried for order 41')
    await expect(page.getByTestId('logs-count')).toHaveText('1 of 3 lines')
    await screenshotAtSizes(page, 'logs', 'filtered')

    // A label that is no name=value pair is explained beside the form, which keeps its fields.
    await page.goto(`/logs?source=backend%3A${name}&range=1d&labels=service`)
    await ready(page)
    await expect(page.getByTestId('inline-error')).toHaveText('Labels must be name=value pairs separated by commas: service')
    await expect(page.getByTestId('logs-form').getByTestId('logs-labels')).toHaveValue('service')
  })

  test('refuses a search without a source before it is sent', async ({ page }) => {
    await signInWithToken(page, '/logs')
    await ready(page)
    const form = page.getByTestId('logs-form')
    await form.getByTestId('logs-query').fill('anything')
    await form.getByTestId('logs-search').click()
    await expect(page).toHaveURL(/\/logs$/)
    expect(await form.getByTestId('logs-source').evaluate((element) => (element as HTMLSelectElement).validity.valueMissing)).toBe(true)
  })
})
