import { randomUUID } from 'node:crypto'
import { expect, test } from './support/test.ts'
import { project, ready, screenshotAtSizes } from './support/page.ts'
import { signInWithToken } from './support/sign-in.ts'

/**
 * /settings/agents (issue 18 item 4), with JavaScript on and off: generate an agent in the
 * dialog (its token and install lines shown once), push results as that agent, see them counted
 * on the list and reachable by the agent filters, edit its properties, delete it.
 */

const unique = (prefix: string) => `${prefix}-${project()}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`

test.describe('agents', () => {
  test('generate, push as the agent, edit and delete', async ({ page, request }) => {
    const name = unique('edge')
    await signInWithToken(page, '/settings/agents')
    await ready(page)
    await page.getByTestId('generate-agent-open').click()
    const dialog = page.getByTestId('generate-agent-dialog')
    await expect(dialog).toBeVisible()

    // An empty name is refused by the browser before anything is posted.
    await dialog.getByTestId('generate-agent-submit').click()
    await expect(dialog.getByTestId('agent-name-input')).toHaveJSProperty('validity.valueMissing', true)

    await dialog.getByTestId('agent-name-input').fill(name)
    await dialog.locator('textarea').fill('region=eu')
    await dialog.getByTestId('generate-agent-submit').click()
    const created = page.getByTestId('agent-created')
    await expect(created).toBeVisible()
    const token = await created.getByTestId('agent-token').inputValue()
    expect(token.length).toBeGreaterThan(24)
    await expect(created.getByTestId('agent-install-env')).toContainText(`LOOKOUT_UPSTREAM_AGENT_TOKEN=${token}`)
    await expect(created.getByTestId('agent-install-env')).toContainText('LOOKOUT_UPSTREAM_AGENT_URL=http')
    await expect(created.getByTestId('agent-install-helm')).toContainText(`agent: ${name}`)
    await screenshotAtSizes(page, 'agents', 'created')

    // The agent pushes a canary, a check and a result with its own token.
    const canaryId = randomUUID()
    const checkId = randomUUID()
    const pushed = await request.post('/api/upstream/push', {
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      data: {
        canaries: [{ id: canaryId, name: `${name}-canary`, namespace: 'default', spec: {} }],
        checks: [{ id: checkId, canary_id: canaryId, type: 'http', name: `${name}-check`, status: 'healthy' }],
        check_statuses: [{ check_id: checkId, time: new Date().toISOString(), status: true, duration: 10 }],
      },
    })
    expect(pushed.status(), await pushed.text()).toBe(200)

    // Reloading shows the list without the secret, with the agent online and its check counted.
    await page.goto('/settings/agents')
    await ready(page)
    await expect(page.getByTestId('agents-page')).not.toContainText(token)
    const row = page.getByTestId('agent-row').filter({ has: page.getByTestId('agent-name').getByText(name, { exact: true }) })
    await expect(row.getByTestId('agent-status')).toHaveText('online')
    await expect(row.getByTestId('agent-checks')).toHaveText('1')
    await screenshotAtSizes(page, 'agents', 'list')

    // The checks count opens /health on the agent's tab.
    await row.getByTestId('agent-checks').click()
    await expect(page).toHaveURL(/\/health\?tabBy=agent_id&tab=/)
    // Grouped by canary (the default): the agent's canary is the one group of its tab.
    await expect(page.getByTestId('health-page')).toContainText(`${name}-canary`)
    await expect(page.getByTestId('health-page')).toContainText(`${name} (1)`)
    await expect(page).toHaveURL(/hidePassing=false/)

    await page.goto('/settings/agents')
    await ready(page)
    await row.getByTestId('agent-edit').click()
    const edit = page.getByTestId('edit-agent-dialog')
    await expect(edit.getByTestId('agent-properties-input')).toHaveValue('region=eu')
    await edit.getByTestId('agent-properties-input').fill('region=eu\ntier=edge')
    await edit.getByTestId('edit-agent-submit').click()
    await expect(page.getByTestId('edit-agent-dialog')).toHaveCount(0)
    await row.getByTestId('agent-edit').click()
    await expect(page.getByTestId('edit-agent-dialog').getByTestId('agent-properties-input')).toHaveValue('region=eu\ntier=edge')
    await page.goto('/settings/agents')
    await ready(page)

    await row.getByTestId('agent-delete').click()
    await expect(page.getByTestId('agent-name').getByText(name, { exact: true })).toHaveCount(0)
    // Deleting the agent expired its token.
    const after = await request.get('/api/upstream/ping', { headers: { Authorization: `Bearer ${token}` } })
    expect(after.status()).toBe(401)
  })
})
