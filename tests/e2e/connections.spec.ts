import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { expect, test, type Page } from './support/test.ts'
import { hasJs, project, ready, SHOTS } from './support/page.ts'
import { signInWithToken } from './support/sign-in.ts'

/**
 * /settings/connections (spec 001 §3), with JavaScript on and off: the type grid, an http
 * connection to a loopback server this spec starts (created, tested, edited keeping its `***`
 * password, tested again), a slack connection whose URL is built on submit with a Secret source
 * left as a placeholder, and delete with its confirmation. Names carry the project name, since
 * both projects share one server.
 */

let receiver: http.Server
let receiverUrl = ''
const seenAuthorization: string[] = []

test.beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    seenAuthorization.push(req.headers.authorization ?? '')
    res.writeHead(req.url === '/down' ? 503 : 200, { 'content-type': 'text/plain' })
    res.end('hello')
  })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`
})

test.afterAll(async () => {
  await new Promise<void>((resolve) => receiver.close(() => resolve()))
})

function unique(prefix: string): string {
  return `${prefix}-${project()}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`
}

async function openTypeForm(page: Page, type: string): Promise<void> {
  await page.goto('/settings/connections/new')
  await ready(page)
  await page.getByTestId(`connection-type-${type}`).click()
  await expect(page).toHaveURL(new RegExp(`/settings/connections/new\\?type=${type}$`))
  await expect(page.getByTestId('connection-form')).toHaveAttribute('data-type', type)
  await ready(page)
}

test.describe('connections', () => {
  test('creates an http connection, tests it, edits it keeping its password, and deletes it', async ({ page }) => {
    await signInWithToken(page, '/settings/connections')
    await ready(page)
    await page.getByTestId('connection-add').click()
    await expect(page).toHaveURL(/\/settings\/connections\/new$/)
    await expect(page.getByTestId('connection-family-notification').getByTestId('connection-type-slack')).toBeVisible()
    await expect(page.getByTestId('connection-type-jmeter')).toHaveCount(0)
    await page.screenshot({ path: `${SHOTS}/connections-type-grid-${project()}.png` })

    await openTypeForm(page, 'http')
    const form = page.getByTestId('connection-form')
    await expect(form.locator('input[name="namespace"]')).toHaveValue('default')
    // An empty required field: the browser refuses it without JavaScript, the server with it.
    await form.getByTestId('connection-save').click()
    if (hasJs()) {
      await expect(form.getByTestId('connection-field-name-wrapper').getByText('This field is required')).toBeVisible()
      await expect(form.getByTestId('connection-field-password').getByText('This field is required')).toBeVisible()
    } else {
      expect(await form.locator('input[name="name"]').evaluate((input: HTMLInputElement) => input.validity.valueMissing)).toBe(true)
      await expect(page).toHaveURL(/\?type=http$/)
    }

    const name = unique('web')
    await form.locator('input[name="name"]').fill(name)
    await form.locator('input[name="url"]').fill(receiverUrl)
    // Static value is the default source: its input shows, the reference's name and key do not.
    await expect(form.getByTestId('connection-field-password-name')).toBeHidden()
    await form.getByTestId('connection-field-username-value').fill('ops')
    await form.getByTestId('connection-field-password-value').fill('s3cret')
    await page.screenshot({ path: `${SHOTS}/connections-http-form-${project()}.png`, fullPage: true })
    await form.getByTestId('connection-save').click()
    await expect(page).toHaveURL(/\/settings\/connections\/[0-9a-f-]{36}$/)
    const detail = new URL(page.url()).pathname
    await expect(page.getByTestId('toast')).toHaveText(`Connection ${name} created successfully`)
    await ready(page)

    seenAuthorization.length = 0
    await page.getByTestId('connection-test').click()
    await expect(page.getByTestId('connection-test-result')).toHaveText('Test passed: ok')
    expect(seenAuthorization).toContain(`Basic ${Buffer.from('ops:s3cret').toString('base64')}`)
    await page.screenshot({ path: `${SHOTS}/connections-test-passed-${project()}.png` })

    // The stored password is shown as *** and kept when posted back unchanged.
    await page.goto(detail)
    await ready(page)
    const edit = page.getByTestId('connection-form')
    await expect(edit.getByTestId('connection-field-password-value')).toHaveValue('***')
    expect(await page.content()).not.toContain('s3cret')
    await edit.locator('input[name="url"]').fill(`${receiverUrl}/down`)
    await edit.getByTestId('connection-save').click()
    await expect(page.getByTestId('toast')).toHaveText(`Connection ${name} updated successfully`)
    await expect(page.getByTestId('connection-form').locator('input[name="url"]')).toHaveValue(`${receiverUrl}/down`)
    await ready(page)
    seenAuthorization.length = 0
    await page.getByTestId('connection-test').click()
    await expect(page.getByTestId('connection-test-result')).toHaveAttribute('data-ok', 'false')
    await expect(page.getByTestId('connection-test-result')).toContainText('503')
    expect(seenAuthorization).toContain(`Basic ${Buffer.from('ops:s3cret').toString('base64')}`)
    await page.screenshot({ path: `${SHOTS}/connections-test-failed-${project()}.png` })

    await page.getByTestId('connection-delete').click()
    await expect(page.getByTestId('connection-delete-dialog')).toBeVisible()
    await page.screenshot({ path: `${SHOTS}/connections-delete-${project()}.png` })
    await page.getByTestId('connection-delete-dialog-confirm').click()
    await expect(page).toHaveURL(/\/settings\/connections$/)
    await expect(page.getByTestId('toast')).toHaveText(`Connection ${name} deleted successfully`)
    await expect(page.getByTestId('connection-row').filter({ hasText: name })).toHaveCount(0)
  })

  test('creates a slack connection whose URL is built on submit, with a Secret source as a placeholder', async ({ page }) => {
    await signInWithToken(page, '/settings/connections')
    await openTypeForm(page, 'slack')
    const form = page.getByTestId('connection-form')
    const name = unique('alerts')
    await form.locator('input[name="name"]').fill(name)
    await form.locator('input[name="channel"]').fill('C0123ABCD')
    await form.getByTestId('connection-field-botToken-source-secret').check()
    // The radio switches the inputs by CSS, with or without JavaScript.
    await expect(form.getByTestId('connection-field-botToken-value')).toBeHidden()
    await form.getByTestId('connection-field-botToken-name').fill('slack')
    await form.getByTestId('connection-field-botToken-key').fill('bot-token')
    await page.screenshot({ path: `${SHOTS}/connections-slack-form-${project()}.png`, fullPage: true })
    await form.getByTestId('connection-save').click()
    await expect(page.getByTestId('toast')).toHaveText(`Connection ${name} created successfully`)
    await expect(page.getByTestId('connection-built-url')).toHaveText(/^slack:\/\/.*\$\(secret:slack\/bot-token\).*C0123ABCD/)
    await expect(page.getByTestId('connection-form').getByTestId('connection-field-botToken-name')).toHaveValue('slack')
    await page.screenshot({ path: `${SHOTS}/connections-slack-${project()}.png` })

    await page.goto(`/settings/connections?type=slack&search=${encodeURIComponent(name)}`)
    await ready(page)
    const row = page.getByTestId('connection-row').filter({ hasText: name })
    await expect(row).toHaveCount(1)
    await expect(row.getByTestId('connection-type')).toHaveText('Slack')
    await expect(row.getByTestId('connection-url')).toContainText('C0123ABCD')
    await page.screenshot({ path: `${SHOTS}/connections-list-${project()}.png` })
  })

  test('git shows the username and password for Basic and the SSH key for SSH, by CSS alone', async ({ page }) => {
    await signInWithToken(page, '/settings/connections/new?type=git')
    await ready(page)
    const form = page.getByTestId('connection-form')
    await expect(form.locator('input[name="properties.ref"]')).toHaveValue('main')
    await expect(form.getByTestId('connection-field-username')).toBeVisible()
    await expect(form.getByTestId('connection-field-certificate')).toBeHidden()
    await form.getByTestId('connection-field-authentication').selectOption('SSH')
    await expect(form.getByTestId('connection-field-username')).toBeHidden()
    await expect(form.getByTestId('connection-field-certificate')).toBeVisible()
    await page.screenshot({ path: `${SHOTS}/connections-git-ssh-${project()}.png`, fullPage: true })
  })
})
