import { expect, test } from './support/test.ts'
import { E2E_PORT } from '../../playwright.config.ts'
import { signInWithToken } from './support/sign-in.ts'

/**
 * The generic resource editor (spec 002 §2): canaries and incident rules written as YAML,
 * refused inline when the API rejects the spec, read-only when the UI does not own them,
 * with a job history tab. Runs with and without JavaScript against one server, so every
 * name carries the project name.
 */

const SHOTS = 'test-results/screenshots'
const project = () => test.info().project.name

function canaryYaml(name: string, checkName: string, extra = ''): string {
  return `apiVersion: canaries.flanksource.com/v1
kind: Canary
metadata:
  name: ${name}
  namespace: e2e
  labels:
    suite: resources
spec:
  schedule: "@every 5s"
  http:
    - name: ${checkName}
      url: http://127.0.0.1:${E2E_PORT}/healthz
      responseCodes: [200]${extra}
`
}

test.use({ viewport: { width: 1600, height: 1000 } })

test.describe('resource editor', () => {
  test('creates a canary from YAML, runs its checks, edits, refuses a bad spec and deletes it', { tag: '@smoke' }, async ({ page }) => {
    test.setTimeout(120_000)
    const name = `e2e-canary-${project()}`
    const checkName = `e2e-healthz-${project()}`
    await signInWithToken(page, '/settings/canaries')
    await expect(page.getByTestId('resource-list-page')).toBeVisible()
    await page.getByTestId('resource-add').click()
    await expect(page).toHaveURL(/\/settings\/canaries\/new$/)
    // A new health check starts from the grid of types; YAML is the custom one.
    await expect(page.getByTestId('check-type-grid')).toBeVisible()
    await page.getByTestId('check-type-custom').click()
    await expect(page).toHaveURL(/\/settings\/canaries\/new\?type=custom$/)

    // A YAML syntax error is shown with its line, and nothing is stored.
    await page.getByTestId('resource-yaml').fill('spec:\n  http:\n    - name: a\n   url: [oops\n')
    await page.getByTestId('resource-save').click()
    await expect(page.getByTestId('spec-error')).toContainText(/Invalid YAML at line \d+/)

    await page.getByTestId('resource-yaml').fill(canaryYaml(name, checkName))
    await page.getByTestId('resource-save').click()
    await expect(page).toHaveURL(/\/settings\/canaries\/[0-9a-f-]{36}$/)
    await expect(page.getByTestId('toast')).toContainText(`${name} created successfully`)
    const detailUrl = page.url()
    // Name and namespace are fixed once it exists.
    await expect(page.getByTestId('resource-name')).toHaveValue(name)
    await expect(page.getByTestId('resource-name')).toHaveAttribute('readonly', '')
    await expect(page.getByTestId('resource-namespace')).toHaveValue('e2e')
    await expect(page.getByTestId('resource-yaml')).toHaveValue(/kind: Canary[\s\S]*suite: resources[\s\S]*\/healthz/)

    await page.getByTestId('breadcrumb-list').click()
    await expect(page).toHaveURL(/\/settings\/canaries$/)
    const row = page.getByTestId('resource-table').locator('tr', { has: page.getByText(name, { exact: true }) })
    await expect(row).toHaveCount(1)
    await expect(row.getByTestId('resource-source')).toHaveText('UI')

    // The check engine picks the canary up by itself; its check shows on /health.
    const healthUrl = `/health?hidePassing=false&groupBy=no_grouping&query=${encodeURIComponent(checkName)}`
    await expect(async () => {
      await page.goto(healthUrl)
      await expect(page.getByTestId('check-link').filter({ hasText: checkName })).toHaveCount(1, { timeout: 1000 })
    }).toPass({ timeout: 60_000, intervals: [2000] })

    // Its runs appear in the Job History tab.
    await expect(async () => {
      await page.goto(`${detailUrl}?tab=jobs`)
      await expect(page.getByTestId('job-history-table').getByTestId('job-status').first()).toBeVisible({ timeout: 1000 })
    }).toPass({ timeout: 60_000, intervals: [2000] })
    await expect(page.getByTestId('tab-jobs')).toHaveAttribute('aria-current', 'page')
    await page.screenshot({ path: `${SHOTS}/resource-jobs-${project()}.png`, fullPage: true })

    // Edit: a bare spec is accepted too and keeps name, namespace and labels.
    await page.goto(detailUrl)
    await page.getByTestId('resource-yaml').fill(`schedule: "@every 10s"\nhttp:\n  - name: ${checkName}\n    url: http://127.0.0.1:${E2E_PORT}/healthz\n    thresholdMillis: 5000\n`)
    await page.getByTestId('resource-save').click()
    await expect(page.getByTestId('toast')).toContainText(`${name} updated successfully`)
    await expect(page.getByTestId('resource-yaml')).toHaveValue(/thresholdMillis: 5000/)
    await expect(page.getByTestId('resource-yaml')).toHaveValue(/suite: resources/)

    // A bad spec is refused by the API with the field path, next to the editor.
    await page.getByTestId('resource-yaml').fill(`http:\n  - url: http://127.0.0.1:${E2E_PORT}/healthz\n    responseCodes: [999]\n`)
    await page.getByTestId('resource-save').click()
    await expect(page.getByTestId('spec-error')).toContainText('spec.http[0]')
    await page.screenshot({ path: `${SHOTS}/resource-spec-error-${project()}.png`, fullPage: true })
    await page.goto(detailUrl)
    await expect(page.getByTestId('resource-yaml')).toHaveValue(/thresholdMillis: 5000/)

    // Renaming through the document is refused.
    await page.getByTestId('resource-yaml').fill(canaryYaml(`${name}-renamed`, checkName))
    await page.getByTestId('resource-save').click()
    await expect(page.getByTestId('spec-error')).toContainText('metadata.name: the name cannot be changed')

    // Delete asks first.
    await page.goto(detailUrl)
    await page.getByTestId('resource-delete').click()
    await expect(page.getByTestId('delete-dialog')).toContainText('Are you sure you want to delete this resource?')
    await page.getByTestId('delete-dialog-confirm').click()
    await expect(page).toHaveURL(/\/settings\/canaries$/)
    await expect(page.getByTestId('toast')).toContainText(`${name} deleted successfully`)
    await expect(page.getByTestId('resource-table').getByText(name, { exact: true })).toHaveCount(0)
    await page.goto(detailUrl)
    await expect(page.getByTestId('resource-missing')).toContainText('No resources found')
  })

  test('creates a health check from the type grid and its form, with errors on the fields', async ({ page }) => {
    const name = `e2e-form-${project()}`
    await signInWithToken(page, '/settings/canaries/new')
    await page.getByTestId('check-type-http').click()
    await expect(page).toHaveURL(/type=http$/)
    const form = page.getByTestId('check-type-form')
    await expect(form).toHaveAttribute('data-type', 'http')
    await expect(page.getByTestId('tab-form')).toHaveAttribute('aria-current', 'page')

    // Back returns to the grid.
    await page.getByTestId('check-type-back').click()
    await expect(page.getByTestId('check-type-grid')).toBeVisible()
    await page.getByTestId('check-type-http').click()

    // Wrong answers stay in place with their reasons; the schema's limits show on the field.
    await expect(form.getByTestId('check-field-url')).toHaveAttribute('required', '')
    await form.getByTestId('check-field-name').fill(name)
    await form.getByTestId('check-field-namespace').fill('e2e')
    await form.getByTestId('check-field-thresholdMillis').fill('fast')
    await form.getByTestId('check-field-responseCodes').fill('999')
    await form.getByTestId('check-form-save').click()
    if (project() === 'js') {
      await expect(form.locator('#check-field-url-error')).toHaveText('URL is required.')
      await expect(form.locator('#check-field-thresholdMillis-error')).toContainText('must be a number')
    } else {
      // The browser refuses the empty required URL itself: nothing was posted.
      expect(await form.getByTestId('check-field-url').evaluate((input: HTMLInputElement) => input.validity.valueMissing)).toBe(true)
      await expect(page).toHaveURL(/type=http$/)
      await expect(form.locator('#check-field-url-error')).toHaveCount(0)
    }
    await expect(form.getByTestId('check-field-name')).toHaveValue(name)
    await form.getByTestId('check-field-url').fill(`http://127.0.0.1:${E2E_PORT}/healthz`)
    await form.getByTestId('check-form-save').click()
    await expect(form.locator('#check-field-thresholdMillis-error')).toContainText('must be a number')
    await expect(form.locator('#check-field-url-error')).toHaveCount(0)
    await expect(form.getByTestId('check-field-thresholdMillis')).toHaveValue('fast')
    await form.getByTestId('check-field-thresholdMillis').fill('3000')
    await form.getByTestId('check-form-save').click()
    await expect(form.locator('#check-field-responseCodes-error')).toBeVisible()
    await page.screenshot({ path: `${SHOTS}/resource-check-form-${project()}.png`, fullPage: true })

    // 'Edit as YAML' carries the answers into the Code tab.
    await form.getByTestId('check-field-responseCodes').fill('200')
    await form.getByTestId('check-form-to-code').click()
    await expect(page.getByTestId('resource-yaml')).toHaveValue(new RegExp(`name: ${name}[\\s\\S]*thresholdMillis: 3000`))
    await expect(page.getByTestId('tab-code')).toHaveAttribute('aria-current', 'page')

    // Back in the form, a valid answer creates the canary.
    await page.getByTestId('tab-form').click()
    await form.getByTestId('check-field-name').fill(name)
    await form.getByTestId('check-field-namespace').fill('e2e')
    await form.getByTestId('check-field-url').fill(`http://127.0.0.1:${E2E_PORT}/healthz`)
    await form.getByTestId('check-field-responseCodes').fill('200')
    await form.getByTestId('check-form-save').click()
    await expect(page).toHaveURL(/\/settings\/canaries\/[0-9a-f-]{36}$/)
    await expect(page.getByTestId('toast')).toContainText(`${name} created successfully`)
    await expect(page.getByTestId('resource-yaml')).toHaveValue(/responseCodes:\s*- 200/)
    await page.getByTestId('resource-delete').click()
    await page.getByTestId('delete-dialog-confirm').click()
    await expect(page).toHaveURL(/\/settings\/canaries$/)
  })

  test('the YAML form refuses an empty spec before posting; Escape closes the delete dialog', async ({ page }) => {
    await signInWithToken(page, '/settings/incident_rules/new')
    if (project() === 'js') await expect(page.locator('html')).toHaveAttribute('data-hydrated', 'true')
    const yaml = page.getByTestId('resource-yaml')
    // getZodConstraint puts the schema's rule into the page as a native `required`.
    await expect(yaml).toHaveAttribute('required', '')
    await yaml.fill('')
    await page.getByTestId('resource-save').click()
    if (project() === 'js') {
      await expect(page.getByTestId('spec-error')).toHaveText('The spec is empty.')
      await expect(yaml).toHaveAttribute('aria-invalid', 'true')
    } else {
      // Without JavaScript the browser refuses it: no POST, the URL is unchanged, the field is :invalid.
      expect(await yaml.evaluate((input: HTMLTextAreaElement) => input.validity.valueMissing)).toBe(true)
      await expect(page.locator('[data-testid="resource-yaml"]:invalid')).toHaveCount(1)
      await expect(page.getByTestId('spec-error')).toHaveCount(0)
    }
    await expect(page).toHaveURL(/\/settings\/incident_rules\/new$/)

    if (project() !== 'js') return
    const name = `e2e-escape-${project()}`
    await yaml.fill(`checks:\n  - name: escape\n`)
    await page.getByTestId('resource-name').fill(name)
    await page.getByTestId('resource-save').click()
    await expect(page).toHaveURL(/\/settings\/incident_rules\/[0-9a-f-]{36}$/)
    await page.getByTestId('resource-delete').click()
    await expect(page.getByTestId('delete-dialog')).toBeVisible()
    await page.keyboard.press('Escape')
    await expect(page.getByTestId('delete-dialog')).toHaveCount(0)
    await page.getByTestId('resource-delete').click()
    await page.getByTestId('delete-dialog-confirm').click()
    await expect(page.getByTestId('toast')).toContainText(`${name} deleted successfully`)
  })

  test('the list sorts and pages through the URL; bad parameters fall back to defaults', async ({ page }) => {
    await signInWithToken(page, '/settings/canaries?sortBy=bogus&sortDesc=maybe&page=-3&pageSize=7')
    await expect(page.getByTestId('resource-table')).toBeVisible()
    await expect(page.getByTestId('resource-pagination-label')).toHaveText(/^Page 1 of \d+$/)
    await page.getByTestId('sort-name').click()
    await expect(page).toHaveURL(/sortBy=name&sortDesc=false/)
    const names = page.getByTestId('resource-table').getByTestId('resource-link')
    await expect(names.first()).toBeVisible()
    await expect(page.getByTestId('resource-table').locator('th[aria-sort="ascending"]')).toHaveText('Name')
    const ascending = await names.allTextContents()
    expect(ascending.length).toBeGreaterThan(1)
    await page.getByTestId('sort-name').click()
    await expect(page).toHaveURL(/sortBy=name&sortDesc=true/)
    await expect(names.first()).toHaveText(ascending.at(-1)!)
    // A page past the end shows the first.
    await page.goto('/settings/canaries?page=999')
    await expect(page.getByTestId('resource-pagination-label')).toHaveText(/^Page 1 of \d+$/)
    await expect(names.first()).toBeVisible()
  })

  test('demo canaries are read-only and show where they came from', async ({ page }) => {
    await signInWithToken(page, '/settings/canaries')
    const demo = page.getByTestId('resource-table').locator('tr', { has: page.getByTestId('resource-source').getByText('Demo', { exact: true }) }).first()
    await demo.getByTestId('resource-link').click()
    await expect(page).toHaveURL(/\/settings\/canaries\/[0-9a-f-]{36}$/)
    await expect(page.getByTestId('resource-page')).toHaveAttribute('data-read-only', 'true')
    await expect(page.getByTestId('source-notice')).toContainText('the demo data')
    await page.screenshot({ path: `${SHOTS}/resource-read-only-${project()}.png`, fullPage: true })
    await expect(page.getByTestId('resource-yaml')).toHaveAttribute('readonly', '')
    await expect(page.getByTestId('resource-save')).toHaveCount(0)
    await expect(page.getByTestId('resource-delete')).toHaveCount(0)
    // Asking for the delete dialog by URL does not offer it either.
    await page.goto(`${page.url()}?dialog=delete`)
    await expect(page.getByTestId('delete-dialog')).toHaveCount(0)
  })

  test('incident rules: created from YAML, bad ones refused', async ({ page }) => {
    const name = `e2e-rule-${project()}`
    await signInWithToken(page, '/settings/incident_rules')
    await page.getByTestId('resource-add').click()
    await expect(page.getByTestId('resource-namespace')).toHaveCount(0)

    await page.getByTestId('resource-yaml').fill(`apiVersion: mission-control.flanksource.com/v1\nkind: IncidentRule\nmetadata:\n  name: ${name}\nspec:\n  checks: []\n`)
    await page.getByTestId('resource-save').click()
    await expect(page.getByTestId('spec-error')).toContainText('spec.checks')
    await expect(page).toHaveURL(/\/settings\/incident_rules\/new$/)

    await page.getByTestId('resource-yaml').fill(
      `apiVersion: mission-control.flanksource.com/v1\nkind: IncidentRule\nmetadata:\n  name: ${name}\nspec:\n  checks:\n    - name: no-such-check-${project()}\n  template:\n    severity: low\n`,
    )
    await page.getByTestId('resource-save').click()
    await expect(page).toHaveURL(/\/settings\/incident_rules\/[0-9a-f-]{36}$/)
    await expect(page.getByTestId('toast')).toContainText(`${name} created successfully`)
    await expect(page.getByTestId('resource-yaml')).toHaveValue(/kind: IncidentRule[\s\S]*no-such-check/)

    // A template with a severity outside the list is refused on update as well.
    await page.getByTestId('resource-yaml').fill(`checks:\n  - name: no-such-check-${project()}\ntemplate:\n  severity: apocalyptic\n`)
    await page.getByTestId('resource-save').click()
    await expect(page.getByTestId('spec-error')).toContainText('spec.template.severity')

    // A second rule with the same name is refused on the name field.
    await page.goto('/settings/incident_rules/new')
    await page.getByTestId('resource-yaml').fill(`checks:\n  - name: x\n`)
    await page.getByTestId('resource-name').fill(name)
    await page.getByTestId('resource-save').click()
    await expect(page.getByText('already exists')).toBeVisible()

    await page.goto('/settings/incident_rules')
    await expect(page.getByTestId('resource-table').getByText(name, { exact: true })).toHaveCount(1)
  })

  test('job history details open in a modal with only the tabs that have content', async ({ page }) => {
    await signInWithToken(page, '/settings/topologies')
    // A demo topology: its runs have a reconcile summary (topologies other specs create may not).
    await page.getByTestId('resource-table').getByTestId('resource-link').filter({ hasNotText: /^e2e-/ }).first().click()
    await expect(page).toHaveURL(/\/settings\/topologies\/[0-9a-f-]{36}$/)
    await page.getByTestId('tab-jobs').click()
    await expect(page).toHaveURL(/tab=jobs/)
    const rows = page.getByTestId('job-history-table').locator('tbody tr')
    // The URL changes as the navigation starts; the rows come with its data.
    await expect(rows.first()).toBeVisible()
    expect(await rows.count()).toBeGreaterThan(0)
    await page.getByTestId('job-details-link').first().click()
    const modal = page.getByTestId('job-details')
    await expect(modal).toContainText('Details for job Topology')
    await expect(modal.getByTestId('job-tab-summary')).toHaveText('Reconcile Summary')
    await expect(modal.getByTestId('job-tab-errors')).toHaveCount(0)
    await expect(modal.getByTestId('job-summary')).toContainText('components')
    await modal.getByTestId('job-details-close').click()
    await expect(page.getByTestId('job-details')).toHaveCount(0)
    if (project() === 'js') {
      await page.getByTestId('job-details-link').first().click()
      await expect(page.getByTestId('job-details')).toBeVisible()
      await page.keyboard.press('Escape')
      await expect(page.getByTestId('job-details')).toHaveCount(0)
    }
  })

  test('unknown tables and ids', async ({ page }) => {
    await signInWithToken(page, '/settings/canaries')
    const missing = await page.goto('/settings/canaries/00000000-0000-0000-0000-00000000dead')
    expect(missing?.status()).toBe(404)
    await expect(page.getByTestId('resource-missing')).toContainText('No resources found')
    const unknown = await page.goto('/settings/no_such_table')
    expect(unknown?.status()).toBe(404)
  })
})
