import { expect, test, type Page } from './support/test.ts'
import { signInWithToken } from './support/sign-in.ts'

/**
 * Teams (spec 002 §2): the Add Team dialog, and the detail page's forms (Spec tab, Add Members,
 * remove member), with and without JavaScript. Names carry the project name, since both
 * projects share one server.
 */

const SHOTS = 'test-results/screenshots'
const isJs = () => test.info().project.name === 'js'

function unique(prefix: string): string {
  return `${prefix}-${test.info().project.name}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`
}

async function hydrated(page: Page): Promise<void> {
  if (isJs()) await expect(page.locator('html')).toHaveAttribute('data-hydrated', 'true')
}

async function createTeam(page: Page, name: string): Promise<string> {
  await page.goto('/settings/teams?dialog=new')
  await hydrated(page)
  await page.getByTestId('team-create-form').locator('input[name="name"]').fill(name)
  await page.getByTestId('team-create-submit').click()
  await expect(page).toHaveURL(/\/settings\/teams\/[0-9a-f-]{36}\?tab=members$/)
  return new URL(page.url()).pathname
}

test.describe('teams', () => {
  test('the Add Team dialog opens without errors and refuses an empty name before posting', async ({ page }) => {
    await signInWithToken(page, '/settings/teams')
    await hydrated(page)
    await page.getByTestId('add-team').click()
    const dialog = page.getByTestId('team-create-dialog')
    await expect(dialog).toBeVisible()
    await expect(page).toHaveURL(/\/settings\/teams\?dialog=new$/)
    // Nothing was submitted: no field is marked invalid and no message shows.
    await expect(dialog.locator('[aria-invalid="true"]')).toHaveCount(0)
    await expect(dialog.getByText('This field is required')).toHaveCount(0)
    await page.screenshot({ path: isJs() ? `${SHOTS}/add-team-dialog.png` : `${SHOTS}/add-team-dialog-no-js.png` })

    const name = dialog.locator('input[name="name"]')
    await expect(name).toHaveAttribute('required', '')
    await dialog.getByTestId('team-create-submit').click()
    if (isJs()) {
      await expect(dialog.getByText('This field is required')).toBeVisible()
      await expect(name).toHaveAttribute('aria-invalid', 'true')
    } else {
      // The browser refused the empty field itself: no POST, the URL is unchanged.
      expect(await name.evaluate((input: HTMLInputElement) => input.validity.valueMissing)).toBe(true)
      await expect(page).toHaveURL(/\/settings\/teams\?dialog=new$/)
      await expect(dialog.locator('input[name="name"]:invalid')).toHaveCount(1)
    }
  })

  test('Escape closes the Add Team dialog', async ({ page }) => {
    test.skip(!isJs(), 'Escape is a JavaScript behaviour; without it the close link does the job')
    await signInWithToken(page, '/settings/teams')
    await hydrated(page)
    await page.getByTestId('add-team').click()
    await expect(page.getByTestId('team-create-dialog')).toBeVisible()
    await page.keyboard.press('Escape')
    await expect(page.getByTestId('team-create-dialog')).toHaveCount(0)
    await expect(page).toHaveURL(/\/settings\/teams$/)
  })

  test('edits a team spec; a spec that is not a JSON object is refused on its field', async ({ page }) => {
    await signInWithToken(page, '/settings/teams')
    const name = unique('spec-team')
    const path = await createTeam(page, name)
    await page.goto(path)
    await hydrated(page)
    const form = page.getByTestId('team-spec-form')
    await form.locator('input[name="icon"]').fill('shield')
    await form.getByTestId('team-spec').fill('[1, 2]')
    await form.getByTestId('team-save').click()
    await expect(form.getByText('The spec must be a JSON object')).toBeVisible()
    await expect(form.getByTestId('team-spec')).toHaveAttribute('aria-invalid', 'true')
    // What was typed stays.
    await expect(form.getByTestId('team-spec')).toHaveValue('[1, 2]')

    await form.getByTestId('team-spec').fill('{"components": ["payments"]}')
    await form.getByTestId('team-save').click()
    await expect(page.getByTestId('toast')).toHaveText(`${name} updated successfully`)
    await expect(page).toHaveURL(new RegExp(`${path}$`))
    await expect(page.getByTestId('team-spec')).toHaveValue(/"components": \[\s*"payments"\s*\]/)
    await expect(page.getByTestId('team-spec-form').locator('input[name="icon"]')).toHaveValue('shield')
    await expect(page.getByTestId('team-spec-form').locator('[aria-invalid="true"]')).toHaveCount(0)
  })

  test('adds members (none chosen is refused) and removes one', async ({ page }) => {
    await signInWithToken(page, '/settings/teams')
    const path = await createTeam(page, unique('member-team'))
    await expect(page.getByTestId('members-empty')).toHaveText("You haven't added any team members to the team yet.")

    await page.getByTestId('add-members').click()
    const form = page.getByTestId('add-members-form')
    await expect(form).toBeVisible()
    await hydrated(page)
    await expect(form.locator('[aria-invalid="true"]')).toHaveCount(0)
    // Nobody chosen: refused with the reason, the dialog stays open.
    await form.getByTestId('add-members-submit').click()
    await expect(page.getByTestId('add-members-form')).toContainText('Choose at least one person to add.')

    const options = page.getByTestId('add-members-form').locator('label').filter({ has: page.locator('input[data-email$="@acme-shop.io"]') })
    const pick = async (index: number) => {
      const option = options.nth(index)
      const email = (await option.locator('input').getAttribute('data-email'))!
      await option.locator('input[type="checkbox"]').check()
      return email
    }
    const first = await pick(0)
    const second = await pick(1)
    await page.getByTestId('add-members-submit').click()
    await expect(page.getByTestId('toast')).toContainText('added to the team successfully')
    await expect(page).toHaveURL(new RegExp(`${path}\\?tab=members$`))
    const rows = page.getByTestId('members-table').getByTestId('member-row')
    await expect(rows).toHaveCount(2)

    await page.locator(`[data-testid="member-row"][data-email="${first}"]`).getByTestId('remove-member').click()
    await expect(page.getByTestId('toast')).toContainText('removed from team successfully')
    await expect(rows).toHaveCount(1)
    await expect(rows).toContainText(second)
  })
})
