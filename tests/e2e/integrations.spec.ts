import { expect, test, type APIRequestContext } from './support/test.ts'
import { hasJs, project, ready, screenshotAtSizes } from './support/page.ts'
import { signInWithToken } from './support/sign-in.ts'
import { E2E_TOKEN } from '../../playwright.config.ts'

/**
 * /settings/integrations (issue 18 item 7), with JavaScript on and off: the list from
 * `integrations_with_status` with its last run and errors, filters in the URL, edit links, and
 * the Add Integration modal of spec 001 §2 as a URL: GitOps charts whose namespace and
 * schema-driven values generate the Flux manifests and the Helm CLI commands, Add Directly links,
 * and Escape closing it once JavaScript runs.
 */

const api = { Authorization: `Bearer ${E2E_TOKEN}`, 'Content-Type': 'application/json' }

function unique(prefix: string): string {
  return `${prefix}-${project()}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`
}

async function post(request: APIRequestContext, table: string, row: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await request.post(`/api/db/${table}`, { headers: { ...api, Prefer: 'return=representation' }, data: row })
  expect(response.status(), await response.text()).toBe(201)
  const [created] = (await response.json()) as Record<string, unknown>[]
  return created!
}

test('lists integrations with their last run and errors, filters in the URL, edit links', async ({ page, request }) => {
  const name = unique('e2e-integration')
  // Source 'Demo' keeps the topology engine from running it and replacing the failed run below.
  const topology = await post(request, 'topologies', { name, namespace: 'default', source: 'Demo', spec: { components: [] } })
  await post(request, 'job_history', {
    name: 'Topology',
    status: 'FAILED',
    resource_type: 'topology',
    resource_id: topology.id,
    success_count: 0,
    error_count: 1,
    details: { errors: ['lookup prometheus.monitoring.svc: no such host'] },
    time_start: new Date().toISOString(),
  })

  await signInWithToken(page, `/settings/integrations?search=${name}`)
  await ready(page)
  const table = page.getByTestId('integrations-table')
  const row = table.getByTestId('integration-row').filter({ hasText: name })
  await expect(row).toHaveCount(1)
  await expect(row.getByTestId('integration-type')).toHaveText('Topology')
  await expect(row.getByTestId('integration-status')).toHaveText('FAILED')
  await expect(row.getByTestId('integration-errors')).toContainText('no such host')
  await expect(row.getByTestId('integration-link')).toHaveAttribute('href', `/settings/integrations/topologies/${String(topology.id)}`)
  await expect(row.getByTestId('integration-edit')).toHaveAttribute('href', `/settings/integrations/topologies/${String(topology.id)}`)
  await screenshotAtSizes(page, 'integrations', 'list')

  const filters = page.getByTestId('integration-filters')
  await filters.locator('select[name="type"]').selectOption('scrapers')
  if (!hasJs()) await filters.getByTestId('integration-filters-apply').click()
  await expect(page).toHaveURL(/[?&]type=scrapers/)
  await expect(table.getByTestId('integration-row').filter({ hasText: name })).toHaveCount(0)

  await page.goto(`/settings/integrations?search=${name}&sortBy=created_at&sortDesc=true`)
  await ready(page)
  await expect(page.getByTestId('integrations-table').getByTestId('integration-row').filter({ hasText: name })).toHaveCount(1)
  await page.getByTestId('integrations-table').getByTestId('integration-link').filter({ hasText: name }).click()
  await expect(page).toHaveURL(new RegExp(`/settings/integrations/topologies/${String(topology.id)}$`))
  await expect(page.getByTestId('topology-integration')).toBeVisible()

  // Other specs open the first topology's job history: leave no topology whose only job failed.
  const removed = await request.patch(`/api/db/topologies?id=eq.${String(topology.id)}`, { headers: api, data: { deleted_at: new Date().toISOString() } })
  expect(removed.status(), await removed.text()).toBe(204)
})

test('@smoke the Add Integration modal generates the Flux manifests and Helm commands of a chart', async ({ page }) => {
  test.setTimeout(90_000)
  await signInWithToken(page, '/settings/integrations')
  await ready(page)
  await page.getByTestId('integration-add').click()
  const dialog = page.getByTestId('add-integration')
  await expect(dialog).toBeVisible()
  await expect(dialog.getByRole('heading', { level: 2 })).toHaveText('Add Integration')
  await expect(page).toHaveURL(/[?&]add=choose/)
  for (const label of ['AWS', 'Azure', 'Prometheus', 'Flux', 'Kubernetes', 'Mission Control']) await expect(dialog.getByText(label, { exact: true })).toBeVisible()
  await expect(dialog.getByTestId('integration-direct-topology')).toHaveAttribute('href', '/settings/integrations/topologies/new')
  await expect(dialog.getByTestId('integration-direct-scraper')).toHaveAttribute('href', '/catalog/scrapers/new')
  await expect(dialog.getByTestId('integration-direct-log-backends')).toHaveAttribute('href', '/settings/logging_backends/new')
  await screenshotAtSizes(page, 'integrations', 'add-choices')

  if (hasJs()) {
    await page.keyboard.press('Escape')
    await expect(dialog).toHaveCount(0)
    await expect(page).not.toHaveURL(/add=/)
    await page.getByTestId('integration-add').click()
    await expect(dialog).toBeVisible()
  }

  await dialog.getByTestId('integration-choice-kubernetes').click()
  await expect(page).toHaveURL(/[?&]add=kubernetes/)
  await ready(page)
  await expect(dialog.getByRole('heading', { level: 2 })).toHaveText('Add Integration - Kubernetes')
  await expect(dialog.getByTestId('gitops-namespace')).toHaveValue('mission-control')
  const clusterName = dialog.getByTestId('gitops-value-clusterName')
  await expect(clusterName).toHaveValue('kubernetes')
  await expect(dialog.getByTestId('gitops-field').filter({ has: page.getByTestId('gitops-value-clusterName') }).getByTestId('required-mark')).toBeVisible()
  await expect(dialog.getByTestId('gitops-value-playbooks.enabled')).toBeChecked()

  // An empty required value: with JavaScript the submit is disabled; without it the browser refuses it.
  await clusterName.fill('')
  const generate = dialog.getByTestId('gitops-generate')
  if (hasJs()) {
    await expect(generate).toBeDisabled()
  } else {
    const before = page.url()
    await generate.click()
    expect(page.url()).toBe(before)
    expect(await clusterName.evaluate((input: HTMLInputElement) => input.validity.valueMissing)).toBe(true)
  }

  await dialog.getByTestId('gitops-namespace').fill('ops')
  await clusterName.fill('prod')
  await dialog.getByTestId('gitops-value-scraper.schedule').fill('@every 1h')
  await dialog.getByTestId('gitops-value-playbooks.enabled').uncheck()
  await expect(generate).toBeEnabled()
  await generate.click()

  const flux = dialog.getByTestId('gitops-flux-output')
  await expect(flux).toBeVisible()
  await expect(flux).toContainText('kind: HelmRepository')
  await expect(flux).toContainText('url: https://flanksource.github.io/charts')
  await expect(flux).toContainText('kind: HelmRelease')
  await expect(flux).toContainText('chart: mission-control-kubernetes')
  await expect(flux).toContainText('namespace: ops')
  await expect(flux).toContainText('clusterName: prod')
  await expect(flux).toContainText('schedule: "@every 1h"')
  await expect(dialog.getByTestId('gitops-panel-flux')).toContainText('You will need to have Kubernetes chart installed in flux to use this option.')
  // What was typed survives the answer.
  await expect(dialog.getByTestId('gitops-namespace')).toHaveValue('ops')
  await expect(dialog.getByTestId('gitops-value-playbooks.enabled')).not.toBeChecked()
  await expect(dialog.getByTestId('gitops-copy-flux')).toHaveCount(hasJs() ? 1 : 0)
  await flux.scrollIntoViewIfNeeded()
  await screenshotAtSizes(page, 'integrations', 'add-kubernetes-flux')

  await dialog.getByText('Helm CLI', { exact: true }).click()
  const helm = dialog.getByTestId('gitops-helm-output')
  await expect(helm).toBeVisible()
  await expect(flux).toBeHidden()
  await expect(helm).toContainText('helm repo add flanksource https://flanksource.github.io/charts')
  await expect(helm).toContainText('helm install mission-control-kubernetes flanksource/mission-control-kubernetes')
  await expect(helm).toContainText('-n ops')
  await expect(helm).toContainText('--create-namespace')
  await expect(helm).toContainText('--set clusterName=prod')
  await expect(helm).toContainText("--set 'scraper.schedule=@every 1h'")
  await expect(helm).toContainText('--set playbooks.enabled=false')
  await helm.scrollIntoViewIfNeeded()
  await screenshotAtSizes(page, 'integrations', 'add-kubernetes-helm')

  // Back to the choices, then Flux with its defaults.
  await dialog.getByTestId('gitops-back').click()
  await expect(page).toHaveURL(/[?&]add=choose/)
  await dialog.getByTestId('integration-choice-flux').click()
  await expect(dialog.getByRole('heading', { level: 2 })).toHaveText('Add Integration - Flux')
  await ready(page)
  await dialog.getByTestId('gitops-value-topologyName').fill('gitops')
  await dialog.getByTestId('gitops-generate').click()
  await expect(dialog.getByTestId('gitops-flux-output')).toContainText('chart: mission-control-flux')
  await expect(dialog.getByTestId('gitops-flux-output')).toContainText('namespace: mission-control')
  await expect(dialog.getByTestId('gitops-flux-output')).toContainText('topologyName: gitops')

  if (hasJs()) {
    await page.keyboard.press('Escape')
    await expect(dialog).toHaveCount(0)
  } else {
    await dialog.getByTestId('add-integration-close').click()
    await expect(dialog).toHaveCount(0)
  }
  await expect(page).not.toHaveURL(/add=/)
})

test('refuses values the chart schema refuses, on their field', async ({ page }) => {
  await signInWithToken(page, '/settings/integrations?add=aws')
  await ready(page)
  const dialog = page.getByTestId('add-integration')
  await expect(dialog.getByRole('heading', { level: 2 })).toHaveText('Add Integration - AWS')
  // Each region is checked by the schema's item pattern on the server only.
  await dialog.getByTestId('gitops-value-region').fill('eu-west-1, moon')
  await dialog.getByTestId('gitops-generate').click()
  await expect(dialog.getByTestId('gitops-field').filter({ has: page.getByTestId('gitops-value-region') })).toContainText('Must match')
  await expect(dialog.getByTestId('gitops-value-region')).toHaveValue('eu-west-1, moon')
  await expect(dialog.getByTestId('gitops-output')).toHaveCount(0)
  await dialog.getByTestId('gitops-value-region').fill('eu-west-1, us-east-1')
  await dialog.getByTestId('gitops-generate').click()
  await expect(dialog.getByTestId('gitops-helm-output')).toContainText("--set 'region={eu-west-1,us-east-1}'")
})
