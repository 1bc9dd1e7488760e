import { expect, test, type APIRequestContext, type Page } from './support/test.ts'
import { signInWithToken } from './support/sign-in.ts'
import { E2E_TOKEN } from '../../playwright.config.ts'

/**
 * The playbook editor (issue 16) at /playbooks/new and /playbooks/{id}/edit: a Form tab (name,
 * namespace, title, category, icon, description) and a Code tab (the rest of the spec as YAML);
 * a refused spec shows on the Spec field, whether this page or the API's write guard refused it;
 * a playbook another source owns opens read-only with the guard's reason. With and without
 * JavaScript.
 */

const project = () => test.info().project.name
const auth = { Authorization: `Bearer ${E2E_TOKEN}` }

test.use({ viewport: { width: 1440, height: 900 } })

async function idOf(request: APIRequestContext, name: string): Promise<string> {
  const response = await request.get(`/api/db/playbooks?select=id&deleted_at=is.null&name=eq.${name}`, { headers: auth })
  expect(response.status()).toBe(200)
  const rows = (await response.json()) as { id: string }[]
  expect(rows).toHaveLength(1)
  return rows[0]!.id
}

/** With JavaScript one tab shows at a time; without it both panels are on the page. */
async function openTab(page: Page, tab: 'form' | 'code') {
  if (project() === 'js') {
    await page.getByTestId(`playbook-tab-${tab}`).click()
    await expect(page.getByTestId('playbook-editor')).toHaveAttribute('data-tab', tab)
  }
}

const spec = (hook: string, second = 'notify') => `on:
  webhook:
    path: ${hook}
    authentication:
      basic: {username: deploy, password: s3cret}
actions:
  - name: ping
    http:
      url: http://127.0.0.1:9/healthz
  - name: ${second}
    if: failure()
    notification:
      url: "generic://127.0.0.1:9/hook"
      title: ping failed
`

test('creates a playbook with the form, shows a refused spec on its field, edits it', async ({ page, request }) => {
  test.setTimeout(90_000)
  const js = project() === 'js'
  const name = `e2e-playbook-${project()}`
  const hook = `e2e-hook-${project()}`
  await signInWithToken(page, '/playbooks/new')
  const editor = page.getByTestId('playbook-editor')
  await expect(editor).toBeVisible()
  await expect(editor).toHaveAttribute('data-tab', js ? 'form' : 'all')
  await expect(page.getByTestId('playbook-namespace')).toHaveValue('default')
  await expect(page.getByTestId('playbook-save')).toHaveText('Save')
  if (js) await expect(page.getByTestId('playbook-spec')).toBeHidden()

  await page.getByTestId('playbook-name').fill(name)
  await page.getByTestId('playbook-title').fill('E2E ping')
  await page.getByTestId('playbook-category').fill('E2E')
  await page.getByTestId('playbook-icon').fill('http')
  await page.getByTestId('playbook-description').fill('Pings a port nobody listens on')
  await openTab(page, 'code')
  // Two actions named alike: this page's own check of the spec refuses it.
  await page.getByTestId('playbook-spec').fill(spec(hook, 'ping'))
  if (js) {
    // Escape in the YAML editor closes nothing: the tab, the text and the page stay.
    await page.getByTestId('playbook-spec').press('Escape')
    await expect(page).toHaveURL(/\/playbooks\/new$/)
    await expect(editor).toHaveAttribute('data-tab', 'code')
    await expect(page.getByTestId('playbook-spec')).toHaveValue(/name: ping\n/)
    await openTab(page, 'form')
  }
  await page.getByTestId('playbook-save').click()
  await expect(page.getByTestId('spec-error')).toContainText('spec.actions[1].name: duplicate action name "ping" (also actions[0])')
  if (js) await expect(editor).toHaveAttribute('data-tab', 'code')
  // What was typed survives the refusal.
  await expect(page.getByTestId('playbook-title')).toHaveValue('E2E ping')
  await expect(page.getByTestId('playbook-description')).toHaveValue('Pings a port nobody listens on')

  await page.getByTestId('playbook-spec').fill(spec(hook))
  await page.getByTestId('playbook-save').click()
  await expect(page).toHaveURL(/\/playbooks$/)
  const id = await idOf(request, name)

  // The same webhook path again: only the API's guard knows it is taken, and its 400 lands on the Spec field.
  await page.goto('/playbooks/new')
  await page.getByTestId('playbook-name').fill(`${name}-copy`)
  await openTab(page, 'code')
  await page.getByTestId('playbook-spec').fill(spec(hook))
  await page.getByTestId('playbook-save').click()
  await expect(page.getByTestId('spec-error')).toContainText(`playbook validation failed: spec.on.webhook.path: "${hook}" is already served by playbook default/${name}`)

  await page.goto(`/playbooks/${id}/edit`)
  await expect(page.getByTestId('playbook-name')).toHaveValue(name)
  await expect(page.getByTestId('playbook-name')).toHaveAttribute('readonly', '')
  await expect(page.getByTestId('playbook-title')).toHaveValue('E2E ping')
  await expect(page.getByTestId('playbook-category')).toHaveValue('E2E')
  await expect(page.getByTestId('playbook-save')).toHaveText('Update')
  await expect(page.getByTestId('playbook-cancel')).toHaveAttribute('href', '/playbooks')
  // The Code tab holds the rest of the spec, not the fields of the Form tab.
  await expect(page.getByTestId('playbook-spec')).not.toHaveValue(/^title:/m)
  await expect(page.getByTestId('playbook-spec')).toHaveValue(/path: e2e-hook-/)
  await page.getByTestId('playbook-title').fill('E2E ping, edited')
  if (js) {
    await page.getByTestId('playbook-title').press('Escape')
    await expect(page).toHaveURL(new RegExp(`/playbooks/${id}/edit$`))
    await expect(page.getByTestId('playbook-title')).toHaveValue('E2E ping, edited')
  }
  await page.getByTestId('playbook-save').click()
  await expect(page).toHaveURL(/\/playbooks$/)
  await page.goto(`/playbooks/${id}/edit`)
  await expect(page.getByTestId('playbook-title')).toHaveValue('E2E ping, edited')
  const stored = await request.get(`/api/db/playbooks?select=title,source,spec&id=eq.${id}`, { headers: auth })
  expect(await stored.json()).toMatchObject([{ title: 'E2E ping, edited', source: 'UI', spec: { title: 'E2E ping, edited', category: 'E2E', icon: 'http' } }])
})

test('a playbook applied from a file opens read-only with the reason', async ({ page, request }) => {
  const name = `e2e-file-playbook-${project()}`
  const created = await request.post('/api/db/playbooks', {
    headers: { ...auth, 'X-Lookout-Source': 'ConfigFile' },
    data: { name, namespace: 'ops', source: 'ConfigFile', title: 'From a file', spec: { title: 'From a file', actions: [{ name: 'ping', http: { url: 'http://127.0.0.1:9/' } }] } },
  })
  expect(created.status()).toBe(201)
  const id = await idOf(request, name)
  await signInWithToken(page, `/playbooks/${id}/edit`)
  await expect(page.getByTestId('playbook-read-only')).toContainText(`playbook ops/${name} was not created through the API and cannot be modified`)
  await expect(page.getByTestId('playbook-save')).toHaveCount(0)
  await expect(page.getByTestId('playbook-title')).toHaveAttribute('readonly', '')
})
