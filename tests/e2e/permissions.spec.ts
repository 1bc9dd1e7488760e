import { expect, test, type Locator, type Page } from './support/test.ts'
import { signInWithToken } from './support/sign-in.ts'

/**
 * The permissions screen (spec 002 §2 "Permissions") and its help page, with and without
 * JavaScript. The kind buttons of the dialog are conform intent buttons: with JavaScript they
 * act at once, without it they post and the server renders the form again with the new kind
 * and every other value kept. Descriptions carry the project name, since both projects share
 * one server.
 */

const SHOTS = 'test-results/screenshots'
const isJs = () => test.info().project.name === 'js'

/** What the dialog offers for the Global resource kind, whatever the object and the project. */
const GLOBAL_ACTIONS = ['', 'read', 'update', 'create', 'delete', '*', 'create,read,update,delete', 'playbook:run', 'playbook:approve', 'playbook:*', 'exec:run']

function unique(prefix: string): string {
  return `${prefix}-${test.info().project.name}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`
}

async function hydrated(page: Page): Promise<void> {
  if (isJs()) await expect(page.locator('html')).toHaveAttribute('data-hydrated', 'true')
}

async function openAddDialog(page: Page): Promise<Locator> {
  await signInWithToken(page, '/settings/permissions')
  await hydrated(page)
  await page.getByTestId('add-permission').click()
  const dialog = page.getByTestId('permission-dialog')
  await expect(dialog.getByRole('heading', { name: 'Add Permission' })).toBeVisible()
  await expect(page).toHaveURL(/\/settings\/permissions\?dialog=permission$/)
  return dialog
}

const optionValues = (select: Locator) => select.locator('option').evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value))

test.describe('permissions', () => {
  test('adds, edits and deletes a permission; kind buttons clear by the rules and keep the other values', async ({ page }) => {
    const dialog = await openAddDialog(page)
    await expect(dialog.getByRole('link', { name: 'Help' })).toHaveAttribute('href', '/reference/permissions')
    await page.screenshot({ path: `${SHOTS}/permission-dialog${isJs() ? '' : '-no-js'}.png` })

    const save = dialog.getByTestId('permission-save')
    const action = dialog.getByTestId('action-select')
    // getZodConstraint puts the schema's rule into the page as a native `required`.
    await expect(action).toHaveAttribute('required', '')
    await save.click()
    if (isJs()) {
      // Subject, resource and action are required: conform checks the schema before posting.
      await expect(dialog.getByText('This field is required')).toHaveCount(3)
    } else {
      // Without JavaScript the browser refuses the empty action itself: nothing was posted.
      expect(await action.evaluate((select: HTMLSelectElement) => select.validity.valueMissing)).toBe(true)
      await expect(page).toHaveURL(/\/settings\/permissions\?dialog=permission$/)
      await expect(dialog.getByText('This field is required')).toHaveCount(0)
    }

    // Typed before any kind switch: every switch (a post without JavaScript) must keep it.
    const description = unique('perm')
    await dialog.getByTestId('description-input').fill(description)

    // Team chosen, then Person: the team is cleared; back to Team, still cleared.
    const subject = dialog.getByTestId('subject-select')
    await dialog.getByTestId('subject-kind-team').click()
    await expect(dialog.getByTestId('subject-kind-team')).toHaveAttribute('aria-pressed', 'true')
    await subject.selectOption({ label: 'Payments' })
    await dialog.getByTestId('subject-kind-person').click()
    await expect(subject).toHaveAttribute('data-kind', 'person')
    await expect(subject).toHaveValue('')
    await dialog.getByTestId('subject-kind-team').click()
    await expect(subject).toHaveAttribute('data-kind', 'team')
    await expect(subject).toHaveValue('')
    await subject.selectOption({ label: 'Payments' })
    await expect(dialog.locator('input[name="subject.kind"]')).toHaveValue('team')
    // Pressing the current kind again keeps its choice.
    await dialog.getByTestId('subject-kind-team').click()
    await expect(subject).not.toHaveValue('')

    // A role is picked by name.
    await dialog.getByTestId('subject-kind-role').click()
    await expect(dialog.locator('input[name="subject.kind"]')).toHaveValue('role')
    expect(await optionValues(subject)).toEqual(['', 'admin', 'editor', 'guest', 'viewer', 'responder', 'commander'])
    await dialog.getByTestId('subject-kind-team').click()
    await subject.selectOption({ label: 'Payments' })

    // A resource kind switch clears the resource.
    const resource = dialog.getByTestId('resource-select')
    await dialog.getByTestId('resource-kind-global').click()
    await resource.selectOption('catalog')
    await dialog.getByTestId('resource-kind-playbook').click()
    await expect(resource).toHaveAttribute('data-kind', 'playbook')
    await expect(resource).toHaveValue('')
    await dialog.getByTestId('resource-kind-global').click()
    await expect(resource).toHaveValue('')
    await resource.selectOption('catalog')
    // The team choice and the description survived the resource switches.
    await expect(subject).not.toHaveValue('')
    await expect(dialog.getByTestId('description-input')).toHaveValue(description)
    if (!isJs()) await expect(page).toHaveURL(/\/settings\/permissions\?dialog=permission$/)

    // A playbook action on the catalog object is refused by the schema, in the dialog.
    await action.selectOption('playbook:run')
    await save.click()
    await expect(dialog.getByText('The action playbook:run applies to playbooks only')).toBeVisible()
    await expect(dialog.getByTestId('description-input')).toHaveValue(description)

    await dialog.getByTestId('action-select').selectOption('read')
    await save.click()
    await expect(page.getByTestId('toast')).toHaveText('Permission added')
    await expect(page.getByTestId('permission-dialog')).toHaveCount(0)
    await expect(page).toHaveURL(/\/settings\/permissions$/)
    const row = page.getByTestId('permission-row').filter({ hasText: description })
    await expect(row).toHaveCount(1)
    await expect(row.getByTestId('permission-subject')).toHaveText('Payments')
    await expect(row.getByTestId('permission-resource')).toHaveText('catalog')
    await expect(row.getByTestId('permission-action')).toHaveText('read')

    // Edit mode carries the id and the stored values.
    await row.getByTestId('edit-permission').click()
    await expect(page).toHaveURL(/dialog=permission&id=/)
    const edit = page.getByTestId('permission-dialog')
    await expect(edit.getByRole('heading', { name: 'Edit Permission' })).toBeVisible()
    await expect(edit.getByTestId('subject-kind-team')).toHaveAttribute('aria-pressed', 'true')
    await expect(edit.getByTestId('resource-select')).toHaveValue('catalog')
    await expect(edit.getByTestId('action-select')).toHaveValue('read')
    await edit.getByTestId('action-select').selectOption('update')
    await edit.getByTestId('description-input').fill(`${description}-edited`)
    await edit.getByTestId('permission-save').click()
    await expect(page.getByTestId('toast')).toHaveText('Permission updated')
    const edited = page.getByTestId('permission-row').filter({ hasText: `${description}-edited` })
    await expect(edited.getByTestId('permission-action')).toHaveText('update')

    await edited.getByTestId('delete-permission').click()
    const confirm = page.getByTestId('delete-permission-dialog')
    await expect(confirm).toContainText('Are you sure you want to delete the permission?')
    await confirm.getByTestId('delete-permission-dialog-confirm').click()
    await expect(page.getByTestId('toast')).toHaveText('Permission deleted')
    await expect(page.getByTestId('permission-row').filter({ hasText: description })).toHaveCount(0)
  })

  test('an empty required choice is refused before posting (by the browser itself without JavaScript)', async ({ page }) => {
    const dialog = await openAddDialog(page)
    await dialog.getByTestId('subject-kind-person').click()
    await dialog.getByTestId('resource-kind-global').click()
    await dialog.getByTestId('resource-select').selectOption('catalog')
    await dialog.getByTestId('action-select').selectOption('read')
    const subject = dialog.getByTestId('subject-select')
    await expect(subject).toHaveAttribute('required', '')
    // A mark on the document: a post would replace the document and lose it.
    await page.locator('body').evaluate((body) => body.setAttribute('data-kept', 'yes'))
    const url = page.url()
    await dialog.getByTestId('permission-save').click()
    if (isJs()) {
      await expect(dialog.getByText('This field is required')).toHaveCount(1)
      await expect(subject).toHaveAttribute('aria-invalid', 'true')
    } else {
      expect(await subject.evaluate((select: HTMLSelectElement) => select.validity.valueMissing)).toBe(true)
      expect(await subject.evaluate((select) => select.matches(':invalid'))).toBe(true)
      await expect(dialog.getByText('This field is required')).toHaveCount(0)
    }
    expect(page.url()).toBe(url)
    await expect(page.locator('body')).toHaveAttribute('data-kept', 'yes')
    await expect(dialog.getByTestId('resource-select')).toHaveValue('catalog')
  })

  test("the backend's guard refuses a deny that would lock every admin out, and the dialog says why", async ({ page }) => {
    const dialog = await openAddDialog(page)
    await dialog.getByTestId('subject-kind-role').click()
    await dialog.getByTestId('subject-select').selectOption('admin')
    await dialog.getByTestId('resource-kind-global').click()
    await dialog.getByTestId('resource-select').selectOption('rbac')
    await dialog.getByTestId('action-select').selectOption('update')
    await dialog.getByTestId('deny-checkbox').check()
    await dialog.getByTestId('permission-save').click()
    await expect(dialog.getByTestId('inline-error')).toContainText('this deny would lock every admin out of rbac')
    // Nothing was written, and the form still holds what was sent.
    await expect(dialog.getByTestId('subject-select')).toHaveValue('admin')
    await expect(dialog.getByTestId('deny-checkbox')).toBeChecked()
    await expect(page).toHaveURL(/\/settings\/permissions\?dialog=permission$/)
  })

  test('Global offers one action list, whatever the object and with or without JavaScript', async ({ page }) => {
    const dialog = await openAddDialog(page)
    await dialog.getByTestId('resource-kind-global').click()
    const action = dialog.getByTestId('action-select')
    expect(await optionValues(action)).toEqual(GLOBAL_ACTIONS)
    // Choosing an object does not change the list (it cannot without JavaScript either).
    for (const object of ['catalog', 'playbooks', 'exec']) {
      await dialog.getByTestId('resource-select').selectOption(object)
      expect(await optionValues(action)).toEqual(GLOBAL_ACTIONS)
    }
    // Other kinds offer their own list: a playbook takes the playbook actions, a config does not.
    await dialog.getByTestId('resource-kind-config').click()
    expect(await optionValues(action)).toEqual(['', 'read', 'update', 'create', 'delete', '*', 'create,read,update,delete'])
  })

  test('the help link opens the permissions reference inside the console', async ({ page, context }) => {
    const dialog = await openAddDialog(page)
    const help = dialog.getByRole('link', { name: 'Help' })
    let reference = page
    if ((await help.getAttribute('target')) === '_blank') {
      ;[reference] = await Promise.all([context.waitForEvent('page'), help.click()])
    } else {
      await help.click()
    }
    await expect(reference).toHaveURL(/\/reference\/permissions$/)
    await expect(reference.getByRole('heading', { level: 1, name: 'How permissions work in Lookout' })).toBeVisible()
    for (const section of ['The permission model', 'Subjects', 'Objects', 'Resources', 'Actions', 'Deny', 'Tags', 'Agents', 'Roles', 'Who may write permissions']) {
      await expect(reference.getByRole('heading', { level: 2, name: section, exact: true })).toBeVisible()
    }
    // Written from what the server enforces: deny wins, and the lists are the dialog's own.
    await expect(reference.getByTestId('reference-deny')).toContainText('A deny always wins')
    await expect(reference.getByTestId('reference-objects')).toContainText('kubernetes-proxy')
    await expect(reference.getByTestId('reference-role-matrix')).toContainText('editor')
    // It sits in the console: the sidebar and the top bar title are there.
    await expect(reference.getByTestId('sidebar')).toBeVisible()
    await expect(reference).toHaveTitle(/Permissions reference/)
    if (reference !== page) await reference.close()
  })

  test('Escape closes the permission dialog and gives focus back to Add Permission', async ({ page }) => {
    test.skip(!isJs(), 'Escape and focus are JavaScript behaviour; without it the dialog closes by its link')
    const dialog = await openAddDialog(page)
    await expect(dialog).toBeVisible()
    await page.keyboard.press('Escape')
    await expect(page.getByTestId('permission-dialog')).toHaveCount(0)
    await expect(page).toHaveURL(/\/settings\/permissions$/)
    await expect(page.getByTestId('add-permission')).toBeFocused()
  })

  test('bad list parameters fall back to the defaults', async ({ page }) => {
    await signInWithToken(page, '/settings/permissions')
    await page.goto('/settings/permissions?page=-4&pageSize=7&sortBy=subject;drop&dialog=nuke&id=1%27')
    await expect(page.getByTestId('permissions-table')).toBeVisible()
    await expect(page.getByTestId('permission-dialog')).toHaveCount(0)
    await page.goto('/settings/permissions?sortBy=action&sortDesc=false')
    await expect(page.getByTestId('permissions-table')).toHaveAttribute('aria-rowcount', /\d+/)
    await expect(page.getByTestId('sort-action').locator('xpath=..')).toHaveAttribute('aria-sort', 'ascending')
  })
})
