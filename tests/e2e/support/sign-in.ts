import { expect, type Page } from './test.ts'
import { E2E_ADMIN, E2E_TOKEN } from '../../../playwright.config.ts'
import { ready } from './page.ts'

/**
 * Opens a protected page signed out, follows the redirect to the sign-in page, signs in with the
 * bootstrap access token and lands back on the page.
 */
export async function signInWithToken(page: Page, returnTo = '/health'): Promise<void> {
  await page.goto(returnTo)
  await expect(page).toHaveURL(/\/login\?return_to=/)
  await page.getByTestId('token-sign-in-link').click()
  await expect(page).toHaveURL(/\/login\/token\?return_to=/)
  await page.getByTestId('login-form').locator('input[name="token"]').fill(E2E_TOKEN)
  await page.getByTestId('login-form').locator('button[type="submit"]').click()
  await expect(page).toHaveURL(new RegExp(`${returnTo.replace(/[?]/g, '\\?')}$`))
}

/** Signs in on the password form as the first admin (a person with an e-mail, as tokens need) and lands on `returnTo`. */
export async function signInWithPassword(page: Page, returnTo = '/health'): Promise<void> {
  await page.goto(`/login?return_to=${encodeURIComponent(returnTo)}`)
  await ready(page)
  const form = page.getByTestId('password-login-form')
  await form.locator('input[name="identifier"]').fill(E2E_ADMIN.email)
  await form.locator('input[name="password"]').fill(E2E_ADMIN.password)
  await form.locator('button[name="method"][value="password"]').click()
  await expect(page).toHaveURL(new RegExp(`${returnTo.replace(/[?]/g, '\\?')}$`))
}
