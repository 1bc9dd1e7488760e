import { expect, test, type Page } from './support/test.ts'
import { hasJs, project, ready, screenshotAtSizes } from './support/page.ts'
import { signInWithPassword } from './support/sign-in.ts'
import { E2E_ORIGIN } from '../../playwright.config.ts'
import { buildMcpClientSetups, MCP_ACCEPT, MCP_FIRST_CALL, MCP_TOKEN_DEFAULT_SCOPE } from '../../app/lib/mcp-clients.ts'

/**
 * Setup MCP (issue 18 item 8; spec 002 §2), with JavaScript on and off: the user menu opens the
 * dialog as a URL, the token is created through the tokens page's action, the created token shows
 * every client's setup with the real endpoint and token, and that token opens an MCP session on
 * the real /api/mcp.
 */

const MCP_URL = `${E2E_ORIGIN}/api/mcp`

async function openSetupMcp(page: Page): Promise<void> {
  await page.getByTestId('user-menu').locator('summary').click()
  await page.getByTestId('setup-mcp').click()
  await expect(page).toHaveURL(/[?&]mcp=open$/)
  await expect(page.getByTestId('mcp-setup-dialog')).toBeVisible()
}

/** One JSON-RPC call to the MCP endpoint as an assistant makes it: a POST with the bearer token. */
async function callMcp(token: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(MCP_URL, {
    method: 'POST',
    headers: { Authorization: `Bearer ${token}`, Accept: MCP_ACCEPT, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: response.status, json: await response.json() }
}

test('Setup MCP: create a token, every client’s setup carries the endpoint and the token, and the token opens an MCP session', async ({ page, context }) => {
  await signInWithPassword(page, '/health')
  await ready(page)
  await openSetupMcp(page)
  const dialog = page.getByTestId('mcp-setup-dialog')
  await expect(dialog.getByTestId('mcp-setup-endpoint')).toHaveText(MCP_URL)
  await expect(dialog.getByTestId('mcp-setup-step-endpoint')).toContainText('search_catalog')
  // The create-token form, with the scopes an assistant needs ticked and nothing else.
  for (const scope of MCP_TOKEN_DEFAULT_SCOPE) await expect(dialog.locator(`input[name="scope"][value="${scope}"]`)).toBeChecked()
  await expect(dialog.locator('input[name="scope"]:checked')).toHaveCount(MCP_TOKEN_DEFAULT_SCOPE.length)
  await screenshotAtSizes(page, 'mcp-setup', 'dialog')

  if (hasJs()) {
    await page.keyboard.press('Escape')
    await expect(dialog).toHaveCount(0)
    await expect(page).toHaveURL(/\/health$/)
    await openSetupMcp(page)
  }

  const name = `mcp-setup-${project()}-${Date.now().toString(36)}`
  await dialog.getByTestId('token-name-input').fill(name)
  await dialog.getByTestId('create-token-submit').click()

  // The tokens page's answer: the token once, masked until revealed, with the client setups.
  const created = page.getByTestId('token-created')
  await expect(created.getByTestId('token-name')).toHaveText(name)
  await expect(page).toHaveURL(/\/settings\/tokens\?dialog=new$/)
  const token = (await created.getByTestId('token-value').textContent()) ?? ''
  expect(token).toMatch(/^lkt_[\w-]{20,}$/)
  await expect(created.getByTestId('mcp-endpoint')).toHaveText(MCP_URL)
  await expect(created.getByTestId('mcp-code-masked').first()).toBeVisible()
  await created.getByTestId('token-reveal-button').click()
  await expect(created.getByTestId('token-value')).toBeVisible()

  const setups = buildMcpClientSetups(MCP_URL, token)
  expect(setups.map((setup) => setup.label)).toEqual(['Claude Desktop', 'Claude Code', 'VS Code Copilot', 'Cline', 'Continue.dev', 'Zed Editor', 'Direct HTTP'])
  for (const setup of setups) {
    const tab = created.getByTestId(`mcp-tab-${setup.id}`)
    const panel = created.getByTestId(`mcp-panel-${setup.id}`)
    await expect(tab).toHaveText(setup.label)
    if (hasJs()) {
      // Real tabs: the clicked one is selected and its panel is the only one shown.
      await tab.click()
      await expect(tab).toHaveAttribute('aria-selected', 'true')
      await expect(created.locator('[role="tabpanel"]:visible')).toHaveCount(1)
    } else {
      // Every panel is on the page; the tab is a link to it.
      await expect(tab).toHaveAttribute('href', `#mcp-setup-${setup.id}`)
      await tab.click()
      await expect(page).toHaveURL(new RegExp(`#mcp-setup-${setup.id}$`))
    }
    await expect(panel).toBeVisible()
    const code = panel.getByTestId('mcp-code')
    await expect(code).toBeVisible()
    await expect(code).toContainText(MCP_URL)
    await expect(code).toContainText(token)
    await expect(code).toHaveText(setup.code)
  }
  if (!hasJs()) {
    for (const setup of setups) await expect(created.getByTestId(`mcp-panel-${setup.id}`)).toBeVisible()
  }
  await created.getByTestId(`mcp-tab-claude-desktop`).click()
  await screenshotAtSizes(page, 'mcp-setup', 'token-created')

  if (hasJs()) {
    // Arrow keys move between the tabs; the copy button takes the real snippet.
    await created.getByTestId('mcp-tab-claude-desktop').focus()
    await page.keyboard.press('ArrowRight')
    await expect(created.getByTestId('mcp-tab-claude-code')).toBeFocused()
    await expect(created.getByTestId('mcp-tab-claude-code')).toHaveAttribute('aria-selected', 'true')
    await context.grantPermissions(['clipboard-read', 'clipboard-write'])
    await created.getByTestId('mcp-panel-claude-code').getByTestId('mcp-copy').click()
    await expect(created.getByTestId('toast')).toHaveText('Claude Code setup copied to clipboard')
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(setups[1]!.code)
    await page.keyboard.press('Escape')
    await expect(created).toHaveCount(0)
  }

  // The token works: the Direct HTTP tab's call, made as an assistant makes it.
  const initialize = await callMcp(token, MCP_FIRST_CALL)
  expect(initialize.status).toBe(200)
  expect(initialize.json).toMatchObject({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2024-11-05', serverInfo: { name: expect.any(String) }, capabilities: { tools: {} } } })
  // And the scopes the dialog ticked let its tools answer: the catalog reads.
  const search = await callMcp(token, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search_catalog', arguments: { limit: 1 } } })
  expect(search.status).toBe(200)
  const result = (search.json as { result: { isError?: boolean; content: Array<{ type: string; text: string }> } }).result
  expect(result.isError ?? false).toBe(false)
  expect(JSON.parse(result.content[0]!.text)).toMatchObject({ configs: [expect.objectContaining({ id: expect.any(String) })] })
})
