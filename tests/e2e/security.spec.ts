import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { expect, test, type Page } from './support/test.ts'
import { E2E_ADMIN, E2E_ORIGIN, E2E_TOKEN } from '../../playwright.config.ts'

/**
 * Same-site forgery in a real browser: the admin is signed in on http://localhost:4311 and
 * opens a page served from another port of the same host — same site, so Chromium sends the
 * SameSite=Lax session cookie along with a form post, but another origin. Its forms post
 * text/plain (read as YAML or JSON by lenient APIs) and urlencoded bodies to the API and to a
 * console action. None may change anything. The attacker page has no script: a click submits.
 */

const bearer = { authorization: `Bearer ${E2E_TOKEN}` }

let attacker: http.Server
let attackerOrigin = ''
let pageHtml = ''

function escapeAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/\n/g, '&#10;')
}

/** One form per attack; text/plain sends `name=value` per field, so the YAML sits in a name and the `=` in a comment. */
function attackPage(names: { canary: string; property: string; team: string }): string {
  const canaryYaml =
    `apiVersion: canaries.flanksource.com/v1\nkind: Canary\nmetadata:\n  name: ${names.canary}\n` +
    `spec:\n  schedule: '@every 1h'\n  tcp:\n    - name: port\n      endpoint: 127.0.0.1:9\n#`
  const jsonName = `{"name":"${names.property}","value":"`
  return `<!doctype html><html><head><meta charset="utf-8"><title>Win a prize</title></head><body>
<form id="yaml" method="post" enctype="text/plain" action="${E2E_ORIGIN}/api/canary/api/canaries">
  <input type="hidden" name="${escapeAttribute(canaryYaml)}" value="">
  <button type="submit">yaml</button>
</form>
<form id="json" method="post" enctype="text/plain" action="${E2E_ORIGIN}/api/db/properties">
  <input type="hidden" name="${escapeAttribute(jsonName)}" value='x"}'>
  <button type="submit">json</button>
</form>
<form id="urlencoded" method="post" action="${E2E_ORIGIN}/api/db/properties">
  <input type="hidden" name="name" value="${names.property}-form">
  <input type="hidden" name="value" value="x">
  <button type="submit">urlencoded</button>
</form>
<form id="action" method="post" action="${E2E_ORIGIN}/settings/teams">
  <input type="hidden" name="name" value="${names.team}">
  <button type="submit">action</button>
</form>
</body></html>`
}

test.beforeAll(async () => {
  attacker = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    res.end(pageHtml)
  })
  await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve))
  attackerOrigin = `http://localhost:${(attacker.address() as AddressInfo).port}`
})

test.afterAll(async () => {
  await new Promise((resolve) => attacker?.close(resolve))
})

async function signInAsAdmin(page: Page): Promise<void> {
  await page.goto('/login?return_to=%2Fhealth')
  if (test.info().project.name === 'js') await expect(page.locator('html')).toHaveAttribute('data-hydrated', 'true')
  const form = page.getByTestId('password-login-form')
  await form.locator('input[name="identifier"]').fill(E2E_ADMIN.email)
  await form.locator('input[name="password"]').fill(E2E_ADMIN.password)
  await form.locator('button[name="method"][value="password"]').click()
  await expect(page).toHaveURL(/\/health$/)
}

/** Submits one attacker form and returns the status the console answered it with. */
async function submit(page: Page, formId: string, target: string): Promise<number> {
  await page.goto(`${attackerOrigin}/`)
  const answer = page.waitForResponse((response) => response.url().startsWith(`${E2E_ORIGIN}${target}`) && response.request().method() === 'POST')
  await page.locator(`#${formId} button`).click()
  const response = await answer
  await page.waitForLoadState()
  return response.status()
}

test.describe('same-site forgery', () => {
  // The refused posts are the point: Chromium reports each 403/415 answer, and the attacker's bare page has no icon.
  test.use({ allowedConsoleErrors: [/status of 4[01]\d/] })

  test('a page on another port cannot write through the admin session', async ({ page, request }, testInfo) => {
    const suffix = `${testInfo.project.name}-${Date.now().toString(36)}`
    const names = { canary: `forged-${suffix}`, property: `forged.${suffix}`, team: `forged-${suffix}` }
    pageHtml = attackPage(names)
    await signInAsAdmin(page)

    // The session is live and its cookie reaches the API from the console's own page.
    const whoami = await page.request.get('/api/auth/whoami')
    expect(whoami.status()).toBe(200)

    const yaml = await submit(page, 'yaml', '/api/canary/api/canaries')
    expect([403, 415]).toContain(yaml)
    await expect(page.getByRole('heading', { name: 'This request was refused' })).toBeVisible()

    expect([403, 415]).toContain(await submit(page, 'json', '/api/db/properties'))
    expect([403, 415]).toContain(await submit(page, 'urlencoded', '/api/db/properties'))

    const action = await submit(page, 'action', '/settings/teams')
    expect(action).toBe(403)
    await expect(page.getByRole('heading', { name: 'This form was sent from another site' })).toBeVisible()

    // Read back with the bootstrap token: nothing was written.
    const canaries = await request.get(`/api/db/canaries?name=eq.${names.canary}&select=id`, { headers: bearer })
    expect(canaries.status()).toBe(200)
    expect(await canaries.json()).toEqual([])
    for (const property of [names.property, `${names.property}-form`]) {
      const rows = await request.get(`/api/db/properties?name=eq.${encodeURIComponent(property)}&select=name`, { headers: bearer })
      expect(await rows.json()).toEqual([])
    }
    const teams = await request.get(`/api/db/teams?name=eq.${names.team}&select=id`, { headers: bearer })
    expect(await teams.json()).toEqual([])

    // The admin is still signed in: the refusals did not end the session.
    await page.goto('/settings/teams')
    await expect(page.getByTestId('page-title')).toBeVisible()
  })
})
