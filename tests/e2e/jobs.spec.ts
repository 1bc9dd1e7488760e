import { randomUUID } from 'node:crypto'
import { expect, test, type APIRequestContext } from './support/test.ts'
import { hasJs, project, ready, screenshotAtSizes } from './support/page.ts'
import { signInWithToken } from './support/sign-in.ts'
import { E2E_TOKEN } from '../../playwright.config.ts'

/**
 * Jobs history and the event queue status (issue 18 items 2 and 3), with JavaScript on and off:
 * filters live in the URL, the details dialog is a URL (closed with Escape once JavaScript runs),
 * and retry/discard of failed events are form posts.
 */

const api = { Authorization: `Bearer ${E2E_TOKEN}`, 'Content-Type': 'application/json' }

function unique(prefix: string): string {
  return `${prefix}-${project()}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`
}

/** One row at a time: a bulk insert would null the columns a row leaves out instead of taking their defaults. */
async function insert(request: APIRequestContext, table: string, rows: Record<string, unknown>[]): Promise<void> {
  for (const row of rows) {
    const response = await request.post(`/api/db/${table}`, { headers: api, data: row })
    expect(response.status(), await response.text()).toBe(201)
  }
}

test.describe('jobs history', () => {
  test('filters in the URL, resource links and the details dialog', async ({ page, request }) => {
    const name = unique('E2EJob')
    const scraperId = randomUUID()
    await insert(request, 'job_history', [
      { name, status: 'SUCCESS', resource_type: 'config_scraper', resource_id: scraperId, duration_millis: 1200, success_count: 3, error_count: 0, details: {}, time_start: new Date().toISOString() },
      {
        name,
        status: 'FAILED',
        resource_type: 'config_scraper',
        resource_id: scraperId,
        duration_millis: 40_000,
        success_count: 0,
        error_count: 1,
        details: { errors: ['dial tcp 10.0.0.1:443: connection refused'], scrape_summary: { 'Kubernetes::Pod': { added: 4 } } },
        time_start: new Date().toISOString(),
      },
    ])

    await signInWithToken(page, '/settings/jobs')
    await ready(page)
    const filters = page.getByTestId('jobs-filters')
    await expect(filters.getByTestId('jobs-filter-status')).toHaveValue('SUCCESS')
    await expect(filters.getByTestId('jobs-filter-range')).toHaveValue('2d')

    await filters.getByTestId('jobs-filter-name').selectOption(name)
    if (!hasJs()) await filters.getByTestId('jobs-filters-apply').click()
    await expect(page).toHaveURL(new RegExp(`[?&]name=${name}`))
    const table = page.getByTestId('jobs-table')
    await expect(table.getByTestId('job-row')).toHaveCount(1)
    await expect(table.getByTestId('job-status')).toHaveText('SUCCESS')
    await expect(table.getByTestId('job-resource-link')).toHaveAttribute('href', `/catalog/scrapers/${scraperId}`)

    await page.getByTestId('jobs-filters').getByTestId('jobs-filter-status').selectOption('FAILED')
    if (!hasJs()) await page.getByTestId('jobs-filters').getByTestId('jobs-filters-apply').click()
    await expect(page).toHaveURL(/[?&]status=FAILED/)
    await expect(page).toHaveURL(new RegExp(`[?&]name=${name}`))
    await expect(table.getByTestId('job-status')).toHaveText('FAILED')
    await screenshotAtSizes(page, 'jobs', 'history')

    await table.getByTestId('job-details-link').click()
    await expect(page).toHaveURL(/[?&]job=/)
    const dialog = page.getByTestId('job-details')
    await expect(dialog.getByRole('heading')).toHaveText(`Details for job ${name}`)
    await expect(dialog.getByTestId('job-details-panel')).toContainText('connection refused')
    await expect(dialog.getByTestId('job-tab-summary')).toHaveCount(0)
    await dialog.getByTestId('job-tab-scrape').click()
    await expect(page).toHaveURL(/[?&]tab=scrape/)
    await expect(dialog.getByTestId('job-tab-scrape')).toHaveAttribute('aria-selected', 'true')
    await expect(dialog.getByTestId('job-details-panel')).toContainText('Kubernetes::Pod')
    await screenshotAtSizes(page, 'jobs', 'details')

    if (hasJs()) await page.keyboard.press('Escape')
    else await dialog.getByTestId('job-details-close').click()
    await expect(page.getByTestId('job-details')).toHaveCount(0)
    await expect(page).not.toHaveURL(/[?&]job=/)
    await expect(page).toHaveURL(/[?&]status=FAILED/)
  })
})

test.describe('event queue status', () => {
  test('shows each event name and lets an admin retry and discard failed events', async ({ page, request }) => {
    const retried = unique('e2e.retry')
    const discarded = unique('e2e.discard')
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString()
    await insert(request, 'event_queue', [
      { name: retried, event_id: randomUUID(), attempts: 10, error: 'receiver answered 500', last_attempt: new Date().toISOString(), created_at: hourAgo },
      { name: retried, event_id: randomUUID(), attempts: 0 },
      { name: discarded, event_id: randomUUID(), attempts: 3, error: 'payload names no resource', last_attempt: new Date().toISOString() },
    ])

    await signInWithToken(page, '/settings/event-queue-status')
    await ready(page)
    const retriedRow = page.locator(`[data-testid="event-row"][data-name="${retried}"]`)
    await expect(retriedRow.getByTestId('event-pending')).toHaveText('2')
    await expect(retriedRow.getByTestId('event-failed')).toHaveText('1')
    await expect(retriedRow.getByTestId('event-last-error')).toContainText('receiver answered 500')
    await screenshotAtSizes(page, 'jobs', 'event-queue')

    await retriedRow.getByTestId('event-retry').click()
    await expect(page.getByTestId('toast')).toHaveText(`1 failed ${retried} event queued again`)
    await expect(retriedRow.getByTestId('event-failed')).toHaveText('0')
    await expect(retriedRow.getByTestId('event-retry')).toHaveCount(0)

    const discardedRow = page.locator(`[data-testid="event-row"][data-name="${discarded}"]`)
    await ready(page)
    await discardedRow.getByTestId('event-discard').click()
    await expect(page.getByTestId('toast')).toHaveText(`1 failed ${discarded} event discarded`)
    await expect(discardedRow).toHaveCount(0)
  })
})
