import { expect, test, type APIRequestContext, type Page } from './support/test.ts'
import { E2E_ADMIN, E2E_TOKEN } from '../../playwright.config.ts'

/**
 * The access screens (permissions, users, teams, tokens, kubeconfig dialog) against the real server,
 * with and without JavaScript: every dialog is a URL and every button a form post.
 */

function unique(prefix: string, projectName: string): string {
  return `${prefix}-${projectName}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`
}

async function signInAsAdmin(page: Page, returnTo: string): Promise<void> {
  await page.goto(`/login?return_to=${encodeURIComponent(returnTo)}`)
  const form = page.getByTestId('password-login-form')
  await form.locator('input[name="identifier"]').fill(E2E_ADMIN.email)
  await form.locator('input[name="password"]').fill(E2E_ADMIN.password)
  await form.locator('button[name="method"][value="password"]').click()
  await expect(page).toHaveURL(new RegExp(`${returnTo.replace(/[?]/g, '\\?')}$`))
}

/** The newest mail to an address, read through the admin-only outbox with the bootstrap token. */
async function latestMail(request: APIRequestContext, to: string, subject: RegExp): Promise<string> {
  let body = ''
  await expect
    .poll(async () => {
      const response = await request.get(`/api/auth/outbox?to=${encodeURIComponent(to)}`, { headers: { authorization: `Bearer ${E2E_TOKEN}` } })
      expect(response.status()).toBe(200)
      const { payload } = (await response.json()) as { payload: { subject: string; body: string }[] }
      body = payload.find((mail) => subject.test(mail.subject))?.body ?? ''
      return body
    })
    .not.toBe('')
  return body
}

async function inviteUser(page: Page, email: string, role: string): Promise<void> {
  await page.goto('/settings/users')
  await page.getByTestId('invite-user').click()
  const form = page.getByTestId('invite-form')
  await form.locator('input[name="firstName"]').fill('Eve')
  await form.locator('input[name="lastName"]').fill('Invited')
  await form.locator('input[name="email"]').fill(email)
  await form.getByTestId('invite-role').selectOption(role)
  await form.getByTestId('invite-submit').click()
  await expect(page.getByTestId('invite-result')).toContainText(email)
  await expect(page.getByTestId('invite-link')).toContainText('/api/.ory/')
}

test.describe('access screens', () => {
  test('creates a token with a scope, shows it once and deletes it; an empty name never posts', { tag: '@smoke' }, async ({ page }, testInfo) => {
    await signInAsAdmin(page, '/settings/tokens')
    await page.getByTestId('create-token-open').click()
    const form = page.getByTestId('create-token-form')
    const nameInput = form.getByTestId('token-name-input')
    // getZodConstraint puts the schema's rule into the page as a native `required`.
    await expect(nameInput).toHaveAttribute('required', '')
    if (testInfo.project.name === 'no-js') {
      await form.getByTestId('create-token-submit').click()
      // Without JavaScript the browser itself refuses the empty field: no POST, the form stays.
      expect(await nameInput.evaluate((input: HTMLInputElement) => input.validity.valueMissing)).toBe(true)
      await expect(form).toBeVisible()
      // No server round trip happened: the server's own message is not on the page.
      await expect(form).not.toContainText('Name is required')
    } else {
      // With JavaScript the button stays disabled while the name is empty (spec 002 §5).
      await page.waitForSelector('html[data-hydrated]')
      await expect(form.getByTestId('create-token-submit')).toBeDisabled()
    }

    const name = unique('token', testInfo.project.name)
    await nameInput.fill(name)
    // Leaving the field revalidates it and removes the message (the checkboxes move up).
    await nameInput.blur()
    await expect(form).not.toContainText('Name is required')
    await form.locator('input[name="scope"][value="canaries/read"]').check()
    await form.getByTestId('create-token-submit').click()
    const created = page.getByTestId('token-created')
    await expect(created.getByTestId('token-name')).toHaveText(name)
    await expect(page.getByTestId('toast')).toHaveText('Token created successfully')

    await page.goto('/settings/tokens')
    await expect(page.getByTestId('token-created')).toHaveCount(0)
    const row = page.getByTestId('token-row').filter({ hasText: name })
    await expect(row).toHaveCount(1)
    await row.getByRole('button', { name: `Delete ${name}` }).click()
    await expect(page.getByTestId('toast')).toHaveText(`${name} deleted successfully`)
    await expect(page.getByTestId('token-row').filter({ hasText: name })).toHaveCount(0)
  })

  test('invites a user with a role and lists them', async ({ page }, testInfo) => {
    await signInAsAdmin(page, '/settings/users')
    const email = `${unique('invitee', testInfo.project.name)}@e2e.example.com`
    await inviteUser(page, email, 'editor')
    await page.getByTestId('invite-done').click()
    const row = page.locator(`[data-testid="user-row"][data-email="${email}"]`)
    await expect(row).toContainText('Eve Invited')
    await expect(row.getByTestId('user-roles')).toContainText('editor')

    // Inviting the same address again shows the server's message in the dialog.
    await page.goto('/settings/users?dialog=invite')
    const form = page.getByTestId('invite-form')
    await form.locator('input[name="email"]').fill(email)
    await form.getByTestId('invite-role').selectOption('viewer')
    await form.getByTestId('invite-submit').click()
    await expect(page.getByTestId('invite-form').getByTestId('inline-error')).toContainText('user already exists')
  })

  test('Set role changes the role of a user and confirms with a toast', async ({ page }, testInfo) => {
    await signInAsAdmin(page, '/settings/users')
    const email = `${unique('role', testInfo.project.name)}@e2e.example.com`
    await inviteUser(page, email, 'viewer')
    await page.getByTestId('invite-done').click()
    if (testInfo.project.name === 'js') await page.waitForSelector('html[data-hydrated]')
    const row = page.locator(`[data-testid="user-row"][data-email="${email}"]`)
    await expect(row.getByTestId('user-roles')).toContainText('viewer')
    await row.getByRole('combobox', { name: 'Role of Eve Invited' }).selectOption('editor')
    await row.getByRole('button', { name: 'Set role' }).click()
    await expect(page.getByTestId('toast')).toHaveText('Eve Invited is now editor')
    await expect(row.getByTestId('user-roles')).toContainText('editor')
    await expect(row.getByTestId('user-roles')).not.toContainText('viewer')
  })

  test('creates a team, adds two members at once and removes one', async ({ page }, testInfo) => {
    await signInAsAdmin(page, '/settings/teams')
    await page.getByTestId('add-team').click()
    const name = unique('team', testInfo.project.name)
    await page.getByTestId('team-create-form').locator('input[name="name"]').fill(name)
    await page.getByTestId('team-create-submit').click()
    await expect(page).toHaveURL(/\/settings\/teams\/[0-9a-f-]{36}\?tab=members$/)
    await expect(page.getByTestId('team-name')).toHaveText(name)
    await expect(page.getByTestId('members-empty')).toHaveText("You haven't added any team members to the team yet.")

    await page.getByTestId('add-members').click()
    // Demo staff: their names are unique (accounts registered by other tests share one name).
    const options = page.getByTestId('add-members-form').locator('label').filter({ has: page.locator('input[data-email$="@acme-shop.io"]') })
    const pick = async (index: number) => {
      const option = options.nth(index)
      const name = (await option.locator('span').first().textContent())!.trim()
      const email = (await option.locator('input').getAttribute('data-email'))!
      await option.locator('input[type="checkbox"]').check()
      return { name, email }
    }
    const first = await pick(0)
    const second = await pick(1)
    await page.getByTestId('add-members-submit').click()
    await expect(page.getByTestId('toast')).toHaveText(`${first.name}, ${second.name} added to the team successfully`)
    await expect(page.getByTestId('member-row')).toHaveCount(2)

    await page.getByTestId('member-row').filter({ hasText: first.email }).getByTestId('remove-member').click()
    await expect(page.getByTestId('toast')).toHaveText(`${first.name} removed from team successfully`)
    await expect(page.getByTestId('member-row')).toHaveCount(1)
    await expect(page.getByTestId('member-row')).toContainText(second.email)

    // The list counts the remaining member; the other generic tables still answer.
    await page.goto('/settings/teams')
    await expect(page.getByTestId('team-row').filter({ hasText: name })).toContainText('1')
    await page.goto('/settings/canaries')
    await expect(page.getByTestId('page-title')).toHaveText(/Canaries/)

    // Delete asks first, then the team is gone from the list.
    await page.goto('/settings/teams')
    await page.getByTestId('team-row').filter({ hasText: name }).getByRole('link', { name }).click()
    await page.getByTestId('team-delete').click()
    await expect(page.getByTestId('delete-team-dialog')).toContainText('Are you sure you want to delete this resource?')
    await page.getByTestId('delete-team-dialog-confirm').click()
    await expect(page).toHaveURL(/\/settings\/teams$/)
    await expect(page.getByTestId('toast')).toHaveText(`${name} deleted successfully`)
    await expect(page.getByTestId('team-row').filter({ hasText: name })).toHaveCount(0)
  })

  test('a viewer signed in from the invitation mail gets no settings', async ({ page, browser }, testInfo) => {
    await signInAsAdmin(page, '/settings/users')
    const email = `${unique('viewer', testInfo.project.name)}@e2e.example.com`
    await inviteUser(page, email, 'viewer')
    const mail = await latestMail(page.request, email, /invited/i)
    const link = /https?:\/\/\S+/.exec(mail)?.[0]
    expect(link).toBeTruthy()

    const context = await browser.newContext({ javaScriptEnabled: testInfo.project.name !== 'no-js' })
    const viewer = await context.newPage()
    try {
      await viewer.goto(link!)
      await expect(viewer).toHaveURL(/\/profile-settings/)
      await viewer.goto('/settings/permissions')
      await expect(viewer.getByText('You do not have permission to access this page')).toBeVisible()
      await expect(viewer.getByTestId('sidebar')).toBeVisible()
      await expect(viewer.getByTestId('nav-settings')).toHaveCount(0)
      await viewer.goto('/settings/users')
      await expect(viewer.getByText('You do not have permission to access this page')).toBeVisible()
    } finally {
      await context.close()
    }
  })

  test('the kubeconfig dialog walks through download, apply and docs', async ({ page }, testInfo) => {
    await signInAsAdmin(page, '/settings/permissions')
    await page.getByTestId('user-menu').locator('summary').click()
    await page.getByTestId('download-kubeconfig').click()
    const dialog = page.getByTestId('kubeconfig-dialog')
    await expect(dialog).toBeVisible()
    await expect(page).toHaveURL(/\/settings\/permissions\?kubeconfig=open$/)
    await expect(dialog.getByTestId('kubeconfig-download')).toHaveAttribute('href', '/api/kubeconfig')
    await expect(dialog.getByTestId('kubeconfig-step-2')).toContainText('Apply the file')
    const example = dialog.getByTestId('kubeconfig-example')
    await expect(example).toContainText('get canaries')
    if (testInfo.project.name === 'js') await expect(example).toHaveText('kubectl --kubeconfig ./localhost-kubeconfig.yaml get canaries')
    else await expect(example).toContainText('-kubeconfig.yaml')
    await expect(dialog.getByTestId('kubeconfig-docs')).toHaveAttribute('href', /^https:\/\//)

    // The file itself: an attachment named after the host.
    const file = await page.request.get('/api/kubeconfig')
    expect(file.status()).toBe(200)
    expect(file.headers()['content-disposition']).toBe('attachment; filename=localhost-kubeconfig.yaml')

    await dialog.getByTestId('kubeconfig-close').click()
    await expect(page.getByTestId('kubeconfig-dialog')).toHaveCount(0)
    await expect(page).toHaveURL(/\/settings\/permissions$/)
  })
})
