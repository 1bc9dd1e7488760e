import { expect, test, type Page } from './support/test.ts'
import { E2E_PORT, E2E_TOKEN } from '../../playwright.config.ts'
import { signInWithToken } from './support/sign-in.ts'

const SHOTS = 'test-results/screenshots'

const hasJs = () => test.info().project.name === 'js'

/** A GET form: with JavaScript the change applies itself, without it the user presses the button. */
async function applyForm(page: Page, submitTestId: string): Promise<void> {
  if (!hasJs()) await page.getByTestId(submitTestId).click()
}

/** The custom duration applies on Enter with JavaScript, by the Apply button without. */
async function applyCustomDuration(page: Page): Promise<void> {
  if (hasJs()) await page.getByTestId('history-duration-custom').press('Enter')
  else await page.getByTestId('history-apply').click()
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
    await panel.getByTestId('history-duration').selectOption('custom')
    await panel.getByTestId('history-duration-custom').fill('5m')
    await applyCustomDuration(page)
    await expect(panel.getByTestId('history-duration-error')).toHaveText('duration is allowed only in milli seconds & seconds')
    await panel.getByTestId('history-duration-custom').fill('0.01s')
    await applyCustomDuration(page)
    await expect(panel.getByTestId('history-duration-error')).toHaveCount(0)
    await panel.getByTestId('history-status').selectOption('healthy')
    await applyForm(page, 'history-apply')
    await expect(page).toHaveURL(/historyStatus=healthy/)
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

  test('the kiosk views ship no JavaScript: no script, no modulepreload, no inlined loader data', async ({ page }) => {
    await signInWithToken(page)
    const roots = await page.request.get('/api/db/components?select=id&name=eq.Platform&parent_id=is.null', { headers: { authorization: `Bearer ${E2E_TOKEN}` } })
    const [platform] = (await roots.json()) as { id: string }[]
    expect(platform).toBeDefined()
    for (const url of ['/view/health?refresh=60', `/view/topology/${platform!.id}`]) {
      const response = await page.request.get(url)
      expect(response.status()).toBe(200)
      const html = await response.text()
      expect(html).toContain('<body')
      expect(html).not.toMatch(/<script/i)
      expect(html).not.toMatch(/modulepreload/i)
      expect(html).not.toContain('__remixContext')
      await page.goto(url)
      await expect(page.locator('script')).toHaveCount(0)
      await expect(page.locator('link[rel="modulepreload"]')).toHaveCount(0)
      // Nothing hydrates the page (app/root.tsx marks a hydrated document).
      await expect(page.locator('html[data-hydrated]')).toHaveCount(0)
    }
    // Without JavaScript the board still reloads itself.
    await page.goto('/view/health?refresh=60')
    await expect(page.locator('meta[http-equiv="refresh"]')).toHaveAttribute('content', '60')
    await expect(page.getByTestId('board-tile').first()).toBeVisible()
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

test.describe('check panel', () => {
  test('Escape closes the panel and focus returns to the check link that opened it', async ({ page }) => {
    await signInWithToken(page)
    await page.goto('/health?hidePassing=false&groupBy=no_grouping&query=refunds-api-health')
    await waitForHydration(page)
    const link = page.getByTestId('check-link').filter({ hasText: 'refunds-api-health' })
    const checkId = await link.getAttribute('data-check-id')
    await link.click()
    await expect(page.getByTestId('check-detail')).toBeVisible()
    await expect(page).toHaveURL(new RegExp(`checkId=${checkId}`))
    if (hasJs()) {
      await page.keyboard.press('Escape')
      await expect(page.getByTestId('check-detail')).toHaveCount(0)
      await expect(page).not.toHaveURL(/checkId=/)
      await expect(page.locator(`[data-testid="check-link"][data-check-id="${checkId}"]`)).toBeFocused()
    } else {
      // Without JavaScript the close button is the way out (a link back to the list).
      await page.getByTestId('check-detail-close').click()
      await expect(page.getByTestId('check-detail')).toHaveCount(0)
      await expect(page).not.toHaveURL(/checkId=/)
    }
  })

  test('shows the labels the list filters by: the canary labels merged with the check labels', async ({ page }) => {
    await signInWithToken(page)
    // cert-manager-webhook has only critical=false itself; its canary says team=platform, critical=true.
    const labels = encodeURIComponent(JSON.stringify({ 'canary:team:platform': 1 }))
    await page.goto(`/health?hidePassing=false&groupBy=no_grouping&labels=${labels}&query=cert-manager-webhook`)
    await page.getByTestId('check-link').filter({ hasText: 'cert-manager-webhook' }).click()
    const shown = page.getByTestId('check-detail').getByTestId('check-labels')
    await expect(shown).toContainText('team: platform')
    await expect(shown).toContainText('tier: infrastructure')
    await expect(shown).toContainText('critical: false')
    await expect(shown).not.toContainText('critical: true')
  })

  test('next run is never in the past: a time ahead for a scheduled check, "not scheduled" for demo data', async ({ page }) => {
    test.setTimeout(90_000)
    await signInWithToken(page)
    const demoId = await getCheckId(page, 'refunds-api-health')
    await page.goto(`/health?checkId=${demoId}`)
    await expect(page.getByTestId('stat-next-run')).toContainText('not scheduled')

    // A canary this server runs, hourly: after its first run the next one is about an hour ahead.
    const name = `e2e-next-run-${test.info().project.name}`
    const created = await page.request.post('/api/canary/api/canaries', {
      headers: { authorization: `Bearer ${E2E_TOKEN}` },
      data: {
        apiVersion: 'canaries.flanksource.com/v1',
        kind: 'Canary',
        metadata: { name, namespace: 'e2e' },
        spec: { schedule: '@every 1h', http: [{ name, url: `http://127.0.0.1:${E2E_PORT}/healthz`, responseCodes: [200] }] },
      },
    })
    expect(created.ok()).toBe(true)
    let checkId = ''
    await expect(async () => {
      const response = await page.request.get(`/api/db/checks?name=eq.${name}&select=id,last_runtime`, { headers: { authorization: `Bearer ${E2E_TOKEN}` } })
      const rows = (await response.json()) as Array<{ id: string; last_runtime: string | null }>
      expect(rows[0]?.last_runtime).toBeTruthy()
      checkId = rows[0]!.id
    }).toPass({ timeout: 60_000, intervals: [1000] })
    await page.goto(`/health?checkId=${checkId}`)
    const nextRun = page.getByTestId('stat-next-run').locator('[data-next-run]')
    await expect(nextRun).toHaveAttribute('data-next-run', 'at')
    await expect(nextRun).toHaveText(/^in \d+[smh]$/)
    const at = Date.parse((await nextRun.getAttribute('datetime'))!)
    expect(at).toBeGreaterThan(Date.now())
    expect(at).toBeLessThanOrEqual(Date.now() + 3_600_000 + 60_000)
  })

  test('history filters: the spec presets and a custom value, applied at once with JavaScript', async ({ page }) => {
    await signInWithToken(page)
    const checkId = await getCheckId(page, 'refunds-api-health')
    await page.goto(`/health?checkId=${checkId}&timeRange=1d`)
    await waitForHydration(page)
    const panel = page.getByTestId('check-detail')
    const duration = panel.getByTestId('history-duration')
    const options = await duration.locator('option').evaluateAll((nodes) => nodes.map((node) => node.textContent))
    expect(options).toEqual(['All', '100ms', '500ms', '1s', '5s', '10s', '30s', 'Custom'])
    // The custom field shows only while Custom is chosen (CSS, so also without JavaScript).
    await expect(panel.getByTestId('history-duration-custom')).toBeHidden()
    // With JavaScript there is no Apply button: a change applies at once.
    await expect(panel.getByTestId('history-apply')).toHaveCount(hasJs() ? 0 : 1)

    await duration.selectOption('1s')
    await applyForm(page, 'history-apply')
    await expect(page).toHaveURL(/historyDuration=1s/)
    await expect(panel.getByTestId('history-duration')).toHaveValue('1s')
    await panel.getByTestId('history-status').selectOption('unhealthy')
    await applyForm(page, 'history-apply')
    await expect(page).toHaveURL(/historyStatus=unhealthy/)
    await expect(page).toHaveURL(/historyDuration=1s/)

    await panel.getByTestId('history-duration').selectOption('custom')
    await expect(panel.getByTestId('history-duration-custom')).toBeVisible()
    await panel.getByTestId('history-duration-custom').fill('250ms')
    await applyCustomDuration(page)
    await expect(page).toHaveURL(hasJs() ? /historyDuration=250ms/ : /historyDurationCustom=250ms/)
    await expect(panel.getByTestId('history-duration')).toHaveValue('custom')
    await expect(panel.getByTestId('history-duration-custom')).toHaveValue('250ms')
    await expect(panel.getByTestId('history-duration-error')).toHaveCount(0)
    await expect(panel.getByTestId('history-table')).toBeVisible()

    await panel.getByTestId('history-duration').selectOption('')
    await applyForm(page, 'history-apply')
    await expect(page).not.toHaveURL(/historyDuration=(?!&|$)/)
    await expect(panel.getByTestId('history-duration-custom')).toBeHidden()
  })
})

test.describe('health toolbar', () => {
  test.use({ viewport: { width: 1280, height: 800 } })

  test('at 1280 px the toolbar controls (and the no-JS Apply/Search buttons) neither overlap nor overflow', async ({ page }) => {
    await signInWithToken(page)
    await waitForHydration(page)
    const toolbar = page.getByTestId('health-toolbar')
    await expect(toolbar).toBeVisible()
    const ids = ['health-search', 'group-by', 'tab-by', 'layout-table', 'layout-card', ...(hasJs() ? [] : ['search-submit', 'grouping-submit'])]
    const boxes = await Promise.all(ids.map(async (id) => ({ id, box: (await toolbar.getByTestId(id).boundingBox())! })))
    const bar = (await toolbar.boundingBox())!
    for (const { id, box } of boxes) {
      expect(box, id).not.toBeNull()
      expect(box.x + box.width, `${id} stays inside the toolbar`).toBeLessThanOrEqual(bar.x + bar.width + 0.5)
    }
    const overlaps = (a: { x: number; y: number; width: number; height: number }, b: typeof a) =>
      a.x < b.x + b.width - 0.5 && b.x < a.x + a.width - 0.5 && a.y < b.y + b.height - 0.5 && b.y < a.y + a.height - 0.5
    const controls = boxes.filter(({ id }) => id !== 'health-search')
    for (const [index, a] of controls.entries()) for (const b of controls.slice(index + 1)) expect(overlaps(a.box, b.box), `${a.id} / ${b.id}`).toBe(false)
    // The search field keeps its button beside it, and a label never wraps inside a control.
    const input = (await toolbar.locator('input[name="query"]').boundingBox())!
    if (!hasJs()) {
      const submit = boxes.find(({ id }) => id === 'search-submit')!.box
      expect(Math.abs(submit.y + submit.height / 2 - (input.y + input.height / 2))).toBeLessThan(4)
      expect(submit.x).toBeGreaterThanOrEqual(input.x + input.width)
    }
    expect(input.width).toBeGreaterThanOrEqual(200)
    for (const id of ['group-by', 'tab-by']) {
      const label = (await toolbar.getByTestId(id).locator('xpath=..').boundingBox())!
      expect(label.height, `${id} label on one line`).toBeLessThan(44)
    }
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true)
    await page.screenshot({ path: `${SHOTS}/health-toolbar-1280-${hasJs() ? 'js' : 'nojs'}.png` })
  })
})
