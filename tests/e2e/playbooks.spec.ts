import { E2E_TOKEN } from '../../playwright.config.ts'
import { expect, test, type Page } from './support/test.ts'
import { signInWithToken } from './support/sign-in.ts'
import { hasJs, project, ready, screenshotAtSizes } from './support/page.ts'

/**
 * The playbook screens (issue 16 item 6) with JavaScript and without it: the catalogue and the
 * Run Playbook dialog (a page without JavaScript) with its parameter fields, a run from a config
 * page's Playbooks drop-down, approving and cancelling a run, a run watched until it finishes,
 * and the runs list's URL filters. Each test writes its own playbooks through the data API with
 * harmless exec actions (echo, sleep). Screenshots go to test-results/screenshots/playbooks-*.png.
 */

const api = { authorization: `Bearer ${E2E_TOKEN}` }
test.use({ viewport: { width: 1440, height: 900 } })

const shots = (page: Page, name: string) => screenshotAtSizes(page, 'playbooks', name)

/** A name no other test or project run uses. */
const unique = (base: string) => `${base}-${project()}-${Date.now().toString(36)}`

/** Writes a playbook through the data API, as the editor does; answers its id. */
async function createPlaybook(page: Page, name: string, spec: Record<string, unknown>): Promise<string> {
  const response = await page.request.post('/api/db/playbooks?select=id', {
    headers: { ...api, prefer: 'return=representation' },
    data: { name, namespace: 'default', title: spec.title, category: spec.category ?? 'E2E', description: spec.description ?? '', spec },
  })
  expect(response.status(), await response.text()).toBe(201)
  return ((await response.json()) as Array<{ id: string }>)[0]!.id
}

async function startRun(page: Page, body: Record<string, unknown>): Promise<string> {
  const response = await page.request.post('/api/playbook/run', { headers: api, data: body })
  expect(response.status(), await response.text()).toBe(201)
  return ((await response.json()) as { run_id: string }).run_id
}

/** A team with the token's person in it: approvers are people by email or teams by name (http-api §2.5.4). */
async function teamWithTokenUser(page: Page, name: string): Promise<void> {
  const whoami = await page.request.get('/api/auth/whoami', { headers: api })
  expect(whoami.ok()).toBe(true)
  const personId = ((await whoami.json()) as { payload: { user: { id: string } } }).payload.user.id
  const team = await page.request.post('/api/db/teams?select=id', { headers: { ...api, prefer: 'return=representation' }, data: { name, created_by: personId } })
  expect(team.status(), await team.text()).toBe(201)
  const teamId = ((await team.json()) as Array<{ id: string }>)[0]!.id
  const member = await page.request.post('/api/db/team_members', { headers: api, data: { team_id: teamId, person_id: personId } })
  expect(member.status(), await member.text()).toBe(201)
}

/** Waits for the run page to show a status: by the live events with JavaScript, by its meta refresh without. */
async function expectRunStatus(page: Page, status: string, timeout = 30_000): Promise<void> {
  await expect(page.getByTestId('playbook-run')).toHaveAttribute('data-run-status', status, { timeout })
}

const echoSpec = (title: string) => ({
  title,
  category: 'E2E',
  description: 'Says hello to the name given',
  parameters: [
    { name: 'name', label: 'Name', type: 'text', required: true, properties: { format: 'dns1123', maxLength: 63 } },
    { name: 'memory', label: 'Memory', type: 'bytes', default: '512Mi' },
    { name: 'loud', label: 'Loud', type: 'checkbox' },
    { name: 'token', label: 'Token', type: 'secret' },
  ],
  actions: [
    { name: 'greet', exec: { script: 'echo hello {{.params.name}}' } },
    { name: 'wrap-up', exec: { script: 'sleep 1; echo done {{.params.memory}}' } },
  ],
})

test.describe('playbooks', () => {
  test('runs a playbook with parameters from the catalogue and watches it finish', { tag: '@smoke' }, async ({ page }) => {
    const title = unique('Echo hello')
    await signInWithToken(page, '/playbooks')
    const playbookId = await createPlaybook(page, unique('echo-hello'), echoSpec(title))
    await page.goto(`/playbooks?${new URLSearchParams({ q: title }).toString()}`)
    await ready(page)
    const card = page.locator(`[data-testid="playbook-card"][data-playbook-id="${playbookId}"]`)
    await expect(card.getByTestId('playbook-title')).toHaveText(title)
    await expect(page.getByTestId('playbooks-new')).toBeVisible()
    await shots(page, 'catalogue')

    await card.getByTestId('playbook-run').click()
    await expect(page).toHaveURL(new RegExp(`/playbooks/${playbookId}/run\\?`))
    await ready(page)
    await expect(page.getByTestId(hasJs() ? 'run-playbook-dialog' : 'run-playbook-page')).toBeVisible()
    const form = page.getByTestId('run-playbook-form')
    await expect(form.getByTestId('param-memory')).toHaveValue('512Mi')
    await expect(form.getByTestId('param-token')).toHaveAttribute('type', 'password')
    await shots(page, 'run-dialog')

    const submit = page.getByTestId('run-playbook-submit')
    if (hasJs()) {
      // Run stays disabled until the browser finds the form valid.
      await expect(submit).toBeDisabled()
    } else {
      // The browser refuses the empty required name before anything is posted.
      const before = page.url()
      await submit.click()
      expect(page.url()).toBe(before)
      expect(await form.getByTestId('param-name').evaluate((input: HTMLInputElement) => input.validity.valueMissing)).toBe(true)
    }
    // A name that is not a DNS-1123 name is refused by the browser (and by the server's schema).
    await form.getByTestId('param-name').fill('Not_Valid')
    expect(await form.getByTestId('param-name').evaluate((input: HTMLInputElement) => input.validity.patternMismatch)).toBe(true)
    await form.getByTestId('param-name').fill('e2e-friend')
    await form.getByTestId('param-token').fill('s3cret-value')
    await form.getByTestId('param-loud').check()
    await expect(submit).toBeEnabled()
    await submit.click()
    await expect(page).toHaveURL(/\/playbooks\/runs\/[0-9a-f-]{36}$/, { timeout: 15_000 })
    await ready(page)
    await expect(page.getByTestId('run-title')).toHaveText(title)
    await expect(page.locator('[data-testid="run-parameter"][data-name="name"] dd')).toHaveText('e2e-friend')
    await expect(page.locator('[data-testid="run-parameter"][data-name="token"] dd')).toHaveText('[REDACTED]')

    await expectRunStatus(page, 'completed')
    const greet = page.locator('[data-testid="run-action"][data-action-name="greet"]')
    await expect(greet).toHaveAttribute('data-action-status', 'completed')
    await expect(greet.getByTestId('action-stdout')).toContainText('hello e2e-friend')
    await expect(greet.getByTestId('action-attempt')).toHaveText('attempt 1')
    await expect(page.locator('[data-testid="run-action"][data-action-name="wrap-up"]').getByTestId('action-stdout')).toContainText('done 512Mi')
    await expect(page.getByTestId('run-cancel')).toHaveCount(0)
    await shots(page, 'run-completed')
  })

  test('the dialog asks for a resource first, says when there are no parameters, and closes', async ({ page }) => {
    await signInWithToken(page, '/playbooks')
    const selecting = await createPlaybook(page, unique('pick-config'), {
      title: unique('Pick a deployment'),
      configs: [{ types: ['Kubernetes::Deployment'] }],
      parameters: [{ name: 'reason', label: 'Reason', type: 'text', required: true, properties: { multiline: 'true' } }],
      actions: [{ name: 'say', exec: { script: 'echo {{.config.name}}' } }],
    })
    const bare = await createPlaybook(page, unique('bare'), { title: unique('No params'), actions: [{ name: 'say', exec: { script: 'echo hi' } }] })
    const timed = await createPlaybook(page, unique('timed'), {
      title: unique('Wait a while'),
      parameters: [{ name: 'wait', label: 'Wait', type: 'duration', required: true, properties: { max: '1h' } }],
      actions: [{ name: 'say', exec: { script: 'echo {{.params.wait}}' } }],
    })

    // What only the server's schema knows (a duration's grammar and bounds) comes back inline, on the field.
    await page.goto(`/playbooks/${timed}/run?returnTo=/playbooks`)
    await ready(page)
    await page.getByTestId('param-wait').fill('5x')
    await page.getByTestId('run-playbook-submit').click()
    await expect(page.getByTestId('run-playbook-form')).toContainText('"5x" is not a duration')
    await page.getByTestId('param-wait').fill('2h')
    await page.getByTestId('run-playbook-submit').click()
    await expect(page.getByTestId('run-playbook-form')).toContainText('must be at most 1h')
    await expect(page).toHaveURL(new RegExp(`/playbooks/${timed}/run`))

    await page.goto(`/playbooks/${bare}/run?returnTo=/playbooks`)
    await ready(page)
    await expect(page.getByTestId('run-no-parameters')).toHaveText('No parameters for this playbook.')

    await page.goto(`/playbooks/${selecting}/run?returnTo=/playbooks`)
    await ready(page)
    await expect(page.getByTestId('run-select-resource')).toHaveText('Please select a resource to see the parameters.')
    await expect(page.getByTestId('run-playbook-form')).toHaveCount(0)
    const picker = page.getByTestId('run-target-config_id')
    const option = picker.locator('option').nth(1)
    const configId = await option.getAttribute('value')
    await picker.selectOption(configId!)
    if (!hasJs()) await page.getByTestId('run-target-picker').getByRole('button', { name: 'Choose' }).click()
    await expect(page).toHaveURL(new RegExp(`config_id=${configId}`))
    await expect(page.getByTestId('param-reason')).toBeVisible()
    await expect(page.getByTestId('param-reason')).toHaveJSProperty('tagName', 'TEXTAREA')

    if (hasJs()) {
      // Opened from the catalogue it is a dialog; Escape closes it back to the catalogue.
      await page.goto('/playbooks')
      await ready(page)
      await page.locator(`[data-testid="playbook-card"][data-playbook-id="${bare}"]`).getByTestId('playbook-run').click()
      await expect(page.getByTestId('run-playbook-dialog')).toBeVisible()
      await page.keyboard.press('Escape')
      await expect(page).toHaveURL(/\/playbooks$/)
      await expect(page.getByTestId('run-playbook-dialog')).toHaveCount(0)
    } else {
      await page.getByTestId('run-playbook-cancel').click()
      await expect(page).toHaveURL(/\/playbooks$/)
    }
  })

  test('runs a playbook on a config from its Playbooks drop-down', async ({ page }) => {
    await signInWithToken(page, '/playbooks')
    const title = unique('Describe deployment')
    await createPlaybook(page, unique('describe'), {
      title,
      configs: [{ types: ['Kubernetes::Deployment'] }],
      parameters: [{ name: 'reason', label: 'Reason', type: 'text', required: true }],
      actions: [{ name: 'describe', exec: { script: 'echo describing {{.config.name}} because {{.params.reason}}' } }],
    })
    const response = await page.request.get('/api/db/config_items?type=eq.Kubernetes::Deployment&deleted_at=is.null&select=id,name&order=name&limit=1', { headers: api })
    const [config] = (await response.json()) as Array<{ id: string; name: string }>
    await page.goto(`/catalog/${config!.id}`)
    await ready(page)
    const menu = page.getByTestId('catalog-item').getByTestId('playbooks-menu').first()
    await menu.locator('summary').click()
    await menu.getByTestId('playbook-link').filter({ hasText: title }).click()
    await expect(page).toHaveURL(new RegExp(`config_id=${config!.id}`))
    await ready(page)
    await expect(page.getByTestId('run-target-config_id')).toHaveValue(config!.id)
    await page.getByTestId('param-reason').fill('e2e check')
    await shots(page, 'run-from-config')
    await page.getByTestId('run-playbook-submit').click()
    await expect(page).toHaveURL(/\/playbooks\/runs\/[0-9a-f-]{36}$/, { timeout: 15_000 })
    await ready(page)
    await expect(page.getByTestId('run-resource')).toContainText(config!.name)
    await expectRunStatus(page, 'completed')
    await expect(page.getByTestId('action-stdout')).toContainText(`describing ${config!.name} because e2e check`)
  })

  test('an approver approves a run that waits for approval', async ({ page }) => {
    await signInWithToken(page, '/playbooks')
    const approver = unique('Approvers')
    await teamWithTokenUser(page, approver)
    const id = await createPlaybook(page, unique('approve-me'), {
      title: unique('Needs approval'),
      approval: { type: 'any', approvers: { teams: [approver] } },
      actions: [{ name: 'after-approval', exec: { script: 'echo approved' } }],
    })
    const runId = await startRun(page, { id, params: {} })
    await page.goto(`/playbooks/runs/${runId}`)
    await ready(page)
    await expectRunStatus(page, 'pending_approval')
    await expect(page.getByTestId('run-approvers')).toContainText(approver)
    await shots(page, 'pending-approval')
    await page.getByTestId('run-approve').click()
    await expect(page.getByTestId('toast')).toContainText('playbook run approved')
    await expect(page.getByTestId('run-approve')).toHaveCount(0)
    await expectRunStatus(page, 'completed')
    await expect(page.getByTestId('run-approved-by')).not.toBeEmpty()
  })

  test('cancels a running run', async ({ page }) => {
    await signInWithToken(page, '/playbooks')
    const id = await createPlaybook(page, unique('long'), { title: unique('Long sleep'), actions: [{ name: 'nap', exec: { script: 'sleep 60' } }] })
    const runId = await startRun(page, { id, params: {} })
    await page.goto(`/playbooks/runs/${runId}`)
    await ready(page)
    await page.getByTestId('run-cancel').click()
    await expect(page.getByTestId('toast')).toContainText('playbook run cancelled')
    await expectRunStatus(page, 'cancelled')
    await expect(page.getByTestId('run-cancel')).toHaveCount(0)
    await shots(page, 'cancelled')
  })

  test('the runs list filters by playbook, status and time range in the URL and pages', async ({ page }) => {
    await signInWithToken(page, '/playbooks/runs')
    const title = unique('Listed')
    const id = await createPlaybook(page, unique('listed'), { title, actions: [{ name: 'say', exec: { script: 'echo listed' } }] })
    const runId = await startRun(page, { id, params: {} })
    await page.goto('/playbooks/runs')
    await ready(page)
    await expect(page.getByTestId('runs-table')).toBeVisible()
    await page.getByTestId('runs-filter-playbook').selectOption(id)
    if (!hasJs()) await page.getByTestId('runs-filters-apply').click()
    await expect(page).toHaveURL(new RegExp(`playbook=${id}`))
    await expect(page.getByTestId('run-link')).toHaveCount(1)
    await expect(page.getByTestId('run-link')).toHaveAttribute('href', `/playbooks/runs/${runId}`)
    await page.getByTestId('runs-filter-range').selectOption('1h')
    if (!hasJs()) await page.getByTestId('runs-filters-apply').click()
    await expect(page).toHaveURL(/range=1h/)
    await expect(page.getByTestId('run-link')).toHaveCount(1)
    await shots(page, 'runs')
    await page.getByTestId('runs-filter-status').selectOption('timed_out')
    if (!hasJs()) await page.getByTestId('runs-filters-apply').click()
    await expect(page).toHaveURL(/status=timed_out/)
    await expect(page.getByTestId('run-link')).toHaveCount(0)
    // A bad value in the URL falls back instead of failing.
    await page.goto('/playbooks/runs?status=bogus&page=-2&pageSize=7')
    await ready(page)
    await expect(page.getByTestId('runs-table')).toBeVisible()
  })
})
