import { expect, test } from './support/test.ts'
import { E2E_TOKEN } from '../../playwright.config.ts'
import { signInWithToken } from './support/sign-in.ts'

const ROUTES = [
  '/topology',
  '/health',
  '/incidents',
  '/catalog',
  '/catalog/changes',
  '/catalog/insights',
  '/catalog/scrapers',
  '/logs',
  '/playbooks',
  '/playbooks/runs',
  '/applications',
  '/notifications',
  '/notifications/rules',
  '/notifications/silences',
  '/notifications/silences/add',
  '/settings/connections',
  '/settings/permissions',
  '/settings/users',
  '/settings/jobs',
  '/settings/feature-flags',
  '/settings/event-queue-status',
  '/settings/agents',
  '/settings/tokens',
  '/settings/integrations',
  '/settings/views',
  '/settings/log-backends',
  '/settings/canaries',
]

test.describe('console shell', () => {
  test('sends an anonymous visitor to sign in and back to the page they wanted', async ({ page }) => {
    await page.goto('/incidents?status=open')
    await expect(page).toHaveURL(/\/login\?return_to=%2Fincidents%3Fstatus%3Dopen/)
    await expect(page.getByRole('heading', { name: 'Sign In to your account' })).toBeVisible()
    await page.getByTestId('token-sign-in-link').click()
    await expect(page).toHaveURL(/\/login\/token\?return_to=%2Fincidents%3Fstatus%3Dopen/)

    await page.getByTestId('login-form').locator('input[name="token"]').fill('not-the-token')
    await page.getByTestId('login-form').locator('button[type="submit"]').click()
    await expect(page.getByTestId('login-form')).toContainText('Invalid access token')

    await page.getByTestId('login-form').locator('input[name="token"]').fill(E2E_TOKEN)
    await page.getByTestId('login-form').locator('button[type="submit"]').click()
    await expect(page).toHaveURL(/\/incidents\?status=open$/)
    await expect(page.getByTestId('page-title')).toHaveText(/Incidents/)
  })

  test('renders the layout: sidebar, top bar, redirects and 404', async ({ page }, testInfo) => {
    const problems: string[] = []
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text())
    })
    page.on('pageerror', (error) => problems.push(error.message))
    await signInWithToken(page)
    const sidebar = page.getByTestId('sidebar')
    for (const name of ['dashboard', 'health', 'incidents', 'catalog', 'logs', 'playbooks', 'applications']) {
      await expect(sidebar.getByTestId(`nav-${name}`)).toBeVisible()
    }
    await expect(page.getByTestId('topbar')).toBeVisible()
    await expect(page.getByTestId('notifications-bell')).toHaveAttribute('href', '/notifications')
    await expect(page.getByTestId('refresh')).toBeVisible()
    await page.screenshot({ path: testInfo.outputPath('shell.png'), fullPage: true })

    await page.goto('/')
    await expect(page).toHaveURL(/\/topology$/)
    await page.goto('/configs')
    await expect(page).toHaveURL(/\/catalog$/)

    const missing = await page.goto('/no/such/page')
    expect(missing?.status()).toBe(404)
    await expect(page.getByTestId('not-found')).toBeVisible()
    // The production CSP (nonce + strict-dynamic) must let the console's own scripts run.
    expect(problems.filter((text) => /Content Security Policy|Refused to (execute|load)/i.test(text))).toEqual([])
  })

  test('every route of the route map renders inside the shell', { tag: '@smoke' }, async ({ page }) => {
    // One navigation per route of the map: give the whole walk time on a busy machine.
    test.setTimeout(180_000)
    await signInWithToken(page)
    for (const route of ROUTES) {
      const response = await page.goto(route)
      expect(response?.status(), route).toBe(200)
      await expect(page.getByTestId('page-title'), route).toBeVisible()
      await expect(page.getByTestId('error-view'), route).toHaveCount(0)
    }
  })

  test('keeps the sidebar collapsed across reloads', async ({ page }) => {
    await signInWithToken(page)
    const sidebar = page.getByTestId('sidebar')
    const expandedWidth = (await sidebar.boundingBox())!.width
    await page.getByTestId('sidebar-toggle').click()
    await expect.poll(async () => (await sidebar.boundingBox())!.width).toBeLessThan(expandedWidth)
    await page.reload()
    expect((await page.getByTestId('sidebar').boundingBox())!.width).toBeLessThan(expandedWidth)
    await page.getByTestId('sidebar-toggle').click()
    await expect.poll(async () => (await page.getByTestId('sidebar').boundingBox())!.width).toBe(expandedWidth)
  })

  test('hides a feature disabled by a property, and its settings children', async ({ page, request }) => {
    const headers = { Authorization: `Bearer ${E2E_TOKEN}`, 'Content-Type': 'application/json' }
    // Upsert: the demo estate may already list the flag as 'false'.
    const set = (value: string) =>
      request.post('/api/db/properties?on_conflict=name', {
        headers: { ...headers, Prefer: 'resolution=merge-duplicates' },
        data: { name: 'incidents.disable', value },
      })
    expect((await set('true')).status()).toBe(201)
    try {
      await signInWithToken(page)
      await expect(page.getByTestId('nav-incidents')).toHaveCount(0)
      await expect(page.getByTestId('nav-health')).toBeVisible()
      const disabled = await page.goto('/incidents')
      expect(disabled?.status()).toBe(404)
    } finally {
      expect((await set('false')).status()).toBe(201)
    }
  })

  test('signs out back to the sign-in page', async ({ page }) => {
    await signInWithToken(page, '/catalog')
    await page.getByTestId('user-menu').locator('summary').click()
    await page.getByTestId('sign-out').click()
    await expect(page).toHaveURL(/\/login/)
    await page.goto('/health')
    await expect(page).toHaveURL(/\/login\?return_to=%2Fhealth/)
  })
})

test.describe('API through the browser-facing gateway', () => {
  test('serves demo checks with the bootstrap token and 401 JSON without it', async ({ request }) => {
    const checks = await request.get('/api/db/checks?select=id,name,namespace&deleted_at=is.null', {
      headers: { Authorization: `Bearer ${E2E_TOKEN}` },
    })
    expect(checks.status()).toBe(200)
    const rows = (await checks.json()) as { namespace: string }[]
    expect(rows.length).toBeGreaterThanOrEqual(50)
    expect(new Set(rows.map((row) => row.namespace)).size).toBeGreaterThanOrEqual(4)

    const anonymous = await request.get('/api/db/checks')
    expect(anonymous.status()).toBe(401)
    expect(await anonymous.json()).toEqual({ error: 'unauthorized', message: 'Not logged in' })
  })
})
