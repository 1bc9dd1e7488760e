import { expect, test, type APIRequestContext } from './support/test.ts'
import { hasJs, project, ready, screenshotAtSizes } from './support/page.ts'
import { signInWithToken } from './support/sign-in.ts'
import { E2E_TOKEN } from '../../playwright.config.ts'

/**
 * A custom view (issue 18 item 1) with JavaScript on and off: panels drawn as server-rendered
 * SVG, the table of its materialised rows, and a variable chosen through a GET form.
 */

const api = { Authorization: `Bearer ${E2E_TOKEN}`, 'Content-Type': 'application/json' }

function unique(prefix: string): string {
  return `${prefix}-${project()}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`
}

async function insert(request: APIRequestContext, table: string, row: Record<string, unknown>): Promise<string> {
  const response = await request.post(`/api/db/${table}`, { headers: { ...api, Prefer: 'return=representation' }, data: row })
  expect(response.status(), await response.text()).toBe(201)
  return ((await response.json()) as { id: string }[])[0]!.id
}

test.describe('custom views', () => {
  test('panels, table and a variable, by namespace/name and by id', async ({ page, request }) => {
    const name = unique('e2e-view').toLowerCase()
    const [prod, dev] = [`${name}-prod`, `${name}-dev`]
    const pods: [string, string, string, number][] = [
      ['api-1', prod, 'healthy', 40],
      ['api-2', prod, 'unhealthy', 90],
      ['web-1', prod, 'healthy', 20],
      ['dev-1', dev, 'warning', 55],
    ]
    const podIds: string[] = []
    for (const [pod, cluster, health, cost] of pods) {
      podIds.push(await insert(request, 'config_items', { name: `${pod}-${name}`, type: 'Kubernetes::Pod', config_class: 'Pod', tags: { cluster }, health, status: 'Running', cost_total_30d: cost }))
    }
    const id = await insert(request, 'views', {
      name,
      namespace: 'default',
      source: 'UI',
      spec: {
        description: 'Pods of one cluster',
        display: { title: `Pods ${name}`, plugins: [{ configTab: { types: ['Kubernetes::Pod'], tagSelector: `cluster in (${prod},${dev})` }, variables: { cluster: '$(.config.tags.cluster)' } }] },
        queries: { pods: { configs: { types: ['Kubernetes::Pod'], tagSelector: 'cluster=$(var.cluster)' } } },
        columns: [
          { name: 'id', type: 'string', primaryKey: true, hidden: true },
          { name: 'name', type: 'string' },
          { name: 'health', type: 'health' },
          { name: 'cost', type: 'gauge', gauge: { max: 100 } },
        ],
        mapping: { cost: 'row.cost_total_30d' },
        panels: [
          { name: 'Pods', type: 'number', query: 'SELECT COUNT(*) AS value FROM pods' },
          { name: 'By health', type: 'piechart', query: 'SELECT health, COUNT(*) AS count FROM pods GROUP BY health ORDER BY health' },
          { name: 'Cost', type: 'bargauge', query: 'SELECT name, cost_total_30d AS value FROM pods ORDER BY name' },
          { name: 'Worst cost', type: 'gauge', gauge: { max: 100 }, query: 'SELECT max(cost_total_30d) AS value FROM pods' },
        ],
        templating: [{ key: 'cluster', label: 'Cluster', values: [prod, dev], default: prod }],
      },
    })

    await signInWithToken(page, `/view/default/${name}`)
    await ready(page)
    const view = page.getByTestId('custom-view')
    await expect(view.getByRole('heading', { level: 1 })).toHaveText(`Pods ${name}`)
    const panels = view.getByTestId('view-panel')
    await expect(panels).toHaveCount(4)
    await expect(panels.filter({ hasText: 'Pods' }).first()).toContainText('3')
    await expect(view.locator('[data-panel-type="piechart"] svg path')).toHaveCount(2)
    await expect(view.locator('[data-panel-type="bargauge"] svg g')).toHaveCount(3)
    const table = view.getByTestId('view-table')
    await expect(table.locator('tbody tr')).toHaveCount(3)
    await expect(table.locator('tbody tr').first()).toContainText(`api-1-${name}`)
    await screenshotAtSizes(page, 'views', 'panels')

    await view.getByRole('combobox', { name: 'Cluster' }).selectOption(dev)
    await view.getByRole('button', { name: 'Apply' }).click()
    await expect(page).toHaveURL(new RegExp(`var\\.cluster=${dev}`))
    await expect(table.locator('tbody tr')).toHaveCount(1)
    await expect(table).toContainText(`dev-1-${name}`)
    await expect(table).toContainText('warning')

    // Sorting is a link: the costliest first.
    await page.goto(`/views/${id}?sort=-cost`)
    await ready(page)
    await expect(page.getByTestId('view-table').locator('tbody tr').first()).toContainText(`api-2-${name}`)
    if (hasJs()) await screenshotAtSizes(page, 'views', 'sorted')

    // A tab of the dev pod's catalog page: the plugin's variable comes from the item's tags.
    await page.goto(`/catalog/${podIds[3]}`)
    await ready(page)
    await page.getByRole('link', { name: `Pods ${name}` }).click()
    await expect(page).toHaveURL(new RegExp(`/catalog/${podIds[3]}/view/${id}`))
    await expect(page.getByTestId('view-table').locator('tbody tr')).toHaveCount(1)
    await expect(page.getByTestId('view-table')).toContainText(`dev-1-${name}`)

    // The settings list (the generic resource editor) shows it, and its editor opens.
    await page.goto('/settings/views')
    await ready(page)
    const list = page.getByTestId('resource-list-page')
    await expect(list.getByRole('link', { name, exact: true })).toBeVisible()
    await list.getByRole('link', { name, exact: true }).click()
    await expect(page).toHaveURL(new RegExp(`/settings/views/${id}`))
    await expect(page.getByText('kind: View').first()).toBeAttached()
  })

  test.describe('missing', () => {
    test.use({ allowedConsoleErrors: [/status of 404/] })
    test('an unknown view is a 404 page', async ({ page }) => {
      await signInWithToken(page, '/views/00000000-0000-0000-0000-0000000000ab')
      await expect(page.getByTestId('not-found')).toBeVisible()
    })
  })
})
