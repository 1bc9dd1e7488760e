import { expect, test, type Page } from './support/test.ts'
import { E2E_TOKEN } from '../../playwright.config.ts'
import { signInWithToken } from './support/sign-in.ts'

const SHOTS = 'test-results/screenshots'

const hasJs = () => test.info().project.name === 'js'

/** A GET form: with JavaScript the change applies itself, without it the user presses the button. */
async function applyForm(page: Page, submitTestId: string): Promise<void> {
  if (!hasJs()) await page.getByTestId(submitTestId).click()
}

test.use({ viewport: { width: 1920, height: 1080 } })

test.describe('health dashboard', () => {
  test('lists unhealthy checks by default and every filter, grouping, tab, sort and layout works', { tag: '@smoke' }, async ({ page }) => {
    await signInWithToken(page)
    const table = page.getByTestId('health-table')
    await expect(table).toBeVisible()
    // Hide passing is on by default: only failing checks and groups that hold them.
    await expect(page.getByTestId('hide-passing')).toHaveAttribute('aria-checked', 'true')
    await expect(page.getByTestId('filters-badge')).toHaveText('1')
    const failing = Number(await page.getByTestId('health-page').getAttribute('data-total-checks'))
    expect(failing).toBeGreaterThan(0)
    await page.screenshot({ path: `${SHOTS}/health-${test.info().project.name}.png` })

    await page.getByTestId('hide-passing').click()
    await expect(page).toHaveURL(/hidePassing=false/)
    await expect(page.getByTestId('filters-badge')).toHaveCount(0)
    const all = Number(await page.getByTestId('health-page').getAttribute('data-total-checks'))
    expect(all).toBeGreaterThan(failing)

    // Group rows expand to their checks.
    const firstGroup = table.locator('tr[data-depth="0"]').first()
    await firstGroup.getByTestId('row-expander').click()
    await expect(page).toHaveURL(/expanded=/)
    await expect(table.locator('tr[data-depth="1"]').first()).toBeVisible()

    // No grouping, then sort by latency (asc, desc, removed).
    await page.getByTestId('group-by').selectOption('no_grouping')
    await applyForm(page, 'grouping-submit')
    await expect(page).toHaveURL(/groupBy=no_grouping/)
    await expect(table.getByTestId('check-link').first()).toBeVisible()
    await page.getByTestId('sort-latency').click()
    await expect(page).toHaveURL(/sortBy=latency&sortDesc=false/)
    await page.getByTestId('sort-latency').click()
    await expect(page).toHaveURL(/sortDesc=true/)
    await expect(table.locator('th[aria-sort="descending"]')).toHaveCount(1)
    await page.getByTestId('sort-latency').click()
    await expect(page).not.toHaveURL(/sortBy=/)

    // Search (debounced with JavaScript, submitted without).
    const search = page.getByTestId('health-search').locator('input[name="query"]')
    await search.fill('payments')
    await applyForm(page, 'search-submit')
    await expect(page).toHaveURL(/query=payments/)
    const totalChecks = async () => Number(await page.getByTestId('health-page').getAttribute('data-total-checks'))
    await expect.poll(totalChecks).toBeLessThan(all)
    expect(await totalChecks()).toBeGreaterThan(0)
    await page.getByTestId('search-clear').click()
    await expect(page).not.toHaveURL(/query=/)

    // Tabs by namespace: 'All' first, then namespaces alphabetically.
    const tabs = page.getByTestId('health-tab')
    await expect(tabs.first()).toHaveAttribute('data-value', 'All')
    const values = await tabs.evaluateAll((nodes) => nodes.slice(1).map((node) => node.getAttribute('data-value') ?? ''))
    expect(values).toEqual([...values].sort((a, b) => a.localeCompare(b)))
    await tabs.nth(1).click()
    await expect(page).toHaveURL(new RegExp(`tab=${encodeURIComponent(values[0]!)}`))
    await expect(tabs.nth(1)).toHaveAttribute('aria-current', 'page')

    // Tab by agent shows agent names.
    await page.getByTestId('tab-by').selectOption('agent_id')
    await applyForm(page, 'grouping-submit')
    await expect(page).toHaveURL(/tabBy=agent_id/)
    await expect(tabs.first()).toHaveAttribute('data-value', 'All')

    // A label filter: include team=payments; the badge counts it.
    await page.goto('/health?hidePassing=false&groupBy=no_grouping')
    await page.getByTestId('label-select-team').locator('summary').click()
    await page.getByTestId('label-select-team-payments-include').click()
    await expect(page).toHaveURL(/labels=/)
    await expect(page.getByTestId('filters-badge')).toHaveText('1')
    const payments = Number(await page.getByTestId('health-page').getAttribute('data-total-checks'))
    expect(payments).toBeGreaterThan(0)
    expect(payments).toBeLessThan(all)
    // A boolean label is a toggle.
    await page.getByTestId('label-toggle-critical-exclude').click()
    await expect(page.getByTestId('filters-badge')).toHaveText('2')
    await expect(page.getByTestId('label-toggle-critical')).toHaveAttribute('data-state', '-1')

    // Card layout.
    await page.getByTestId('layout-card').click()
    await expect(page).toHaveURL(/layout=card/)
    await expect(page.getByTestId('health-card').first()).toBeVisible()
  })

  test('ignores __proto__ in the label filter and shows the empty state', async ({ page }) => {
    await signInWithToken(page)
    await page.goto(`/health?labels=${encodeURIComponent('{"__proto__":1,"constructor":-1}')}`)
    await expect(page.getByTestId('health-table')).toBeVisible()
    await expect(page.getByTestId('filters-badge')).toHaveText('1')
    await page.goto('/health?query=no-such-check-anywhere')
    await expect(page.getByTestId('health-table-empty')).toHaveText('No data available')
  })

  test('check detail panel: figures, tabs, history filters and Run Now', async ({ page }) => {
    await signInWithToken(page)
    await page.goto('/health?hidePassing=false&groupBy=no_grouping')
    await page.getByTestId('check-link').first().click()
    await expect(page).toHaveURL(/checkId=.*timeRange=1h|timeRange=1h.*checkId=/)
    const panel = page.getByTestId('check-detail')
    await expect(panel).toBeVisible()
    await expect(panel.getByTestId('stat-uptime')).toBeVisible()
    await expect(panel.getByTestId('stat-p95')).toBeVisible()
    await expect(panel.getByTestId('history-table')).toBeVisible()
    await expect(panel.getByTestId('overview-graph')).toBeVisible()
    await page.screenshot({ path: `${SHOTS}/health-detail-${test.info().project.name}.png` })

    // History: a custom duration in seconds works, minutes are refused with the spec's text.
    await panel.getByTestId('history-duration').fill('5m')
    await panel.getByTestId('history-apply').click()
    await expect(panel.getByTestId('history-duration-error')).toHaveText('duration is allowed only in milli seconds & seconds')
    await panel.getByTestId('history-duration').fill('0.01s')
    await panel.getByTestId('history-status').selectOption('healthy')
    await panel.getByTestId('history-apply').click()
    await expect(page).toHaveURL(/historyStatus=healthy/)
    await expect(panel.getByTestId('history-duration-error')).toHaveCount(0)
    await expect(panel.getByTestId('history-pagination-label')).toContainText('Page 1 of')

    // Time range picker.
    await panel.getByTestId('check-time-range-button').click()
    await panel.getByTestId('check-time-range-options').getByRole('link', { name: '1 day' }).click()
    await expect(page).toHaveURL(/timeRange=1d/)

    // Screens taller than 992 px show the overview chart and no Graph tab; shorter ones the reverse.
    await expect(panel.getByTestId('check-tab-graph')).toBeHidden()
    const tall = page.viewportSize()!
    await page.setViewportSize({ width: 1280, height: 800 })
    await expect(panel.getByTestId('overview-graph')).toBeHidden()
    await panel.getByTestId('check-tab-graph').click()
    await expect(page).toHaveURL(/checkTab=graph/)
    await expect(panel.getByTestId('check-graph')).toBeVisible()
    await expect(panel.getByTestId('check-graph-status').first()).toBeAttached()
    if (hasJs()) {
      await panel.getByTestId('check-graph').locator('svg').hover({ position: { x: 300, y: 60 } })
      await expect(panel.getByTestId('check-graph-tooltip')).toBeVisible()
    }
    await page.setViewportSize(tall)
    await panel.getByTestId('check-tab-spec').click()
    await expect(panel.getByTestId('check-spec')).not.toBeEmpty()
    await panel.getByTestId('check-tab-relationships').click()
    await expect(panel.getByTestId('check-relationships')).toBeVisible()

    await panel.getByTestId('run-now').click()
    await expect(page.getByTestId('toast')).toBeVisible({ timeout: 20_000 })

    // Closing resets the range to 1h.
    await panel.getByTestId('check-detail-close').click()
    await expect(page).not.toHaveURL(/checkId=/)
    await expect(page).toHaveURL(/timeRange=1h/)
  })
})

test.describe('health board', () => {
  test('/view/health with a session shows unhealthy checks first and refreshes itself', async ({ page }) => {
    await signInWithToken(page)
    await page.goto('/view/health?refresh=60')
    await expect(page.getByTestId('health-board')).toBeVisible()
    await expect(page.locator('meta[http-equiv="refresh"]')).toHaveAttribute('content', '60')
    const statuses = await page.getByTestId('board-tile').evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-status')))
    expect(statuses.length).toBeGreaterThan(0)
    const firstHealthy = statuses.indexOf('healthy')
    expect(statuses.slice(firstHealthy).every((status) => status === 'healthy')).toBe(true)
    await page.screenshot({ path: `${SHOTS}/health-board-${test.info().project.name}.png` })
  })

  test('/view/health takes an access token in the URL and needs one otherwise', async ({ browser }) => {
    const context = await browser.newContext({ javaScriptEnabled: hasJs(), viewport: { width: 1920, height: 1080 } })
    const page = await context.newPage()
    await page.goto('/view/health')
    await expect(page).toHaveURL(/\/login\?return_to=%2Fview%2Fhealth/)
    await page.goto(`/view/health?token=${E2E_TOKEN}`)
    await expect(page.getByTestId('health-board')).toBeVisible()
    await expect(page.getByTestId('board-tile').first()).toBeVisible()
    await context.close()
  })
})

/** A check of the demo estate by name, read through the API the way any client would. */
async function getCheckId(page: Page, name: string): Promise<string> {
  const response = await page.request.get(`/api/db/checks?name=eq.${name}&select=id`, { headers: { authorization: `Bearer ${E2E_TOKEN}` } })
  expect(response.ok()).toBe(true)
  const rows = (await response.json()) as Array<{ id: string }>
  return rows[0]!.id
}

/** With JavaScript, the page is React's once html[data-hydrated] is set (app/root.tsx). */
async function waitForHydration(page: Page): Promise<void> {
  if (hasJs()) await page.locator('html[data-hydrated="true"]').waitFor({ state: 'attached' })
}

test.describe('check panel deep links', () => {
  test('a check opened from a deep link, on any tab, hydrates without an error', async ({ page }) => {
    await signInWithToken(page)
    const checkId = await getCheckId(page, 'refunds-api-health')
    const links = [
      `/health?checkId=${checkId}`,
      `/health?checkId=${checkId}&timeRange=1h&checkTab=spec`,
      `/health?checkId=${checkId}&checkTab=relationships&hidePassing=false`,
      `/health?checkId=${checkId}&checkTab=graph&timeRange=1d`,
      `/health?checkId=${checkId}&historyStatus=unhealthy&historyDuration=100ms&groupBy=no_grouping`,
      `/health?checkId=${checkId}&checkTab=no-such-tab&historyPage=oops`,
    ]
    for (const link of links) {
      await page.goto(link)
      await expect(page.getByTestId('check-detail')).toBeVisible()
      await waitForHydration(page)
      // The panel's code arrives after hydration started; give React the time to finish with it.
      await page.waitForLoadState('networkidle')
      await expect(page.getByTestId('check-title')).toContainText('refunds-api-health')
    }
  })
})
