import { expect, test } from './support/test.ts'
import { signInWithToken } from './support/sign-in.ts'

/**
 * The topology form of spec 001 §2 at /settings/integrations/topologies/{id}: Name, Namespace
 * (default 'default'), Labels as key/value rows, Spec as YAML; a bad spec is refused on its field;
 * Update and Delete go back to /settings/integrations. Runs with and without JavaScript.
 */

const project = () => test.info().project.name

test.use({ viewport: { width: 1440, height: 900 } })

test('creates a topology with labels, refuses a bad spec on its field, updates and deletes it', async ({ page }) => {
  test.setTimeout(90_000)
  const js = project() === 'js'
  const name = `e2e-form-topology-${project()}`
  await signInWithToken(page, '/settings/integrations/topologies/new')
  const form = page.getByTestId('topology-form')
  await expect(form).toBeVisible()
  await expect(page.getByTestId('topology-namespace')).toHaveValue('default')
  await expect(page.getByTestId('topology-cancel')).toHaveCount(0)
  await expect(page.getByTestId('topology-delete')).toHaveCount(0)
  await expect(page.getByTestId('topology-save')).toHaveText('Save')
  if (js) {
    // Submit is disabled while the form is invalid (no name yet).
    await expect(page.getByTestId('topology-save')).toBeDisabled()
  }

  await page.getByTestId('topology-name').fill(name)
  await page.getByTestId('label-key').first().fill('env')
  await page.getByTestId('label-value').first().fill('e2e')
  if (js) {
    await page.getByTestId('label-add').click()
    await expect(page.getByTestId('topology-label-row')).toHaveCount(2)
    await page.getByTestId('label-key').nth(1).fill('suite')
    await page.getByTestId('label-value').nth(1).fill('form')
  }
  await page.getByTestId('topology-spec').fill('type: System\ncomponents:\n  - type: Service\n')
  await page.getByTestId('topology-save').click()
  await expect(page.getByTestId('spec-error')).toContainText('spec.components[0].name: is required')
  // What was typed survives the refusal.
  await expect(page.getByTestId('topology-name')).toHaveValue(name)
  await expect(page.getByTestId('label-key').first()).toHaveValue('env')

  await page.getByTestId('topology-spec').fill('type: System\ncomponents:\n  - name: api\n    type: Service\n')
  await page.getByTestId('topology-save').click()
  await expect(page).toHaveURL(/\/settings\/integrations$/)

  await page.goto('/settings/topologies')
  const link = page.getByTestId('resource-table').getByTestId('resource-link').filter({ hasText: name })
  const href = await link.getAttribute('href')
  const id = /([0-9a-f-]{36})$/.exec(href ?? '')?.[1]
  expect(id, href ?? '').toBeTruthy()

  await page.goto(`/settings/integrations/topologies/${id}`)
  await expect(page.getByTestId('topology-name')).toHaveValue(name)
  await expect(page.getByTestId('label-key').first()).toHaveValue('env')
  if (js) await expect(page.getByTestId('label-key').nth(1)).toHaveValue('suite')
  await expect(page.getByTestId('topology-save')).toHaveText('Update')
  await expect(page.getByTestId('topology-cancel')).toHaveAttribute('href', '/settings/integrations')
  await expect(page.getByTestId('topology-back')).toHaveAttribute('href', '/settings/integrations')
  await page.getByTestId('topology-spec').fill('type: System\ncomponents:\n  - name: api\n    type: Service\n  - name: db\n    type: Database\n')
  await page.getByTestId('topology-save').click()
  await expect(page).toHaveURL(/\/settings\/integrations$/)
  await page.goto(`/settings/integrations/topologies/${id}`)
  await expect(page.getByTestId('topology-spec')).toHaveValue(/name: db/)

  await page.getByTestId('topology-delete').click()
  const dialog = page.getByTestId('delete-dialog')
  await expect(dialog).toBeVisible()
  if (js) {
    await page.keyboard.press('Escape')
    await expect(dialog).toHaveCount(0)
    await page.getByTestId('topology-delete').click()
    await expect(dialog).toBeVisible()
  }
  await dialog.getByTestId('delete-dialog-confirm').click()
  await expect(page).toHaveURL(/\/settings\/integrations$/)
  const gone = await page.goto(`/settings/integrations/topologies/${id}`)
  expect(gone?.status()).toBe(404)
})
