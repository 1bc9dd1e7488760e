import { expect, test, type Page } from './support/test.ts'
import { signInWithToken } from './support/sign-in.ts'
import { hasJs, project, ready, SHOTS } from './support/page.ts'

/**
 * The catalog screens (issue 14 item 6) on the demo estate, with JavaScript and without it: the
 * summary by type, a type's filtered list, an item's header and every tab, the change feed with a
 * diff and the time-range picker, insights, Attach as Evidence through the incident link page, and
 * the scraper list and editor (type grid, a type form, the Code tab, Job History, delete).
 * Screenshots go to test-results/screenshots/catalog-*.png.
 */

test.use({ viewport: { width: 1440, height: 960 } })

async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${SHOTS}/catalog-${name}-${project()}.png`, fullPage: false })
}

/** Opens a change's or insight's folded details (a click on an open one would close it). */
async function unfold(row: ReturnType<Page['locator']>, details: string, summary: string): Promise<void> {
  if (!(await row.getByTestId(details).evaluate((element: HTMLDetailsElement) => element.open))) await row.getByTestId(summary).click()
}

/** A Deployment of the demo estate (refunds-api is the degraded one; ledger-api has image rollouts with diffs). */
async function openDeployment(page: Page, name: string): Promise<string> {
  await page.goto(`/catalog?type=Kubernetes%3A%3ADeployment&search=${name}`)
  await ready(page)
  const link = page.getByTestId('config-link').filter({ hasText: new RegExp(`^${name}$`) }).first()
  await link.click()
  await expect(page).toHaveURL(/\/catalog\/[0-9a-f-]{36}$/)
  return new URL(page.url()).pathname
}

test.describe('catalog', () => {
  test('walks the summary, a type, an item and each of its tabs', { tag: '@smoke' }, async ({ page }) => {
    test.setTimeout(120_000)
    await signInWithToken(page, '/catalog')
    await ready(page)
    const types = page.getByTestId('catalog-types-table')
    const deployments = types.locator('tr', { has: page.getByTestId('type-link').filter({ hasText: 'Kubernetes Deployment' }) })
    await expect(deployments).toHaveCount(1)
    await expect(deployments.getByTestId('type-count')).toHaveText(/^\d+$/)
    await expect(deployments.getByTestId('type-health')).toContainText('unhealthy')
    await shot(page, 'summary')

    // Drill into the type, then filter it by health: each is a URL.
    await deployments.getByTestId('type-link').click()
    await expect(page).toHaveURL(/\/catalog\?type=Kubernetes%3A%3ADeployment$/)
    await expect(page.getByTestId('catalog-type-title')).toContainText('Kubernetes Deployment')
    const rows = page.getByTestId('catalog-items-table').locator('tbody tr')
    expect(await rows.count()).toBeGreaterThan(3)
    await ready(page)
    await page.getByTestId('catalog-filters-health').selectOption('unhealthy')
    if (!hasJs()) await page.getByTestId('catalog-filters-apply').click()
    await expect(page).toHaveURL(/health=unhealthy/)
    await expect(page).toHaveURL(/type=Kubernetes%3A%3ADeployment/)
    await expect(rows.getByTestId('config-health').first()).toHaveText('unhealthy')
    // Retried until the filtered rows are in: every row left is unhealthy.
    await expect(rows.getByTestId('config-health').filter({ hasNotText: /^unhealthy$/ })).toHaveCount(0)
    // Sorting is a link too.
    await page.getByTestId('sort-updated_at').click()
    await expect(page).toHaveURL(/sortBy=updated_at/)
    await shot(page, 'type-list')

    // A label chip adds its filter; the show-deleted switch is a URL as well.
    await page.goto('/catalog?type=Kubernetes%3A%3ADeployment')
    await ready(page)
    await page.getByTestId('catalog-items-table').locator('tbody tr').first().locator('a[href*="label="]').first().click()
    await expect(page).toHaveURL(/label=/)
    await expect(page.getByTestId('active-pairs')).toBeVisible()
    await page.getByTestId('show-deleted').click()
    await expect(page).toHaveURL(/showDeleted=yes/)
    await expect(page.getByTestId('show-deleted')).toHaveText('Hide deleted')

    // The item: header with type, health, status, tags and labels; the Spec tab as JSON and YAML.
    const itemPath = await openDeployment(page, 'ledger-api')
    await expect(page.getByTestId('config-name')).toHaveText('ledger-api')
    await expect(page.getByTestId('config-type')).toContainText('Kubernetes Deployment')
    await expect(page.getByTestId('config-health')).toHaveText(/^(healthy|warning|unhealthy|unknown)$/)
    await expect(page.getByTestId('config-tags')).toContainText('cluster=')
    await expect(page.getByTestId('config-labels')).toContainText('app=ledger-api')
    const json = page.getByTestId('config-json')
    await expect(json).toContainText('"kind": "Deployment"')
    await expect(json).toContainText('"name": "ledger-api"')
    // Objects fold without JavaScript (<details>): the top level is open, deeper levels closed.
    const firstFold = json.locator('details').first()
    await expect(firstFold).toHaveAttribute('open', '')
    await shot(page, 'item-spec')
    await page.getByTestId('spec-format-yaml').click()
    await expect(page).toHaveURL(/format=yaml/)
    await expect(page.getByTestId('config-yaml')).toContainText('kind: Deployment')

    // Changes: the tab's table, a diff unfolding in place.
    await page.getByTestId('config-tab-changes').click()
    await expect(page).toHaveURL(new RegExp(`${itemPath}/changes$`))
    const changes = page.getByTestId('changes-table').locator('tbody tr')
    await expect(changes.first()).toBeVisible()
    const diffRow = changes.filter({ has: page.getByTestId('change-diff') }).first()
    await unfold(diffRow, 'change-details', 'change-summary')
    await expect(diffRow.getByTestId('change-diff')).toBeVisible()
    await expect(diffRow.getByTestId('change-diff')).toContainText('image:')
    await shot(page, 'item-changes')

    // Insights, relationships (direction and depth in the URL), playbooks, checks.
    await page.getByTestId('config-tab-insights').click()
    await expect(page).toHaveURL(new RegExp(`${itemPath}/insights$`))
    await expect(page.getByTestId('insights-table')).toBeVisible()
    await page.getByTestId('config-tab-relationships').click()
    await expect(page).toHaveURL(new RegExp(`${itemPath}/relationships$`))
    await expect(page.getByTestId('relationships-outgoing').getByTestId('related-item').first()).toBeVisible()
    await expect(page.getByTestId('relationships-incoming')).toBeVisible()
    await page.getByTestId('direction-incoming').click()
    await expect(page).toHaveURL(/direction=incoming/)
    await expect(page.getByTestId('relationships-outgoing')).toHaveCount(0)
    await page.getByTestId('depth-5').click()
    await expect(page).toHaveURL(/direction=incoming&depth=5/)
    await expect(page.getByTestId('relationships-incoming').getByTestId('related-item').first()).toBeVisible()
    await shot(page, 'item-relationships')
    await page.getByTestId('config-tab-playbooks').click()
    await expect(page.getByTestId('config-runs-table')).toBeVisible()
    await page.getByTestId('config-tab-checks').click()
    await expect(page.getByTestId('config-checks-table')).toBeVisible()

    // Old links keep working.
    await page.goto(`/configs${itemPath.replace('/catalog', '')}/changes`)
    await expect(page).toHaveURL(new RegExp(`${itemPath}/changes$`))
  })

  test('the change feed: filters, a time range, a diff, and a change attached to an incident', async ({ page }) => {
    test.setTimeout(120_000)
    await signInWithToken(page, '/catalog/changes')
    await ready(page)
    await page.getByTestId('change-filters-changeType').selectOption('diff')
    if (!hasJs()) await page.getByTestId('change-filters-apply').click()
    await expect(page).toHaveURL(/changeType=diff/)
    const rows = page.getByTestId('changes-table').locator('tbody tr')
    await expect(rows.first()).toBeVisible()
    await expect(rows.locator('td:nth-child(3)').filter({ hasNotText: /^diff$/ })).toHaveCount(0)

    // The shared time-range picker writes its range into the URL; the filter stays.
    await page.getByTestId('changes-range-button').click()
    await page.getByTestId('changes-range-quick').getByRole('link', { name: 'Last 7 days' }).click()
    await expect(page).toHaveURL(/rangeType=relative/)
    await expect(page).toHaveURL(/changeType=diff/)
    await expect(page.getByTestId('changes-range-button')).toHaveText('Last 7 days')

    const row = rows.first()
    await unfold(row, 'change-details', 'change-summary')
    await expect(row.getByTestId('change-diff')).toBeVisible()
    await shot(page, 'changes')

    // Attach as Evidence: the incident link flow's own page, carrying the change.
    const returnTo = new URL(page.url())
    await row.getByTestId('attach-evidence').click()
    await expect(page).toHaveURL(/\/incidents\/link\?type=config_change&config_change_id=[0-9a-f-]{36}/)
    const dialog = page.getByTestId('link-to-incident-dialog')
    await expect(dialog).toBeVisible()
    await ready(page)
    if (hasJs()) {
      // Escape closes the dialog back to the change feed as it was.
      await page.keyboard.press('Escape')
      await expect(page).toHaveURL((url) => `${url.pathname}${url.search}` === `${returnTo.pathname}${returnTo.search}`)
      await unfold(row, 'change-details', 'change-summary')
      await row.getByTestId('attach-evidence').click()
      await expect(dialog).toBeVisible()
      await ready(page)
    }
    const title = `Image rollout ${project()} ${Date.now()}`
    await dialog.getByTestId('link-incident-new').click()
    await dialog.getByTestId('link-incident-choose').click()
    await expect(page).toHaveURL(/incident=new/)
    await page.getByTestId('link-incident-title').fill(title)
    await page.getByTestId('link-incident-type').selectOption('availability')
    await page.getByTestId('link-incident-severity').selectOption('high')
    await page.getByTestId('link-submit').click()
    await expect(page).toHaveURL(/\/incidents\/[0-9a-f-]{36}$/)
    await expect(page.getByTestId('incident-title')).toHaveText(title)
    await expect(page.getByTestId('evidence').first()).toHaveAttribute('data-evidence-type', 'config_change')
  })

  test('an item’s changes narrowed on the change feed, insights with filters, and an insight to attach', async ({ page }) => {
    await signInWithToken(page, '/catalog')
    const itemPath = await openDeployment(page, 'refunds-api')
    await page.goto(`${itemPath}/changes`)
    await ready(page)
    await page.getByTestId('config-changes-filter').click()
    await expect(page).toHaveURL(/\/catalog\/changes\?configId=[0-9a-f-]{36}$/)
    await expect(page.getByTestId('changes-item-filter')).toContainText('refunds-api')
    await expect(page.getByTestId('change-item').first()).toBeVisible()
    await expect(page.getByTestId('change-item').locator('span.font-medium').filter({ hasNotText: /^refunds-api$/ })).toHaveCount(0)

    await page.goto('/catalog/insights')
    await ready(page)
    await page.getByTestId('insight-filters-severity').selectOption('high')
    if (!hasJs()) await page.getByTestId('insight-filters-apply').click()
    await expect(page).toHaveURL(/severity=high/)
    const insights = page.getByTestId('insights-table').locator('tbody tr')
    await expect(insights.first()).toBeVisible()
    await unfold(insights.first(), 'insight-details', 'insight-summary')
    await expect(insights.first().getByTestId('insight-message')).toBeVisible()
    await shot(page, 'insights')
    await insights.first().getByTestId('attach-evidence').click()
    await expect(page).toHaveURL(/\/incidents\/link\?type=config_analysis&config_analysis_id=[0-9a-f-]{36}/)
    await expect(page.getByTestId('link-to-incident-dialog')).toBeVisible()

    // And the item itself, from its header.
    await page.goto(itemPath)
    await ready(page)
    await page.getByTestId('attach-evidence').click()
    await expect(page).toHaveURL(/\/incidents\/link\?type=config&config_id=[0-9a-f-]{36}/)
  })

  test('scrapers: the list, a read-only scraper, and one created from a type form, edited and deleted', async ({ page }) => {
    test.setTimeout(120_000)
    await signInWithToken(page, '/catalog/scrapers')
    await ready(page)
    const table = page.getByTestId('scrapers-table')
    const kubernetes = table.locator('tr', { has: page.getByTestId('scraper-link').filter({ hasText: 'kubernetes' }) }).first()
    await expect(kubernetes).toBeVisible()
    await expect(kubernetes.getByTestId('scraper-items')).toHaveText(/^\d+$/)
    await shot(page, 'scrapers')

    // A scraper that came from Kubernetes is shown, not editable.
    await kubernetes.getByTestId('scraper-link').click()
    await expect(page.getByTestId('scraper-page')).toHaveAttribute('data-read-only', 'true')
    await expect(page.getByTestId('source-notice')).toBeVisible()
    await expect(page.getByTestId('resource-save')).toHaveCount(0)

    // New: the grid of types, then a type's form.
    await page.goto('/catalog/scrapers')
    await ready(page)
    await page.getByTestId('scraper-add').click()
    await expect(page).toHaveURL(/\/catalog\/scrapers\/new$/)
    await expect(page.getByTestId('scraper-type-grid')).toBeVisible()
    await shot(page, 'scraper-grid')
    await page.getByTestId('scraper-type-sql').click()
    await expect(page).toHaveURL(/\?type=sql$/)
    const form = page.getByTestId('scraper-type-form')
    await ready(page)
    await page.getByTestId('scraper-form-save').click()
    if (hasJs()) {
      // The server's reply, on each required field.
      await expect(form).toContainText('Connection is required.')
      await expect(form).toContainText('Query is required.')
    } else {
      // Without JavaScript the browser refuses the empty required fields: nothing was posted.
      await expect(page).toHaveURL(/\?type=sql$/)
      expect(await page.getByTestId('scraper-field-configName').evaluate((input: HTMLInputElement) => input.validity.valueMissing)).toBe(true)
    }
    const name = `e2e-sql-${project()}-${Date.now()}`
    await page.getByTestId('scraper-field-configName').fill(name)
    await page.getByTestId('scraper-field-configNamespace').fill('e2e')
    await page.getByTestId('scraper-field-connection').fill('postgres://nobody@127.0.0.1:1/none')
    await page.getByTestId('scraper-field-query').fill('SELECT 1 AS id')
    await page.getByTestId('scraper-field-type').fill('E2E::Row')
    await shot(page, 'scraper-form')
    await page.getByTestId('scraper-form-save').click()
    await expect(page).toHaveURL(/\/catalog\/scrapers\/[0-9a-f-]{36}$/)
    await expect(page.getByTestId('toast')).toContainText(`${name} created successfully`)
    const scraperUrl = new URL(page.url()).pathname
    await expect(page.getByTestId('scraper-page')).toHaveAttribute('data-read-only', 'false')
    await expect(page.getByTestId('resource-yaml')).toHaveValue(/kind: ScrapeConfig[\s\S]*sql:[\s\S]*SELECT 1 AS id/)

    // The Code tab saves an edit; Job History lists the runs.
    const yaml = await page.getByTestId('resource-yaml').inputValue()
    await page.getByTestId('resource-yaml').fill(yaml.replace('E2E::Row', 'E2E::Edited'))
    await ready(page)
    await page.getByTestId('resource-save').click()
    await expect(page.getByTestId('toast')).toContainText('updated successfully')
    await expect(page.getByTestId('resource-yaml')).toHaveValue(/E2E::Edited/)
    await page.getByRole('link', { name: 'Job History' }).click()
    await expect(page).toHaveURL(/tab=jobs/)
    await expect(page.getByTestId('job-history')).toBeVisible()

    // Delete asks first; with JavaScript Escape closes the question.
    await page.goto(scraperUrl)
    await ready(page)
    await page.getByTestId('resource-delete').click()
    const confirm = page.getByTestId('delete-dialog')
    await expect(confirm).toContainText('Are you sure you want to delete this resource?')
    if (hasJs()) {
      await page.keyboard.press('Escape')
      await expect(confirm).toHaveCount(0)
      await expect(page).toHaveURL(new RegExp(`${scraperUrl}$`))
      await page.getByTestId('resource-delete').click()
    }
    await page.getByTestId('delete-dialog-confirm').click()
    await expect(page).toHaveURL(/\/catalog\/scrapers$/)
    await expect(page.getByTestId('toast')).toContainText(`${name} deleted successfully`)
    await expect(page.getByTestId('scraper-link').filter({ hasText: name })).toHaveCount(0)
  })
})
