import { E2E_TOKEN } from '../../playwright.config.ts'
import { expect, test, type Page } from './support/test.ts'
import { signInWithToken } from './support/sign-in.ts'
import { hasJs, project, ready, screenshotAtSizes } from './support/page.ts'

/**
 * The topology screens (issue 15 items 4–5) on the demo estate, with JavaScript and without it:
 * the dashboard's cards and URL filters, a component page with its side panel and
 * link-to-incident, the preferences panel's card width and date format applied to the cards,
 * and the wall view. Screenshots go to test-results/screenshots/topology-*.png at 1440×900 and
 * 1920×1080.
 */

test.use({ viewport: { width: 1440, height: 900 } })

const shots = (page: Page, name: string) => screenshotAtSizes(page, 'topology', name)

const cardNamed = (page: Page, name: string) => page.getByTestId('component-card').filter({ has: page.getByTestId('card-name').filter({ hasText: new RegExp(`^${name}$`) }) })

/** The demo estate's Online Store application, opened from the dashboard. */
async function openOnlineStore(page: Page): Promise<string> {
  await cardNamed(page, 'Online Store').getByTestId('card-link').click()
  await expect(page).toHaveURL(/\/topology\/[0-9a-f-]{36}$/)
  await ready(page)
  return new URL(page.url()).pathname.split('/').pop()!
}

test.describe('topology', () => {
  test('the dashboard shows the demo topologies as cards and filters them in the URL', { tag: '@smoke' }, async ({ page }) => {
    await signInWithToken(page, '/topology')
    await ready(page)
    const cards = page.getByTestId('component-card')
    await expect(cardNamed(page, 'Online Store')).toHaveCount(1)
    await expect(cardNamed(page, 'Platform')).toHaveCount(1)
    const store = cardNamed(page, 'Online Store')
    await expect(store).toHaveAttribute('data-health', 'unhealthy')
    await expect(store.getByTestId('card-health')).toHaveText('unhealthy')
    await expect(store.getByTestId('card-children')).toContainText(/\d+ components/)
    await shots(page, 'dashboard')

    // A type filter is a URL parameter and narrows the cards.
    await page.getByTestId('topology-filters-type').selectOption('Platform')
    if (!hasJs()) await page.getByTestId('topology-filters-apply').click()
    await expect(page).toHaveURL(/[?&]type=Platform/)
    await expect(cards).toHaveCount(1)
    await expect(cardNamed(page, 'Platform')).toHaveCount(1)

    // Sorting descending by name reverses the order. Other tests add their own topologies to the
    // shared database meanwhile, so only the two demo cards' relative order is asserted.
    const demoOrder = async () => {
      const names = await cards.getByTestId('card-name').allTextContents()
      return names.filter((name) => name === 'Online Store' || name === 'Platform')
    }
    await page.goto('/topology?sortOrder=desc')
    await ready(page)
    await expect(cardNamed(page, 'Platform')).toHaveCount(1)
    expect(await demoOrder()).toEqual(['Platform', 'Online Store'])
    await page.goto('/topology')
    await ready(page)
    await expect(cardNamed(page, 'Platform')).toHaveCount(1)
    expect(await demoOrder()).toEqual(['Online Store', 'Platform'])

    // The show-hidden switch is the spec's URL parameter.
    await page.getByTestId('show-hidden').click()
    await expect(page).toHaveURL(/showHiddenComponents=(yes|no)/)

    // A hidden component shows only while showHiddenComponents says so (the URL wins over the preference).
    const found = await page.request.get('/api/db/components?select=id,topology_id&name=eq.Online%20Store&parent_id=is.null', { headers: { authorization: `Bearer ${E2E_TOKEN}` } })
    const { id: storeId, topology_id: topologyId } = ((await found.json()) as { id: string; topology_id: string }[])[0]!
    const hiddenName = `hidden-${project()}`
    const made = await page.request.post('/api/db/components', {
      headers: { authorization: `Bearer ${E2E_TOKEN}` },
      data: { name: hiddenName, type: 'Service', status: 'healthy', health: 'healthy', hidden: true, parent_id: storeId, topology_id: topologyId, external_id: `e2e/${hiddenName}` },
    })
    expect(made.status()).toBe(201)
    await page.goto(`/topology/${storeId}?showHiddenComponents=no`)
    await expect(cardNamed(page, 'Payments')).toHaveCount(1)
    await expect(cardNamed(page, hiddenName)).toHaveCount(0)
    await page.goto(`/topology/${storeId}?showHiddenComponents=yes`)
    await expect(cardNamed(page, hiddenName)).toHaveCount(1)
    // Gone again, so the other tests and their screenshots see the demo estate as it is.
    expect((await page.request.delete(`/api/db/components?name=eq.${hiddenName}`, { headers: { authorization: `Bearer ${E2E_TOKEN}` } })).status()).toBe(204)

    // A filter nothing matches shows the empty state.
    await page.goto('/topology?search=no-such-component-anywhere')
    await expect(page.getByTestId('topology-empty')).toHaveText('No components match these filters.')
  })

  test('a component page shows its children and the side panel; link-to-incident opens and closes', async ({ page }) => {
    // A playbook whose spec.components selector picks Deployments: the panel's drop-down offers it.
    const name = `restart-deployment-${project()}`
    const created = await page.request.post('/api/db/playbooks', {
      headers: { authorization: `Bearer ${E2E_TOKEN}`, prefer: 'return=representation' },
      data: { name, title: `Restart (${project()})`, source: 'UI', spec: { components: [{ types: ['Deployment'] }], actions: [{ name: 'restart', exec: { script: 'echo restart' } }] } },
    })
    expect(created.status()).toBe(201)
    const playbookId = ((await created.json()) as { id: string }[])[0]!.id
    await signInWithToken(page, '/topology')
    await ready(page)
    const id = await openOnlineStore(page)
    await expect(page.getByTestId('component-header')).toContainText('Online Store')
    await expect(cardNamed(page, 'Payments')).toHaveCount(1)
    const panel = page.getByTestId('component-side-panel')
    for (const section of ['panel-properties', 'panel-checks', 'panel-configs', 'panel-incidents', 'panel-insights', 'panel-teams', 'panel-logs']) {
      await expect(panel.getByTestId(section)).toBeVisible()
    }
    await expect(panel.getByTestId('snapshot-download')).toHaveAttribute('href', `/api/snapshot/topology/${id}?related=true`)
    await shots(page, 'component')

    // Children filter like the dashboard.
    await page.getByTestId('topology-filters-status').selectOption('unhealthy')
    if (!hasJs()) await page.getByTestId('topology-filters-apply').click()
    await expect(page).toHaveURL(/[?&]status=unhealthy/)
    for (const health of await page.getByTestId('component-card').evaluateAll((cards) => cards.map((card) => card.getAttribute('data-health')))) expect(health).toBe('unhealthy')

    // A deployment below: its checks link to /health, its configs to /catalog, its logs to /logs.
    await page.goto(`/topology/${id}`)
    await ready(page)
    await cardNamed(page, 'Payments').getByTestId('card-link').click()
    await ready(page)
    await cardNamed(page, 'payments-api').getByTestId('card-link').click()
    await expect(page.getByTestId('component-header')).toContainText('payments-api')
    await ready(page)
    await expect(panel.getByTestId('panel-check-link').first()).toHaveAttribute('href', /^\/health\?checkId=[0-9a-f-]{36}&timeRange=1h$/)
    await expect(panel.getByTestId('panel-config-link').first()).toHaveAttribute('href', /^\/catalog\/[0-9a-f-]{36}$/)
    await expect(panel.getByTestId('panel-log-link').first()).toHaveAttribute('href', /^\/logs\?component=[0-9a-f-]{36}&name=/)
    // The playbooks drop-down is a <details>: it opens without JavaScript.
    await panel.getByTestId('playbooks-menu').locator('summary').click()
    // Each opens the Run Playbook dialog with this component chosen (issue 16).
    await expect(panel.getByTestId('playbook-link').filter({ hasText: `Restart (${project()})` })).toHaveAttribute('href', new RegExp(`^/playbooks/${playbookId}/run\\?component_id=[0-9a-f-]{36}&returnTo=%2Ftopology%2F`))

    // Link to incident, evidence type topology: in place with JavaScript (Escape closes it), a page without.
    const attach = panel.getByTestId('attach-evidence')
    if (hasJs()) {
      await attach.click()
      const dialog = page.getByTestId('link-to-incident-dialog')
      await expect(dialog).toBeVisible()
      await page.keyboard.press('Escape')
      await expect(dialog).toHaveCount(0)
      await expect(attach).toBeFocused()
    } else {
      await attach.click()
      await expect(page).toHaveURL(/\/incidents\/link\?type=topology&component_id=[0-9a-f-]{36}/)
      await expect(page.getByTestId('link-to-incident-dialog')).toBeVisible()
    }
  })

  test('an unknown component is a 404', async ({ page }) => {
    await signInWithToken(page, '/topology')
    const response = await page.goto('/topology/00000000-0000-4000-8000-00000000abcd')
    expect(response?.status()).toBe(404)
    const notUuid = await page.goto('/topology/not-a-component')
    expect(notUuid?.status()).toBe(404)
  })

  test('the preferences panel sets the card width and the date format the cards use', async ({ page }) => {
    await signInWithToken(page, '/topology')
    await ready(page)
    const card = page.getByTestId('component-card').first()
    await expect.poll(async () => Math.round((await card.boundingBox())?.width ?? 0)).toBe(554)
    const updated = card.getByTestId('card-updated')
    await expect(updated).toHaveText(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}$/)

    await page.getByTestId('preferences-button').click()
    await expect(page.getByTestId('preferences-panel')).toBeVisible()
    await expect(page.getByTestId('pref-show-hidden')).toBeVisible()
    await expect(page.getByTestId('pref-show-deleted')).toBeVisible()
    await expect(page.getByTestId('pref-card-width')).toHaveAttribute('step', '2')
    await page.getByTestId('pref-card-width').fill('300')
    await page.getByTestId('pref-format-full').check()
    if (!hasJs()) await page.getByTestId('preferences-save').click()
    await expect.poll(async () => Math.round((await card.boundingBox())?.width ?? 0)).toBe(300)
    await expect(updated).toHaveText(/^[A-Z][a-z]{2} \d{1,2}( \d{4})? \d\d:\d\d:\d\d$/)

    // Kept in the cookie: a reload renders with them on the server.
    await page.goto('/topology')
    await ready(page)
    await expect.poll(async () => Math.round((await card.boundingBox())?.width ?? 0)).toBe(300)
    await expect(updated).toHaveText(/^[A-Z][a-z]{2} \d{1,2}( \d{4})? \d\d:\d\d:\d\d$/)
  })

  test('the wall view shows a component and its children without JavaScript, refreshing itself', async ({ page }) => {
    await signInWithToken(page, '/topology')
    await ready(page)
    const id = await openOnlineStore(page)
    await page.goto(`/view/topology/${id}`)
    await expect(page.getByTestId('board-title')).toHaveText('Online Store')
    await expect(page.getByTestId('board-cards').getByTestId('component-card')).not.toHaveCount(0)
    await expect(page.locator('meta[http-equiv="refresh"]')).toHaveAttribute('content', '30')
    // Unhealthy children first.
    await expect(page.getByTestId('component-card').first()).toHaveAttribute('data-health', 'unhealthy')
    // A wall screen loads no client JavaScript.
    await expect(page.locator('script[src]')).toHaveCount(0)
    await shots(page, 'wall')

    // Signed out: a token in the URL reads it; without one the visitor is sent to sign in.
    await page.context().clearCookies()
    await page.goto(`/view/topology/${id}?token=${E2E_TOKEN}`)
    await expect(page.getByTestId('board-title')).toHaveText('Online Store')
    await page.goto(`/view/topology/${id}`)
    await expect(page).toHaveURL(/\/login/)
  })
})
