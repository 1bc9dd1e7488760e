import { expect, test, type APIRequestContext } from './support/test.ts'
import { project, ready, screenshotAtSizes } from './support/page.ts'
import { signInWithToken } from './support/sign-in.ts'
import { E2E_TOKEN } from '../../playwright.config.ts'

/**
 * /applications and an application's audit report (issue 18 item 6), with JavaScript on and off:
 * the list links to the report, the range lives in the URL, and "Print / PDF" opens the report
 * without the console's chrome for the browser's Print → PDF.
 */

const api = { Authorization: `Bearer ${E2E_TOKEN}`, 'Content-Type': 'application/json', Prefer: 'return=representation' }

const unique = (prefix: string) => `${prefix}-${project()}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`

async function insert(request: APIRequestContext, table: string, row: Record<string, unknown>): Promise<string> {
  const response = await request.post(`/api/db/${table}`, { headers: api, data: row })
  expect(response.status(), await response.text()).toBe(201)
  const [created] = (await response.json()) as Array<{ id: string }>
  return created!.id
}

test.describe('applications', () => {
  test('list, audit report with a range, print view @smoke', async ({ page, request }) => {
    const app = unique('shop')
    const db = await insert(request, 'config_items', { name: `${app}-db`, type: 'Postgres::Database', config_class: 'Database', tags: { app }, health: 'healthy', status: 'Running' })
    const web = await insert(request, 'config_items', { name: `${app}-web`, type: 'Kubernetes::Deployment', config_class: 'Deployment', tags: { app }, health: 'warning', status: 'Running' })
    const day = 24 * 3600_000
    await insert(request, 'config_changes', { config_id: db, change_type: 'BackupCompleted', severity: 'info', summary: 'nightly backup', source: 'e2e', created_at: new Date(Date.now() - day).toISOString() })
    await insert(request, 'config_changes', { config_id: web, change_type: 'ScalingReplicaSet', severity: 'low', summary: 'replicas 2 → 3', source: 'e2e', created_at: new Date(Date.now() - 2 * day).toISOString() })
    await insert(request, 'config_changes', { config_id: db, change_type: 'ScalingReplicaSet', severity: 'low', summary: 'an old change', source: 'e2e', created_at: new Date(Date.now() - 45 * day).toISOString() })
    await insert(request, 'config_analysis', { config_id: db, analyzer: 'pg-tuning', analysis_type: 'performance', severity: 'medium', summary: 'shared_buffers too small', status: 'open' })
    await insert(request, 'applications', { name: app, namespace: 'e2e', description: 'The shop, end to end', spec: { selectors: [{ tagSelector: `app=${app}` }] }, labels: { team: 'payments' }, source: 'UI' })

    await signInWithToken(page, `/applications?search=${app}`)
    await ready(page)
    const row = page.getByTestId('application-row').filter({ hasText: app })
    await expect(row).toHaveCount(1)
    await screenshotAtSizes(page, 'applications', 'list')

    await row.getByTestId('application-link').click()
    await expect(page).toHaveURL(new RegExp(`/applications/e2e/${app}$`))
    await ready(page)
    const report = page.getByTestId('application-report')
    await expect(report.getByTestId('application-title')).toContainText(app)
    await expect(report.getByTestId('report-config')).toHaveCount(2)
    await expect(report.getByTestId('report-backup')).toContainText(['nightly backup'])
    await expect(report.getByTestId('report-insight')).toContainText(['shared_buffers too small'])
    await expect(report.getByTestId('report-change')).toHaveCount(2)
    for (const section of ['configs', 'access', 'backups', 'incidents', 'insights', 'changes']) await expect(report.getByTestId(`report-section-${section}`)).toBeVisible()
    await screenshotAtSizes(page, 'applications', 'report')

    // A wider range is a link: the older change joins the list.
    await page.getByTestId('report-range-90d').click()
    await expect(page).toHaveURL(/range=90d/)
    await expect(report.getByTestId('report-change')).toHaveCount(3)
    await expect(page.getByTestId('report-range-90d')).toHaveAttribute('aria-current', 'page')

    // Print / PDF: the same report, no sidebar, no scripts.
    await page.getByTestId('report-print').click()
    await expect(page).toHaveURL(new RegExp(`/applications/e2e/${app}/print\\?range=90d$`))
    await expect(page.getByTestId('application-print')).toBeVisible()
    await expect(page.getByTestId('sidebar')).toHaveCount(0)
    await expect(page.locator('script[src]')).toHaveCount(0)
    await expect(page.getByTestId('report-change')).toHaveCount(3)
    await page.emulateMedia({ media: 'print' })
    await screenshotAtSizes(page, 'applications', 'print')
    await page.emulateMedia({ media: 'screen' })
  })

  test.describe('not found', () => {
    test.use({ allowedConsoleErrors: [/status of 404/] })
    test('an unknown application answers not found', async ({ page }) => {
      await signInWithToken(page, '/applications/e2e/does-not-exist')
      await expect(page.getByRole('heading', { name: "We can't find this page" })).toBeVisible()
    })
  })
})
