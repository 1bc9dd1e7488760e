import { expect, test, type Page } from './support/test.ts'
import { E2E_TOKEN } from '../../playwright.config.ts'
import { signInWithToken } from './support/sign-in.ts'

/** The demo data's failing refunds check, read through the API the way any client would. */
async function getFailingCheckId(page: Page): Promise<string> {
  const response = await page.request.get('/api/db/checks?name=eq.refunds-api-health&select=id,status', {
    headers: { authorization: `Bearer ${E2E_TOKEN}` },
  })
  expect(response.ok()).toBe(true)
  const rows = (await response.json()) as Array<{ id: string; status: string }>
  expect(rows[0]?.status).toBe('unhealthy')
  return rows[0]!.id
}

/** The browser's own constraint check on a field (works with JavaScript off: it is not page script). */
function isValueMissing(page: Page, testId: string): Promise<boolean> {
  return page.getByTestId(testId).evaluate((element) => (element as HTMLInputElement | HTMLSelectElement).validity.valueMissing)
}

function history(page: Page, type: string) {
  return page.getByTestId('history').locator(`[data-history-type="${type}"]`)
}

test.describe('incidents', () => {
  test('create, respond, hypothesise, attach a failing check, define done, comment and resolve', { tag: '@smoke' }, async ({ page }, testInfo) => {
    test.setTimeout(120_000)
    const hasJs = testInfo.project.name === 'js'
    const suffix = `${testInfo.project.name}-${Date.now()}`
    const title = `Checkout errors ${suffix}`
    await signInWithToken(page, '/incidents')

    // Create: an empty form is refused (the spec's messages with JS, the browser's own
    // constraints without), then the incident, open by default.
    await page.getByTestId('create-incident-open').click()
    await page.getByTestId('create-incident-submit').click()
    const dialog = page.getByTestId('create-incident-dialog')
    if (hasJs) {
      await expect(dialog).toContainText('This field is required')
      await expect(dialog).toContainText('Please select an incident type')
      await expect(dialog).toContainText('Please select incident severity')
    } else {
      await expect(dialog).toBeVisible()
      expect(await isValueMissing(page, 'incident-title')).toBe(true)
    }
    await page.getByTestId('incident-title').fill(title)
    await page.getByTestId('incident-type').selectOption('availability')
    await page.getByTestId('incident-severity').selectOption('critical')
    await page.getByTestId('create-incident-submit').click()
    await expect(page).toHaveURL(/\/incidents\/[0-9a-f-]{36}$/)
    const incidentUrl = page.url()
    await expect(page.getByTestId('incident-title')).toHaveText(title)
    await expect(page.getByTestId('incident-header').getByTestId('status-badge')).toHaveText('Open')
    await expect(page.getByTestId('incident-header').getByTestId('severity-badge')).toHaveText('Critical')

    // Responders: the signed-in person (so their comment lands on the timeline) and a team.
    await page.getByTestId('responder-select').selectOption({ label: 'System' })
    await page.getByTestId('add-responder-submit').click()
    await expect(page.getByTestId('responder')).toHaveCount(1)
    await page.getByTestId('responder-select').selectOption({ label: 'Payments' })
    await page.getByTestId('add-responder-submit').click()
    await expect(page.getByTestId('responder')).toHaveCount(2)

    // Hypothesis tree: root > factor > solution, and a status change.
    await page.getByTestId('add-root-title').fill('Payment provider rejects requests')
    await page.getByTestId('add-root-submit').click()
    const root = page.getByTestId('hypothesis-root')
    await expect(root.getByTestId('hypothesis-title')).toHaveText('Payment provider rejects requests')
    await root.getByTestId('add-factor-title').fill('Expired API credentials')
    await root.getByTestId('add-factor-submit').click()
    const factor = page.getByTestId('hypothesis-factor')
    await expect(factor.getByTestId('hypothesis-title')).toHaveText('Expired API credentials')
    await factor.getByTestId('add-solution-title').fill('Rotate the credentials')
    await factor.getByTestId('add-solution-submit').click()
    await expect(page.getByTestId('hypothesis-solution').getByTestId('hypothesis-title')).toHaveText('Rotate the credentials')
    await root.getByTestId('hypothesis-status-select').first().selectOption('likely')
    await root.getByTestId('hypothesis-status-submit').first().click()
    await expect(root.getByTestId('hypothesis-status-badge').first()).toHaveText('Likely')

    // Attach the failing check from /health into a new incident.
    const checkId = await getFailingCheckId(page)
    const healthUrl = `/health?checkId=${checkId}&timeRange=1h`
    const newTitle = `Refunds outage ${suffix}`
    await page.goto(healthUrl)
    // The panel's code arrives after the page's; until it does the button is a plain link.
    if (hasJs) await expect(page.getByTestId('attach-evidence')).toHaveAttribute('data-hydrated', 'true')
    await page.getByTestId('attach-evidence').click()
    const linkDialog = page.getByTestId('link-to-incident-dialog')
    await expect(linkDialog).toBeVisible()
    await linkDialog.getByTestId('link-incident-new').click()
    if (!hasJs) await linkDialog.getByTestId('link-incident-choose').click()
    await linkDialog.getByTestId('link-submit').click()
    if (hasJs) {
      await expect(page.getByTestId('link-to-incident-dialog')).toContainText('Please select an incident type')
      await expect(page.getByTestId('link-to-incident-dialog')).toContainText('Please select incident severity')
    } else {
      await expect(page.getByTestId('link-to-incident-dialog')).toBeVisible()
      expect(await isValueMissing(page, 'link-incident-type')).toBe(true)
      expect(await isValueMissing(page, 'link-incident-severity')).toBe(true)
    }
    await page.getByTestId('link-incident-title').fill(newTitle)
    await page.getByTestId('link-incident-type').selectOption('availability')
    await page.getByTestId('link-incident-severity').selectOption('high')
    await page.getByTestId('link-submit').click()
    if (hasJs) {
      await expect(page.getByTestId('link-toast')).toContainText('Linked to incident successfully')
      await expect(page.getByTestId('link-to-incident-dialog')).toHaveCount(0)
      await page.getByTestId('link-toast-incident').click()
    }
    await expect(page).toHaveURL(/\/incidents\/[0-9a-f-]{36}$/)
    await expect(page.getByTestId('incident-title')).toHaveText(newTitle)
    // A new incident's hypothesis defaults to its title, and holds the check.
    await expect(page.getByTestId('hypothesis-root').getByTestId('hypothesis-title')).toHaveText(newTitle)
    await expect(page.getByTestId('evidence')).toHaveCount(1)
    await expect(page.getByTestId('evidence-link')).toHaveAttribute('href', healthUrl)

    // ...and into the existing incident, under its root hypothesis.
    await page.goto(healthUrl)
    // The panel's code arrives after the page's; until it does the button is a plain link.
    if (hasJs) await expect(page.getByTestId('attach-evidence')).toHaveAttribute('data-hydrated', 'true')
    await page.getByTestId('attach-evidence').click()
    await page.getByTestId('link-incident-search').fill(suffix.replace(/^[a-z-]+-/, ''))
    if (!hasJs) await page.getByTestId('link-incident-search-submit').click()
    const option = page.getByTestId('link-incident-option').filter({ hasText: title })
    await expect(option).toHaveCount(1)
    await option.locator('input[type="radio"]').check()
    if (!hasJs) await page.getByTestId('link-incident-choose').click()
    await page.getByTestId('link-hypothesis-option').filter({ hasText: 'Payment provider rejects requests' }).locator('input[type="radio"]').check()
    await page.getByTestId('link-submit').click()
    if (hasJs) {
      await expect(page.getByTestId('link-toast')).toContainText('Linked to incident successfully')
      await page.goto(incidentUrl)
    }
    await expect(page).toHaveURL(incidentUrl)

    // Definition of done on the attached check, then done.
    const evidence = root.getByTestId('evidence').first()
    await expect(evidence).toHaveAttribute('data-evidence-type', 'check')
    await expect(evidence.getByTestId('evidence-status')).toHaveText('unhealthy')
    await evidence.getByTestId('evidence-dod-toggle').click()
    await expect(root.getByTestId('definition-of-done')).toBeVisible()
    await root.getByTestId('evidence-done-toggle').click()
    await expect(root.getByTestId('definition-of-done').getByLabel('done', { exact: true })).toBeVisible()

    // Comment, then resolve.
    await page.getByTestId('comment-text').fill('Credentials rotated, refunds recovering.')
    await page.getByTestId('comment-submit').click()
    await expect(page.getByTestId('comment')).toContainText('Credentials rotated, refunds recovering.')
    await page.getByTestId('status-select').selectOption('resolved')
    await page.getByTestId('status-submit').click()
    await expect(page.getByTestId('incident-header').getByTestId('status-badge')).toHaveText('Resolved')

    // The timeline shows each step.
    await expect(history(page, 'incident.created')).toHaveCount(1)
    await expect(history(page, 'responder.created')).toHaveCount(2)
    await expect(history(page, 'hypothesis.created')).toHaveCount(3)
    await expect(history(page, 'hypothesis.status_updated')).toHaveCount(1)
    await expect(history(page, 'evidence.created')).toHaveCount(1)
    await expect(history(page, 'evidence.done_definition_added')).toHaveCount(1)
    await expect(history(page, 'responder.commented')).toHaveCount(1)
    await expect(history(page, 'incident.status_updated')).toContainText('changed the status to Resolved')

    // The list finds it by search and status filter, with the spec's badges.
    await page.goto(`/incidents?status=resolved&search=${encodeURIComponent(title)}`)
    const row = page.getByTestId('incident-row')
    await expect(row).toHaveCount(1)
    await expect(row.getByTestId('severity-badge')).toHaveText('Critical')
    await expect(row.getByTestId('status-badge')).toHaveText('Resolved')
  })

  test('native constraints refuse an empty required field before anything is posted', async ({ page }, testInfo) => {
    test.skip(testInfo.project.name !== 'no-js', 'the browser itself refuses the form only while no script validates it')
    await signInWithToken(page, '/incidents?dialog=new')
    const posts: string[] = []
    page.on('request', (request) => {
      if (request.method() === 'POST') posts.push(request.url())
    })
    const before = page.url()
    await page.getByTestId('create-incident-submit').click()
    // Give a post, had one been sent, the time to arrive and navigate.
    await page.waitForTimeout(500)
    expect(page.url()).toBe(before)
    expect(posts).toEqual([])
    await expect(page.getByTestId('incident-title')).toHaveAttribute('required', '')
    expect(await isValueMissing(page, 'incident-title')).toBe(true)
    // The same holds on the incident page: an empty comment is not posted.
    await page.getByTestId('incident-title').fill(`Constraint check ${Date.now()}`)
    await page.getByTestId('incident-type').selectOption('availability')
    await page.getByTestId('incident-severity').selectOption('low')
    await page.getByTestId('create-incident-submit').click()
    await expect(page).toHaveURL(/\/incidents\/[0-9a-f-]{36}$/)
    const incidentUrl = page.url()
    posts.length = 0
    await page.getByTestId('comment-submit').click()
    await page.waitForTimeout(500)
    expect(page.url()).toBe(incidentUrl)
    expect(posts).toEqual([])
    expect(await isValueMissing(page, 'comment-text')).toBe(true)
  })
})
