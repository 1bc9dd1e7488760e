import { expect, test, type APIRequestContext, type Page } from './support/test.ts'
import { E2E_ADMIN, E2E_ORIGIN, E2E_TOKEN } from '../../playwright.config.ts'

/**
 * Feature flags and the token-created dialog (issue 12 items 4 and 11), with JavaScript on and
 * off: every change is a form post, every dialog a URL, the token's reveal a plain form control;
 * the client tabs are links to every panel without JavaScript and tabs with it.
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

async function waitForHydration(page: Page): Promise<void> {
  if (test.info().project.name === 'js') await page.waitForSelector('html[data-hydrated]')
}

/** Puts a flag back through the API, whatever the page did (a failed test must not leave a feature off). */
async function setProperty(request: APIRequestContext, name: string, value: string): Promise<void> {
  const response = await request.post('/api/db/properties?on_conflict=name', {
    headers: { Authorization: `Bearer ${E2E_TOKEN}`, 'Content-Type': 'application/json', Prefer: 'resolution=merge-duplicates' },
    data: { name, value, deleted_at: null },
  })
  expect(response.status()).toBe(201)
}

/** Invites an editor through the users screen and returns the one-time sign-in link from the mail. */
async function inviteEditor(page: Page, email: string): Promise<string> {
  await page.goto('/settings/users?dialog=invite')
  const form = page.getByTestId('invite-form')
  await form.locator('input[name="firstName"]').fill('Ed')
  await form.locator('input[name="lastName"]').fill('Itor')
  await form.locator('input[name="email"]').fill(email)
  await form.getByTestId('invite-role').selectOption('editor')
  await form.getByTestId('invite-submit').click()
  await expect(page.getByTestId('invite-result')).toContainText(email)
  let body = ''
  await expect
    .poll(async () => {
      const response = await page.request.get(`/api/auth/outbox?to=${encodeURIComponent(email)}`, { headers: { authorization: `Bearer ${E2E_TOKEN}` } })
      const { payload } = (await response.json()) as { payload: { subject: string; body: string }[] }
      body = payload.find((mail) => /invited/i.test(mail.subject))?.body ?? ''
      return body
    })
    .not.toBe('')
  const link = /https?:\/\/\S+/.exec(body)?.[0]
  expect(link).toBeTruthy()
  return link!
}

test.describe('feature flags', () => {
  test('switches an area off and on; its settings child shows as disabled by the parent', async ({ page, request }, testInfo) => {
    await signInAsAdmin(page, '/settings/feature-flags')
    try {
      await waitForHydration(page)
      const topology = page.locator('[data-testid="feature-row"][data-feature="topology"]')
      const child = page.locator('[data-testid="feature-row"][data-feature="settings.topology"]')
      await expect(topology).toHaveAttribute('data-state', 'enabled')
      await expect(child).toHaveAttribute('data-state', 'enabled')

      await topology.getByRole('button', { name: 'Disable topology' }).click()
      await expect(page.getByTestId('toast')).toHaveText('topology disabled successfully')
      await expect(topology).toHaveAttribute('data-state', 'disabled')
      await expect(topology.getByTestId('feature-state')).toContainText('Disabled')
      // The child's own flag is untouched, yet it is off through its parent, and says so.
      await expect(child).toHaveAttribute('data-state', 'inherited')
      await expect(child.getByTestId('feature-state')).toContainText('Disabled by parent')
      await expect(child.getByTestId('feature-state')).toContainText('via topology')
      await expect(child.getByRole('button', { name: 'Disable settings.topology' })).toBeVisible()
      // The flag is a property like any other, listed below.
      await expect(page.locator('[data-testid="property-row"][data-name="topology.disable"]')).toContainText('true')
      if (testInfo.project.name === 'js') {
        await page.screenshot({ path: 'test-results/screenshots/feature-flags.png', fullPage: true })
      }

      await topology.getByRole('button', { name: 'Enable topology' }).click()
      await expect(page.getByTestId('toast')).toHaveText('topology enabled successfully')
      await expect(topology).toHaveAttribute('data-state', 'enabled')
      await expect(child).toHaveAttribute('data-state', 'enabled')
    } finally {
      await setProperty(request, 'topology.disable', 'false')
    }
  })

  test('adds, edits and deletes a property; a blank or taken name is refused', async ({ page }, testInfo) => {
    await signInAsAdmin(page, '/settings/feature-flags')
    await waitForHydration(page)
    const name = unique('e2e.flag', testInfo.project.name)

    await page.getByTestId('add-property').click()
    const form = page.getByTestId('property-form')
    const nameInput = form.locator('input[name="name"]')
    await expect(nameInput).toHaveAttribute('required', '')
    await form.getByTestId('property-submit').click()
    if (testInfo.project.name === 'no-js') {
      // The browser refuses the empty field itself: nothing is posted.
      expect(await nameInput.evaluate((input: HTMLInputElement) => input.validity.valueMissing)).toBe(true)
      await expect(form).not.toContainText('Name is required')
    } else {
      await expect(form).toContainText('Name is required')
    }

    await nameInput.fill(name)
    await form.locator('input[name="value"]').fill('one')
    await form.getByTestId('property-submit').click()
    await expect(page.getByTestId('toast')).toHaveText(`${name} added successfully`)
    const row = page.locator(`[data-testid="property-row"][data-name="${name}"]`)
    await expect(row).toContainText('one')
    await expect(row).toContainText('db')

    // The same name again is the server's refusal, inline on the field.
    await page.goto('/settings/feature-flags?dialog=add')
    await waitForHydration(page)
    await page.getByTestId('property-form').locator('input[name="name"]').fill(name)
    await page.getByTestId('property-form').locator('input[name="value"]').fill('again')
    await page.getByTestId('property-form').getByTestId('property-submit').click()
    await expect(page.getByTestId('property-form')).toContainText(`A property named ${name} already exists`)

    await page.goto('/settings/feature-flags')
    await waitForHydration(page)
    await row.getByRole('link', { name: `Edit ${name}` }).click()
    const edit = page.getByTestId('property-form')
    await expect(edit.getByTestId('property-name')).toHaveText(name)
    await expect(edit.locator('input[name="value"]')).toHaveValue('one')
    await edit.locator('input[name="value"]').fill('two')
    await edit.getByTestId('property-submit').click()
    await expect(page.getByTestId('toast')).toHaveText(`${name} updated successfully`)
    await expect(row).toContainText('two')

    await row.getByRole('link', { name: `Delete ${name}` }).click()
    await expect(page.getByTestId('delete-property-dialog')).toContainText(`Are you sure you want to delete ${name}?`)
    await page.getByTestId('delete-property-dialog-confirm').click()
    await expect(page.getByTestId('toast')).toHaveText(`${name} deleted successfully`)
    await expect(row).toHaveCount(0)

    // Deleted is soft: adding the name again brings it back with the new value.
    await page.goto('/settings/feature-flags?dialog=add')
    await waitForHydration(page)
    await page.getByTestId('property-form').locator('input[name="name"]').fill(name)
    await page.getByTestId('property-form').locator('input[name="value"]').fill('three')
    await page.getByTestId('property-form').getByTestId('property-submit').click()
    await expect(page.getByTestId('toast')).toHaveText(`${name} added successfully`)
    await expect(row).toContainText('three')
  })

  test('an editor sees the flags read-only and cannot post a change', async ({ page, browser }, testInfo) => {
    await signInAsAdmin(page, '/settings/users')
    const link = await inviteEditor(page, `${unique('editor', testInfo.project.name)}@e2e.example.com`)
    const context = await browser.newContext({ javaScriptEnabled: testInfo.project.name !== 'no-js' })
    const editor = await context.newPage()
    try {
      await editor.goto(link)
      await expect(editor).toHaveURL(/\/profile-settings/)
      await editor.goto('/settings/feature-flags')
      await expect(editor.locator('[data-testid="feature-row"][data-feature="health"]')).toBeVisible()
      await expect(editor.getByTestId('properties-page')).toContainText('Only admins can change them.')
      await expect(editor.getByTestId('feature-toggle')).toHaveCount(0)
      await expect(editor.getByTestId('add-property')).toHaveCount(0)
      await expect(editor.getByTestId('edit-property')).toHaveCount(0)
      // The action refuses a hand-made post too (the API would as well: properties are admin-only).
      const refused = await editor.request.post('/settings/feature-flags', {
        form: { intent: 'toggle', feature: 'health', disabled: 'true' },
        headers: { origin: E2E_ORIGIN },
        maxRedirects: 0,
      })
      expect(refused.status()).toBe(403)
    } finally {
      await context.close()
    }
    await page.goto('/settings/feature-flags')
    await expect(page.locator('[data-testid="feature-row"][data-feature="health"]')).toHaveAttribute('data-state', 'enabled')
  })
})

test.describe('tokens', () => {
  test('the owner column names the owner; Create Token refuses a blank name', async ({ page }, testInfo) => {
    await signInAsAdmin(page, '/settings/tokens?dialog=new')
    await waitForHydration(page)
    const form = page.getByTestId('create-token-form')
    const nameInput = form.getByTestId('token-name-input')
    const submit = form.getByTestId('create-token-submit')
    if (testInfo.project.name === 'js') {
      // Spec 002 §5: disabled while the name is empty or blank.
      await expect(submit).toBeDisabled()
      await nameInput.fill('   ')
      await expect(submit).toBeDisabled()
      await nameInput.fill('x')
      await expect(submit).toBeEnabled()
      await nameInput.fill('')
      await expect(submit).toBeDisabled()
    } else {
      // Without JavaScript the browser's own constraints refuse an empty and a blank name.
      await submit.click()
      expect(await nameInput.evaluate((input: HTMLInputElement) => input.validity.valueMissing)).toBe(true)
      await nameInput.fill('   ')
      await submit.click()
      expect(await nameInput.evaluate((input: HTMLInputElement) => input.validity.patternMismatch)).toBe(true)
      await expect(page).toHaveURL(/\/settings\/tokens\?dialog=new$/)
      await expect(form).not.toContainText('Name is required')
    }

    const name = unique('owned', testInfo.project.name)
    await nameInput.fill(name)
    await submit.click()
    await expect(page.getByTestId('token-created').getByTestId('token-name')).toHaveText(name)
    await page.goto('/settings/tokens')
    const row = page.getByTestId('token-row').filter({ hasText: name })
    await expect(row.getByTestId('token-owner')).toContainText(E2E_ADMIN.email)
    await expect(row.getByTestId('token-owner')).not.toContainText('(Token)')
  })

  test('the created token stays masked in the MCP setup tabs until revealed', async ({ page, context }, testInfo) => {
    await signInAsAdmin(page, '/settings/tokens?dialog=new')
    await waitForHydration(page)
    const name = unique('mcp', testInfo.project.name)
    await page.getByTestId('token-name-input').fill(name)
    await page.getByTestId('create-token-form').locator('input[name="scope"][value="mcp/*"]').check()
    await page.getByTestId('create-token-submit').click()

    const created = page.getByTestId('token-created')
    await expect(created.getByTestId('token-name')).toHaveText(name)
    const secret = (await created.getByTestId('token-value').textContent()) ?? ''
    expect(secret.length).toBeGreaterThan(20)
    await expect(created.getByTestId('token-masked')).toBeVisible()
    await expect(created.getByTestId('token-value')).toBeHidden()

    // Tabs: the first client is open, the others closed (without JavaScript every panel shows,
    // the tabs linking to them); every snippet is masked.
    const desktop = created.getByTestId('mcp-panel-claude-desktop')
    const vscode = created.getByTestId('mcp-panel-vscode')
    const hasJs = testInfo.project.name === 'js'
    await expect(desktop).toBeVisible()
    if (hasJs) await expect(vscode).toBeHidden()
    else await expect(vscode).toBeVisible()
    await expect(desktop.getByTestId('mcp-code-masked')).toBeVisible()
    await expect(desktop.getByTestId('mcp-code-masked')).toContainText('/mcp')
    await expect(desktop.getByTestId('mcp-code-masked')).not.toContainText(secret)
    await expect(desktop.getByTestId('mcp-code')).toBeHidden()
    for (const label of ['Claude Desktop', 'Claude Code', 'VS Code Copilot', 'Cline', 'Continue.dev', 'Zed Editor', 'Direct HTTP']) {
      await expect(created.getByTestId('mcp-tabs').getByText(label, { exact: true })).toBeVisible()
    }
    if (testInfo.project.name === 'js') {
      await page.screenshot({ path: 'test-results/screenshots/token-created.png', fullPage: true })
    }

    await created.getByTestId('mcp-tabs').getByText('VS Code Copilot', { exact: true }).click()
    await expect(vscode).toBeVisible()
    if (hasJs) await expect(desktop).toBeHidden()
    await expect(vscode.getByTestId('mcp-code-masked')).toContainText('"servers"')

    // Reveal: the token and every snippet show the real value.
    await created.getByTestId('token-reveal-button').click()
    await expect(created.getByTestId('token-value')).toBeVisible()
    await expect(created.getByTestId('token-masked')).toBeHidden()
    await expect(vscode.getByTestId('mcp-code')).toBeVisible()
    await expect(vscode.getByTestId('mcp-code')).toContainText(`Bearer ${secret}`)

    if (testInfo.project.name === 'js') {
      // Copy takes the real token whatever is on screen.
      await context.grantPermissions(['clipboard-read', 'clipboard-write'])
      await created.getByTestId('token-reveal-button').click()
      await expect(created.getByTestId('token-masked')).toBeVisible()
      await created.getByTestId('token-copy').click()
      await expect(created.getByTestId('toast')).toHaveText('Token copied to clipboard')
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret)
    }
  })
})
