import { expect, type Page } from './test.ts'
import { E2E_TOKEN } from '../../../playwright.config.ts'

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
