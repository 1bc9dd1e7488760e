import { expect, test, type Page } from './support/test.ts'
import { E2E_TOKEN } from '../../playwright.config.ts'
import { formatDateTime, type DateTimeFormat } from '../../app/lib/format.ts'
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

const SCREENSHOTS = 'test-results/screenshots'
const isJs = () => test.info().project.name === 'js'

/** With JavaScript, waits until React owns the page (root.tsx sets the marker). */
async function settle(page: Page): Promise<void> {
  if (isJs()) await page.waitForFunction(() => document.documentElement.dataset.hydrated === 'true')
}

/** What the console must show for a `<time>` element, given the format and zone in force. */
async function expectDatesIn(page: Page, format: DateTimeFormat, timeZone: string): Promise<void> {
  const first = page.getByTestId('incident-created').first()
  await expect(first).toBeVisible()
  const iso = (await first.getAttribute('datetime'))!
  // 'short' is relative to the render's now; the others do not depend on it.
  const expected = formatDateTime(iso, format, new Date(), timeZone)
  if (format === 'short') await expect(first).toHaveText(/ago$|^just now$/)
  else await expect(first).toHaveText(expected)
  await expect(first).toHaveAttribute('title', `${formatDateTime(iso, 'timestamp', new Date(), timeZone)} ${timeZone}`)
}

test.describe('top bar: version line, Help and Preferences (issue 12 items 8 and 9)', () => {
  // 'Browser' (the default zone) then means UTC whatever the machine's zone is.
  test.use({ timezoneId: 'UTC' })

  test('the user menu states both versions: Lookout with the compatible console, and the backend', async ({ page, request }) => {
    await signInWithToken(page, '/incidents')
    await settle(page)
    const about = (await (await request.get('/api/about', { headers: { Authorization: `Bearer ${E2E_TOKEN}` } })).json()) as { appVersion: string }
    await page.getByTestId('user-menu').locator('summary').click()
    const line = page.getByTestId('version-line')
    await expect(line).toBeVisible()
    await expect(line).toHaveText(new RegExp(`^Frontend: \\d+\\.\\d+\\.\\d+ \\(compatible with 1\\.4\\.48\\), Backend: ${about.appVersion.replace(/\./g, '\\.')}$`))
  })

  test('the Help menu has one item, Docs, to the documentation site', async ({ page }) => {
    await signInWithToken(page, '/incidents')
    await settle(page)
    await page.getByTestId('help-menu').locator('summary').click()
    const docs = page.getByTestId('help-docs')
    await expect(docs).toBeVisible()
    await expect(docs).toHaveText('Docs')
    await expect(docs).toHaveAttribute('href', 'https://docs.flanksource.com/')
    await expect(docs).toHaveAttribute('target', '_blank')
    await expect(page.getByTestId('help-menu').locator('a')).toHaveCount(1)
    await page.screenshot({ path: `${SCREENSHOTS}/help-menu.png` })
  })

  test('preferences: format and timezone change every date, persist, and work without JavaScript', async ({ page }) => {
    await signInWithToken(page, '/incidents')
    await settle(page)
    await expectDatesIn(page, 'timestamp', 'UTC')

    await page.getByTestId('preferences-button').click()
    await expect(page).toHaveURL(/[?&]preferences=open/)
    const panel = page.getByTestId('preferences-panel')
    await expect(panel).toBeVisible()
    await expect(panel.getByRole('heading', { name: 'Preferences' })).toBeVisible()
    await expect(panel.getByText('Show hidden components')).toBeVisible()
    await expect(panel.getByText('Show deleted configs')).toBeVisible()
    await expect(page.getByTestId('pref-card-width')).toHaveAttribute('min', '250')
    await expect(page.getByTestId('pref-card-width')).toHaveAttribute('max', '768')
    await expect(page.getByTestId('pref-card-width')).toHaveValue('554')
    await expect(page.getByTestId('pref-format-timestamp')).toBeChecked()
    const zones = page.getByTestId('pref-time-zone').locator('option')
    await expect(zones.first()).toHaveAttribute('value', 'Browser')
    expect(await zones.count()).toBeGreaterThan(300)
    await page.screenshot({ path: `${SCREENSHOTS}/preferences-panel.png` })

    await page.getByTestId('pref-format-full').check()
    await page.getByTestId('pref-time-zone').selectOption('Asia/Tokyo')
    if (isJs()) {
      // Applied at once: the panel stays open and the dates behind it change.
      await expect(page.getByTestId('pref-dates-in')).toHaveText('Dates are shown in Asia/Tokyo.')
      await expect(page.getByTestId('preferences-save')).toHaveCount(0)
    } else {
      await page.getByTestId('preferences-save').click()
      await expect(page).not.toHaveURL(/preferences=open/)
      await expect(page).toHaveURL(/\/incidents$/)
    }
    await expectDatesIn(page, 'full', 'Asia/Tokyo')

    await page.reload()
    await settle(page)
    await expectDatesIn(page, 'full', 'Asia/Tokyo')

    // Closing: the close link without JavaScript; with it Escape too, focus back on the button.
    if (isJs()) {
      // The hydrated panel stayed open while it saved, so the reloaded URL still opens it.
      await expect(page).toHaveURL(/[?&]preferences=open/)
      // Focused once the lazily loaded panel has hydrated and listens for Escape.
      await expect(page.getByTestId('preferences-panel')).toBeFocused()
      await page.keyboard.press('Escape')
      await expect(page.getByTestId('preferences-panel')).toHaveCount(0)
      await expect(page).not.toHaveURL(/preferences=open/)
      await expect(page.getByTestId('preferences-button')).toBeFocused()
    } else {
      await page.getByTestId('preferences-button').click()
      await page.getByTestId('preferences-close').click()
      await expect(page.getByTestId('preferences-panel')).toHaveCount(0)
      await expect(page).toHaveURL(/\/incidents$/)
    }
  })
})

test('a hand-made preferences post with a value no control offers gets a 400 naming it', async ({ page }) => {
  await signInWithToken(page, '/incidents')
  const response = await page.request.post('/resources/preferences', {
    form: { cardWidth: '1000', dateTimeFormat: 'weekly', timeZone: 'Nowhere/Else' },
    headers: { Origin: new URL(page.url()).origin },
    maxRedirects: 0,
  })
  expect(response.status()).toBe(400)
  const body = JSON.stringify(await response.json())
  expect(body).toContain('Card width is at most 768')
  expect(body).toContain('Unknown timezone')
})

test.describe("'Browser' timezone", () => {
  test.use({ timezoneId: 'Asia/Kolkata' })

  test("shows dates in the browser's zone once JavaScript reports it, UTC without JavaScript", async ({ page }) => {
    await signInWithToken(page, '/incidents')
    await settle(page)
    // Chromium names the zone by its legacy alias (Asia/Calcutta); the console shows what it reports.
    const reported = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone)
    expect(['Asia/Kolkata', 'Asia/Calcutta']).toContain(reported)
    await expectDatesIn(page, 'timestamp', isJs() ? reported : 'UTC')
    if (isJs()) {
      // The next server render already knows the zone: no flash of UTC.
      await page.reload()
      await expectDatesIn(page, 'timestamp', reported)
    }
  })
})

const NARROW_PAGES = ['/health', '/incidents', '/settings/users']

test.describe('layout below 1024 px (issue 12 item 15)', () => {
  test('at 800 px the sidebar is a rail, nothing scrolls sideways and the top bar fits', async ({ page }) => {
    await page.setViewportSize({ width: 800, height: 900 })
    await signInWithToken(page, '/health')
    for (const path of NARROW_PAGES) {
      await page.goto(path)
      await settle(page)
      await expect(page.getByTestId('page-title')).toBeVisible()
      const sidebar = (await page.getByTestId('sidebar').boundingBox())!
      expect(sidebar.width, path).toBeLessThanOrEqual(57)
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
      expect(overflow, `${path} scrolls sideways by ${overflow}px`).toBeLessThanOrEqual(0)
      for (const id of ['refresh', 'notifications-bell', 'preferences-button', 'help-menu', 'user-menu']) {
        const box = (await page.getByTestId(id).boundingBox())!
        expect(box.x + box.width, `${id} on ${path}`).toBeLessThanOrEqual(800)
      }
      // The settings group is closed: nothing covers the page until it is asked for.
      await expect(page.getByTestId('nav-settings-menu')).toBeHidden()
      await page.screenshot({ path: `${SCREENSHOTS}/narrow-800-${path.slice(1).replace(/\//g, '-')}.png` })
    }
  })

  test('at 1000 px settings open as a flyout beside the rail', async ({ page }) => {
    await page.setViewportSize({ width: 1000, height: 800 })
    await signInWithToken(page, '/settings/users')
    await settle(page)
    const sidebar = (await page.getByTestId('sidebar').boundingBox())!
    expect(sidebar.width).toBeLessThanOrEqual(57)
    await page.getByTestId('nav-settings').click()
    const flyout = page.getByTestId('nav-settings-menu')
    await expect(flyout).toBeVisible()
    const box = (await flyout.boundingBox())!
    // Beside the rail (its 1 px border aside), not over the page's content.
    expect(box.x).toBeGreaterThanOrEqual(sidebar.x + sidebar.width - 1)
    await expect(flyout.getByTestId('nav-users')).toBeVisible()
    // On top of the page: what is under the middle of an entry is the entry, not the table behind.
    const entry = (await flyout.getByTestId('nav-users').boundingBox())!
    const hit = await page.evaluate(({ x, y }) => document.elementFromPoint(x, y)?.closest('[data-testid="nav-settings-menu"]') !== null, { x: entry.x + entry.width / 2, y: entry.y + entry.height / 2 })
    expect(hit).toBe(true)
    await page.screenshot({ path: `${SCREENSHOTS}/narrow-1000-settings-flyout.png` })
    await flyout.getByTestId('nav-tokens').click()
    await expect(page).toHaveURL(/\/settings\/tokens$/)
    if (isJs()) {
      // With JavaScript the flyout closes after navigating and on a click outside.
      await expect(page.getByTestId('nav-settings-menu')).toBeHidden()
      await page.getByTestId('nav-settings').click()
      await expect(page.getByTestId('nav-settings-menu')).toBeVisible()
      await page.getByTestId('page-title').click()
      await expect(page.getByTestId('nav-settings-menu')).toBeHidden()
    }
  })

  test('with JavaScript a narrow window opens the sidebar over the page; a click outside closes it', async ({ page }) => {
    test.skip(!isJs(), 'the overlay needs JavaScript; without it the rail stays (previous test)')
    await page.setViewportSize({ width: 900, height: 800 })
    await signInWithToken(page, '/incidents')
    await settle(page)
    const sidebar = page.getByTestId('sidebar')
    await expect(sidebar).toHaveAttribute('data-variant', 'rail')
    await page.getByTestId('sidebar-toggle').click()
    await expect(sidebar).toHaveAttribute('data-variant', 'overlay')
    await expect.poll(async () => (await sidebar.boundingBox())!.width).toBe(224)
    await expect(sidebar.getByText('Incidents')).toBeVisible()
    await page.getByTestId('page-title').click()
    await expect(sidebar).toHaveAttribute('data-variant', 'rail')
  })

  test('from 1024 px the sidebar is expanded again unless collapsed', async ({ page }) => {
    await page.setViewportSize({ width: 1100, height: 800 })
    await signInWithToken(page, '/incidents')
    await settle(page)
    expect((await page.getByTestId('sidebar').boundingBox())!.width).toBe(224)
    await expect(page.getByTestId('sidebar').getByText('Incidents')).toBeVisible()
  })
})
