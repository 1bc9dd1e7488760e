import { expect, test } from './support/test.ts'
import { hasJs, project, ready, SHOTS } from './support/page.ts'
import { signInWithToken } from './support/sign-in.ts'
import { E2E_TOKEN } from '../../playwright.config.ts'

/**
 * The notification screens (issue 17 item 6), with JavaScript on and off: a rule written in the
 * editor (events, an e-mail recipient, a filter, and YAML in the Code tab) shown in the rules
 * table, disabled and enabled again; a silence on a demo check added with 'Indefinitely',
 * previewed, listed as indefinite and ended; the by-resource summary and one resource's send
 * history. Names carry the project name, since both projects share one server.
 */

function unique(prefix: string): string {
  return `${prefix}-${project()}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`
}

test.describe('notifications', () => {
  test('writes a rule in the editor, sees it in the rules table, disables and enables it', { tag: '@smoke' }, async ({ page }) => {
    await signInWithToken(page, '/notifications/rules')
    await ready(page)
    await expect(page.getByTestId('notification-rules-table')).toBeVisible()
    await page.getByTestId('rule-add').click()
    await expect(page).toHaveURL(/\/notifications\/rules\/new$/)
    await ready(page)

    const editor = page.getByTestId('rule-editor')
    // An empty required field: the browser refuses it without JavaScript, the server with it.
    await editor.getByTestId('rule-save').click()
    if (hasJs()) {
      await expect(editor.getByText('Name is required.')).toBeVisible()
    } else {
      expect(await editor.getByTestId('rule-name').evaluate((input: HTMLInputElement) => input.validity.valueMissing)).toBe(true)
      await expect(page).toHaveURL(/\/notifications\/rules\/new$/)
    }

    const name = unique('failing-http')
    await editor.getByTestId('rule-name').fill(name)
    await editor.getByTestId('rule-event-check.failed').check()
    await editor.getByTestId('rule-recipient-kind').selectOption('email')
    await editor.getByTestId('rule-recipient').fill('oncall@example.org')
    await editor.getByTestId('rule-filter').fill("check.type == 'http'")
    await editor.getByTestId('rule-repeat-interval').fill('1h')
    if (hasJs()) await editor.getByTestId('rule-tab-code').click()
    await editor.getByTestId('rule-spec').fill('waitFor: 2m\ngroupBy: [type]\n')
    await page.screenshot({ path: `${SHOTS}/notifications-rule-editor-${project()}.png`, fullPage: true })
    await editor.getByTestId('rule-save').click()

    await expect(page).toHaveURL(/\/notifications\/rules$/)
    await expect(page.getByTestId('toast')).toHaveText('Notification created successfully')
    await ready(page)
    const row = page.locator(`[data-testid="rule-row"][data-name="${name}"]`)
    await expect(row.getByTestId('rule-events')).toHaveText('check.failed')
    await expect(row.getByTestId('rule-recipients')).toHaveText('email: oncall@example.org')
    await expect(row.getByTestId('rule-enabled')).toHaveAttribute('data-enabled', 'true')
    await page.screenshot({ path: `${SHOTS}/notifications-rules-${project()}.png`, fullPage: true })

    await row.getByTestId('rule-toggle').click()
    await expect(page.getByTestId('toast')).toHaveText('Notification updated successfully')
    await expect(row.getByTestId('rule-enabled')).toHaveAttribute('data-enabled', 'false')
    await ready(page)
    await row.getByTestId('rule-toggle').click()
    await expect(row.getByTestId('rule-enabled')).toHaveAttribute('data-enabled', 'true')

    // The editor opens the rule as its spec; an update shows the spec's toast.
    await row.getByTestId('rule-link').click()
    await ready(page)
    await expect(page.getByTestId('rule-name')).toHaveValue(name)
    await expect(page.getByTestId('rule-recipient')).toHaveValue('oncall@example.org')
    await expect(page.getByTestId('rule-spec')).toHaveValue(/waitFor: 2m/)
    await page.getByTestId('rule-title').fill('{{.check.name}} is failing')
    await page.getByTestId('rule-save').click()
    await expect(page).toHaveURL(/\/notifications\/rules$/)
    await expect(page.getByTestId('toast')).toHaveText('Notification updated successfully')
  })

  test('adds a silence with Indefinitely, previews it, sees it listed and ends it', async ({ page }) => {
    await signInWithToken(page, '/notifications/silences')
    await ready(page)
    await page.getByTestId('silence-add').click()
    await expect(page).toHaveURL(/\/notifications\/silences\/add$/)
    await ready(page)

    // The picker's choices come from the server: search, then choose.
    await page.getByTestId('silence-resource-q').fill('refunds-api-health')
    await page.getByTestId('silence-resource-find').click()
    await expect(page).toHaveURL(/\?q=refunds-api-health$/)
    await ready(page)
    const form = page.getByTestId('silence-form')
    await expect(form.getByTestId('silence-resource').locator('option', { hasText: 'refunds-api-health' })).toHaveCount(1)
    await form.getByTestId('silence-resource').selectOption({ label: 'refunds-api-health (http)' })
    const description = unique('maintenance')
    await form.getByTestId('silence-description').fill(description)
    await form.getByTestId('silence-filter').fill("check.type == 'http'")
    await form.getByTestId('silence-preview').click()
    await expect(page.getByTestId('silence-preview-result')).toHaveAttribute('data-ok', 'true')
    // The preview keeps the form's answers.
    await expect(page.getByTestId('silence-description')).toHaveValue(description)
    await page.screenshot({ path: `${SHOTS}/notifications-silence-preview-${project()}.png`, fullPage: true })

    await page.getByTestId('silence-indefinitely').check()
    if (hasJs()) await expect(page.getByTestId('silence-until')).toBeDisabled()
    await page.getByTestId('silence-save').click()
    await expect(page).toHaveURL(/\/notifications\/silences$/)
    await expect(page.getByTestId('toast')).toHaveText('Silence created successfully')
    await ready(page)
    const row = page.locator(`[data-testid="silence-row"][data-description="${description}"]`)
    await expect(row.getByTestId('silence-until')).toHaveText('Indefinitely')
    await expect(row.getByTestId('silence-state')).toHaveAttribute('data-state', 'indefinite')
    await page.screenshot({ path: `${SHOTS}/notifications-silences-${project()}.png`, fullPage: true })

    await row.getByTestId('silence-end').click()
    await expect(page.getByTestId('toast')).toHaveText('Silence updated successfully')
    await expect(row.getByTestId('silence-state')).toHaveAttribute('data-state', 'expired')
    await expect(row.getByTestId('silence-end')).toHaveCount(0)
  })

  test('shows notifications by resource and one resource’s send history with a send’s body', async ({ page }) => {
    await signInWithToken(page, '/notifications')
    await ready(page)
    const rows = page.getByTestId('notification-row')
    await expect(rows.first()).toBeVisible()
    await page.screenshot({ path: `${SHOTS}/notifications-summary-${project()}.png`, fullPage: true })

    await page.getByTestId('notification-filters-status').selectOption('error')
    if (!hasJs()) await page.getByTestId('notification-filters-apply').click()
    await expect(page).toHaveURL(/status=error/)
    await expect(rows.first()).toBeVisible()
    await rows.first().getByTestId('notification-resource-link').click()
    await expect(page).toHaveURL(/\/notifications\/resource\/[0-9a-f-]{36}$/)
    await ready(page)
    await page.getByTestId('send-status-error').click()
    await expect(page).toHaveURL(/\?status=error$/)
    await ready(page)
    await page.getByTestId('send-row').first().getByTestId('send-link').click()
    await expect(page.getByTestId('send-detail')).toHaveAttribute('data-status', 'error')
    await expect(page.getByTestId('send-error')).not.toBeEmpty()
    await page.screenshot({ path: `${SHOTS}/notifications-send-history-${project()}.png`, fullPage: true })
  })

  test('the top bar bell counts sends not yet seen and clears once /notifications is opened', async ({ page }) => {
    // A delivered send made now is news to the signed-in person whatever they saw before.
    const auth = { authorization: `Bearer ${E2E_TOKEN}` }
    const rules = (await (await page.request.get('/api/db/notifications?select=id&limit=1', { headers: auth })).json()) as { id: string }[]
    expect(rules.length).toBe(1)
    const sent = await page.request.post('/api/db/notification_send_history', {
      headers: auth,
      data: { notification_id: rules[0]!.id, source_event: 'check.failed', resource_id: '0190f0f0-0000-7000-8000-0000000be11e', status: 'sent' },
    })
    expect(sent.status()).toBe(201)

    await signInWithToken(page, '/health')
    await ready(page)
    const bell = page.getByTestId('notifications-bell')
    await expect(bell).toHaveAttribute('aria-label', /^Notifications, ([1-9]\d?|99\+) unread$/)
    await expect(page.getByTestId('notifications-unread')).toHaveText(/^([1-9]\d?|99\+)$/)

    await bell.click()
    await expect(page).toHaveURL(/\/notifications$/)
    await ready(page)
    await expect(bell).toHaveAttribute('aria-label', 'Notifications')
    // Back to another page (a client navigation with JavaScript, a page load without): still read.
    await page.getByTestId('sidebar').getByTestId('nav-health').click()
    await expect(page).toHaveURL(/\/health$/)
    await ready(page)
    await expect(bell).toHaveAttribute('aria-label', 'Notifications')
    await expect(page.getByTestId('notifications-unread')).toHaveCount(0)
  })
})
